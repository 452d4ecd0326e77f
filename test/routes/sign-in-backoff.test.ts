/**
 * The backoff of failed sign-ins (domain/sign-in-backoff.ts, issue 31 L4): per email, known or not, and per client
 * address; a refusal is 429 sign_in_backoff with Retry-After; a burst against one account locks out neither the
 * other accounts nor the other addresses; the state is in the database, so a new server over it keeps it.
 */
import { describe, expect, it } from "vitest";
import { MAX_WAIT_MS, waitAfter } from "../../src/domain/sign-in-backoff.js";
import { createApp } from "../../src/http/app.js";
import { ROUTES } from "../../src/routes/index.js";
import { createServices } from "../../src/server/services.js";
import { type Harness, makeHarness, sendTo } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

const PASSWORD = "correct horse battery staple";
const X = "203.0.113.7";
const Y = "198.51.100.9";

function signIn(h: Harness, email: string, password: string, remoteAddress = X) {
  return h.send("POST", "/api/v1/auth/login", { body: { email, password }, remoteAddress });
}

/** Sends `n` wrong passwords for an email and returns their statuses. */
async function fail(h: Harness, email: string, n: number, remoteAddress = X): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await signIn(h, email, `wrong ${i}`, remoteAddress)).status);
  return statuses;
}

describe("sign-in backoff", () => {
  it("lets an email fail 5 times freely, then makes it wait 1 s, even with the right password", async () => {
    const h = makeHarness();
    expect(await fail(h, "member@a.test", 6)).toEqual([401, 401, 401, 401, 401, 401]);
    const refused = await signIn(h, "member@a.test", PASSWORD);
    expectErrorBody(refused, 429, "sign_in_backoff");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body.details).toMatchObject({ backoff: "email", retry_after_seconds: 1 });
    h.clock.advance(1000);
    expect((await signIn(h, "member@a.test", PASSWORD)).status).toBe(200);
    // The right password cleared the email's failures: five free ones again.
    expect(await fail(h, "member@a.test", 6)).toEqual([401, 401, 401, 401, 401, 401]);
  });

  it("doubles the wait with each further failure, up to 15 minutes", async () => {
    const h = makeHarness();
    await fail(h, "member@a.test", 6);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const refused = await signIn(h, "member@a.test", "wrong");
      waits.push(Number(refused.headers.get("retry-after")));
      h.clock.advance(waits[i] * 1000);
      expect((await signIn(h, "member@a.test", "wrong")).status).toBe(401);
    }
    expect(waits).toEqual([1, 2, 4, 8]);
    expect(waitAfter(5, 5)).toBe(0);
    expect(waitAfter(6, 5)).toBe(1000);
    expect(waitAfter(100, 5)).toBe(MAX_WAIT_MS);
  });

  it("answers an unknown email exactly as a known one, so that nobody learns which exist", async () => {
    const h = makeHarness();
    const known = await fail(h, "member@a.test", 7);
    const unknown = await fail(h, "nobody@a.test", 7);
    expect(unknown).toEqual(known);
    expect(known.at(-1)).toBe(429);
    const a = await signIn(h, "member@a.test", "x");
    const b = await signIn(h, "nobody@a.test", "x");
    expect({ ...b.body, trace_id: undefined }).toEqual({ ...a.body, trace_id: undefined });
  });

  it("locks neither other accounts nor other addresses out with a burst against one account", async () => {
    const h = makeHarness();
    const burst = await fail(h, "member@a.test", 15);
    expect(burst.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect((await signIn(h, "admin@a.test", PASSWORD, X)).status).toBe(200);
    expect((await signIn(h, "admin@b.test", PASSWORD, Y)).status).toBe(200);
    expect(await fail(h, "admin@b.test", 1, Y)).toEqual([401]);
  });

  it("backs an address off after 20 failures across emails, and only that address", async () => {
    const h = makeHarness();
    for (let i = 0; i < 21; i++) expect((await signIn(h, `guess${i}@a.test`, "wrong")).status).toBe(401);
    const refused = await signIn(h, "admin@a.test", PASSWORD, X);
    expectErrorBody(refused, 429, "sign_in_backoff");
    expect(refused.body.details.backoff).toBe("address");
    expect((await signIn(h, "admin@a.test", PASSWORD, Y)).status).toBe(200);
    h.clock.advance(1000);
    expect((await signIn(h, "admin@a.test", PASSWORD, X)).status).toBe(200);
  });

  it("does not let a valid sign-in from an address wipe that address's failures", async () => {
    const h = makeHarness();
    for (let i = 0; i < 20; i++) await signIn(h, `guess${i}@a.test`, "wrong");
    expect((await signIn(h, "admin@a.test", PASSWORD)).status).toBe(200);
    expect((await signIn(h, "guess-next@a.test", "wrong")).status).toBe(401);
    expectErrorBody(await signIn(h, "guess-last@a.test", "wrong"), 429, "sign_in_backoff");
  });

  it("counts parallel guesses one by one: they are not all let through by one check", async () => {
    const h = makeHarness();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn(h, "member@a.test", `parallel ${i}`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  });

  it("lets the owner sign in from their own address while another address is backed off for their email", async () => {
    const h = makeHarness();
    await fail(h, "member@a.test", 6, X);
    expectErrorBody(await signIn(h, "member@a.test", PASSWORD, X), 429, "sign_in_backoff");
    // One wrong attempt from each further address, round after round, does not keep the owner out.
    for (let round = 0; round < 8; round++) {
      h.clock.advance(15 * 60_000);
      await fail(h, "member@a.test", 1, `198.51.100.${round + 10}`);
    }
    expect((await signIn(h, "member@a.test", PASSWORD, Y)).status).toBe(200);
  });

  it("slows an email's guesses spread over many addresses, for a minute at most", async () => {
    const h = makeHarness();
    for (let i = 0; i < 50; i++) await fail(h, "member@a.test", 1, `198.51.${Math.floor(i / 4)}.${i % 4}`);
    expect((await signIn(h, "member@a.test", "wrong", "192.0.2.200")).status).toBe(401);
    for (let i = 0; i < 20; i++) await signIn(h, "member@a.test", "wrong", "192.0.2.201");
    const refused = await signIn(h, "member@a.test", PASSWORD, Y);
    expectErrorBody(refused, 429, "sign_in_backoff");
    expect(refused.body.details.backoff).toBe("email");
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    h.clock.advance(60_000);
    expect((await signIn(h, "member@a.test", PASSWORD, Y)).status).toBe(200);
  });

  it("keeps the backoff in the database: a new server over it still refuses", async () => {
    const h = makeHarness();
    await fail(h, "member@a.test", 6);
    const restarted = createApp(createServices({ db: h.db, clock: h.clock, logger: h.logger }), ROUTES);
    const res = await sendTo(restarted, "POST", "/api/v1/auth/login", {
      body: { email: "Member@A.test", password: PASSWORD },
      remoteAddress: X,
    });
    expectErrorBody(res, 429, "sign_in_backoff");
  });
});
