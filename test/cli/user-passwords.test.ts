/**
 * `users set-password` (cli/admin/users.ts, domain/users.ts): the password from standard input or generated, checked
 * by the API's rule; it signs the user's sessions out and clears their email's failed sign-ins.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/db/store.js";
import { verifyPassword } from "../../src/domain/passwords.js";
import { SessionTokens } from "../../src/domain/sessions.js";
import { recordSignInAttempt, subjectsOf } from "../../src/domain/sign-in-backoff.js";
import { cli, initDir, withDb } from "../helpers/cli.js";

const userOf = (store: Store) => store.users.byEmail("admin@localhost")!;

describe("users set-password", () => {
  it("takes the password from standard input, ends the user's sessions and clears their failed sign-ins", async () => {
    const { dir, d } = initDir();
    const before = await withDb(dir, async (store) => {
      for (let i = 0; i < 7; i++) recordSignInAttempt(store, subjectsOf("admin@localhost", "203.0.113.7"), Date.now());
      const sessions = new SessionTokens(store, Date.now);
      const token = (await sessions.issue(userOf(store))).token;
      expect(await sessions.verify(token)).not.toBeNull();
      return token;
    });
    const run = cli(["users", "set-password", "admin@localhost", ...d], { input: "a-new-long-password\n" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      "password of user 1 admin@localhost set; their web sessions are signed out; their failed sign-ins are cleared\n",
    );
    await withDb(dir, async (store) => {
      const user = userOf(store);
      expect(verifyPassword("a-new-long-password", user.password_hash)).toBe(true);
      const sessions = new SessionTokens(store, Date.now);
      expect(await sessions.verify(before)).toBeNull();
      // A session begun after the change works.
      expect(await sessions.verify((await sessions.issue(user)).token)).toMatchObject({ userId: user.id });
      expect(store.signInBackoff.list().map((r) => r.subject)).toEqual(["addr:203.0.113.7"]);
    });
  });

  it("generates a password, printed once, when standard input gives none; finds the user by id too", async () => {
    const { dir, d } = initDir();
    const run = cli(["users", "set-password", "1", "--json", ...d]);
    expect(run.status, run.stderr).toBe(0);
    const out = run.json();
    expect(out).toMatchObject({ id: 1, email: "admin@localhost", sessions_ended: true, backoff_cleared: false });
    expect(out.generated_password).toMatch(/^\S{20,}$/);
    await withDb(dir, (store) =>
      expect(verifyPassword(out.generated_password, userOf(store).password_hash)).toBe(true),
    );
  });

  it("refuses a password the API would refuse (exit 2) and an unknown user (exit 1), changing nothing", async () => {
    const { dir, d } = initDir();
    const hash = await withDb(dir, (store) => userOf(store).password_hash);
    const short = cli(["users", "set-password", "admin@localhost", ...d], { input: "short\n" });
    expect(short.status).toBe(2);
    expect(short.stderr).toContain("the password from standard input must be 8 to 1024 characters, got 5");
    const nobody = cli(["users", "set-password", "nobody@x.test", ...d], { input: "a-new-long-password\n" });
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toMatch(/^error: no user nobody@x\.test in this data directory: `content-service users list/);
    expect(await withDb(dir, (store) => userOf(store).password_hash)).toBe(hash);
  });
});
