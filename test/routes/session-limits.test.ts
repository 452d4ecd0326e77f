/**
 * Web sessions are never limited below their plan's limits (domain/plans.ts sessionRateLimits, issue 31): an admin
 * who sets their own account's limits to 1 an hour keeps a session that can undo it, while the keys get the 1.
 */
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("an account's own rate limits and its web sessions", () => {
  it("lets an admin set their own account to 1 an hour and undo it from the same session", async () => {
    const h = makeHarness();
    const admin = await h.login("admin@a.test");
    const key = h.key();
    const set = await h.send("PUT", `/api/v1/admin/accounts/${h.a.id}`, {
      auth: admin,
      body: { rate_per_minute: 1, rate_per_hour: 1 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ rate_per_minute: 1, rate_per_hour: 1 });
    // The key has the account's 1 an hour.
    expect((await h.send("GET", "/api/v1/contents", { auth: key })).status).toBe(200);
    expectErrorBody(await h.send("GET", "/api/v1/contents", { auth: key }), 429, "rate_limit_exceeded");
    // The session keeps the business plan's 100 a minute.
    for (let i = 0; i < 5; i++) {
      const res = await h.send("GET", "/api/v1/users/me", { auth: admin });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    }
    const undo = await h.send("PUT", `/api/v1/admin/accounts/${h.a.id}`, {
      auth: admin,
      body: { rate_per_minute: null, rate_per_hour: null },
    });
    expect(undo.status).toBe(200);
    h.clock.advance(60_000);
    expect((await h.send("GET", "/api/v1/contents", { auth: key })).status).toBe(200);
  });

  it("raises the sessions with the account's limits when they are above the plan's", async () => {
    const h = makeHarness();
    const admin = await h.login("admin@a.test");
    await h.send("PUT", `/api/v1/admin/accounts/${h.a.id}`, { auth: admin, body: { rate_per_minute: 250 } });
    const res = await h.send("GET", "/api/v1/users/me", { auth: admin });
    expect(res.headers.get("x-ratelimit-limit")).toBe("250");
  });
});
