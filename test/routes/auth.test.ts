/** Signing in with an email and a password (spec §4.11, DESIGN §6): the session it gives, and the refusals. */
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, expectRateHeaders, sessionOf } from "../helpers/http.js";

const PASSWORD = "correct horse battery staple";

describe("login", () => {
  it("signs in with email and password: token, expires_at and the user", async () => {
    const h = makeHarness();
    const res = await h.send("POST", "/api/v1/auth/login", { body: { email: " member@a.test ", password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.expires_at).toBe(new Date(h.clock.now() + 12 * 3600_000).toISOString());
    expect(res.body.user).toMatchObject({ email: "member@a.test", role: "member", account_id: h.a.id });
    expect(res.body.user).not.toHaveProperty("password_hash");
    expect((await h.send("GET", "/api/v1/users/me", { auth: res.body.token })).body.user.email).toBe("member@a.test");
  });

  it("keeps the answers carrying a secret (a session token, a new key) out of every cache", async () => {
    const h = makeHarness();
    const login = await h.send("POST", "/api/v1/auth/login", { body: { email: "admin@a.test", password: PASSWORD } });
    expect(login.headers.get("cache-control")).toBe("no-store");
    const key = await h.send("POST", "/api/v1/api-keys", { auth: login.body.token, body: { name: "ci" } });
    expect(key.status).toBe(201);
    expect(key.headers.get("cache-control")).toBe("no-store");
    const listed = await h.send("GET", "/api/v1/api-keys", { auth: login.body.token });
    expect(listed.headers.get("cache-control")).toBeNull();
    expect(listed.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("refuses an API key in Authorization with 401, even with a right password", async () => {
    const h = makeHarness();
    const res = await h.send("POST", "/api/v1/auth/login", {
      auth: h.key(),
      body: { email: "member@a.test", password: PASSWORD },
    });
    expectErrorBody(res, 401);
    expectRateHeaders(res);
    expect(res.body).not.toHaveProperty("token");
  });

  it("ignores a session token in Authorization (a public route) and signs in", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const res = await h.send("POST", "/api/v1/auth/login", {
      auth: token,
      body: { email: "member@a.test", password: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe("member@a.test");
  });

  it("answers the same 401 for a wrong password and an unknown email", async () => {
    const h = makeHarness();
    const wrong = await h.send("POST", "/api/v1/auth/login", { body: { email: "member@a.test", password: "nope" } });
    const unknown = await h.send("POST", "/api/v1/auth/login", { body: { email: "who@a.test", password: "nope" } });
    expectErrorBody(wrong, 401);
    expectErrorBody(unknown, 401);
    expect(wrong.body.message).toBe(unknown.body.message);
  });
});
