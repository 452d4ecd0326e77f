/** `users backoff` and `users clear-backoff` (cli/admin/sign-in.ts): what the server counted, read and cleared. */
import { describe, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { recordSignInAttempt, subjectsOf } from "../../src/domain/sign-in-backoff.js";
import { cli, tempDir } from "../helpers/cli.js";

describe("users clear-backoff", () => {
  it("lists the counted failures and clears an email's and an address's", () => {
    const dir = tempDir();
    expect(cli(["init", "--data-dir", dir, "--admin-email", "a@x.test"], { input: "pw-from-stdin-1\n" }).status).toBe(
      0,
    );
    const db = openDb(dir);
    const store = createStore(db);
    // 12 failures, 7 past the 5 free: a block of about a minute, still running when the CLI lists it on a slow machine.
    for (let i = 0; i < 12; i++) recordSignInAttempt(store, subjectsOf("A@x.test", "203.0.113.7"), Date.now());
    db.close();
    const listed = cli(["users", "backoff", "--json", "--data-dir", dir]).json();
    expect(listed.map((r: { subject: string }) => r.subject)).toEqual([
      "addr:203.0.113.7",
      "email:a@x.test",
      "email:a@x.test addr:203.0.113.7",
    ]);
    expect(listed[2]).toMatchObject({ failures: 12 });
    expect(listed[2].blocked_until).not.toBeNull();
    // From all addresses together, 12 is within the free failures.
    expect(listed[1]).toMatchObject({ failures: 12, blocked_until: null });
    const cleared = cli(["users", "clear-backoff", "a@x.test", "--json", "--data-dir", dir]);
    expect(cleared.json()).toEqual({ email: true });
    const again = cli(["users", "clear-backoff", "a@x.test", "--address", "203.0.113.7", "--data-dir", dir]);
    expect(again.stdout).toBe("a@x.test: had no failures\n203.0.113.7: failures cleared\n");
    expect(cli(["users", "backoff", "--json", "--data-dir", dir]).json()).toEqual([]);
    const bare = cli(["users", "clear-backoff", "--data-dir", dir]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain("name an email");
  });
});
