import { describe, expect, it } from "vitest";
import { hashKey } from "../../src/domain/apikeys.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("authentication", () => {
  it("accepts a key and introspects it with the five spec fields", async () => {
    const h = makeHarness();
    const key = h.key({ scopes: ["read"], workspaceId: h.a.ws2, expires: "30d" });
    const res = await h.send("GET", "/api/v1/api-keys/current", { auth: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "test key", scopes: ["read"], workspace_id: h.a.ws2 });
    expect(res.body.expires_at).toBe(new Date(h.clock.now() + 30 * 86_400_000).toISOString());
    expect(res.body.last_used_at).toBe(new Date(h.clock.now()).toISOString());
    expect(res.headers.get("x-api-stability")).toBe("beta");
  });

  it("answers a web session's introspection with 404 api_key_not_found, not a record made up for it", async () => {
    const h = makeHarness();
    const session = await h.login("member@a.test");
    const res = await h.send("GET", "/api/v1/api-keys/current", { auth: session });
    expectErrorBody(res, 404, "api_key_not_found");
    expect(res.body.message).toMatch(/web session.*\/api\/v1\/users\/me/);
    // The endpoint that does describe a session's caller.
    expect((await h.send("GET", "/api/v1/users/me", { auth: session })).status).toBe(200);
  });

  it("answers 401 with WWW-Authenticate for missing, malformed, unknown, revoked and expired keys", async () => {
    const h = makeHarness();
    const expiring = h.key({ expires: "30d" });
    const revoked = h.key();
    const id = h.services.store.apiKeys.byHash(hashKey(revoked))!.id;
    h.services.store.apiKeys.revoke(id, new Date().toISOString());
    h.clock.advance(31 * 86_400_000);
    const cases: (string | undefined)[] = [undefined, "", "svc_live_doesnotexist", revoked, expiring];
    for (const auth of cases) {
      const res = await h.send("GET", "/api/v1/api-keys/current", {
        auth,
        headers: auth === "" ? { authorization: "Basic abc" } : {},
      });
      expect(res.status, String(auth)).toBe(401);
      expect(res.body.error).toBe("UNAUTHORIZED");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
    }
  });

  it("refuses a key that authenticated before once it is revoked or expired", async () => {
    // What the pipeline remembers of a key it has seen (its stored form, its expiry instant) must not outlive it.
    const h = makeHarness();
    const expiring = h.key({ expires: "30d" });
    const revoked = h.key();
    for (const auth of [expiring, revoked])
      expect((await h.send("GET", "/api/v1/api-keys/current", { auth })).status, auth).toBe(200);
    const id = h.services.store.apiKeys.byHash(hashKey(revoked))!.id;
    h.services.store.apiKeys.revoke(id, new Date(h.clock.now()).toISOString());
    const refusal = await h.send("GET", "/api/v1/api-keys/current", { auth: revoked });
    expect(refusal.status).toBe(401);
    expect(refusal.body.message).toMatch(/revoked/);
    h.clock.advance(30 * 86_400_000 - 1000);
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: expiring })).status).toBe(200);
    h.clock.advance(1000);
    const expired = await h.send("GET", "/api/v1/api-keys/current", { auth: expiring });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
  });

  it("treats a key stored without scopes as read+write", async () => {
    const h = makeHarness();
    const key = h.key();
    h.db.prepare("UPDATE api_keys SET scopes = NULL").run();
    const res = await h.send("GET", "/api/v1/api-keys/current", { auth: key });
    expect(res.body.scopes).toEqual(["read", "write"]);
  });

  it("accepts a web-session token on public endpoints (dual authentication) and refuses it after logout", async () => {
    const h = makeHarness();
    const token = await h.login("member@a.test");
    const me = await h.send("GET", "/api/v1/users/me", { auth: token });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe("member@a.test");
    // The session's 12 h; GET /api-keys/current, which had made up a key record with it, is 404 for a session.
    expect(me.body).toMatchObject({
      kind: "session",
      api_key_id: null,
      session_expires_at: new Date(h.clock.now() + 12 * 3600_000).toISOString(),
    });
    const ws = await h.send("GET", "/api/v1/workspaces", { auth: token });
    expect(ws.body.data).toHaveLength(2);
    expect((await h.send("POST", "/api/v1/auth/logout", { auth: token })).status).toBe(200);
    expect((await h.send("GET", "/api/v1/users/me", { auth: token })).status).toBe(401);
  });

  it("refuses a wrong password and an expired session", async () => {
    const h = makeHarness();
    const wrong = await h.send("POST", "/api/v1/auth/login", { body: { email: "member@a.test", password: "nope" } });
    expect(wrong.status).toBe(401);
    const unknown = await h.send("POST", "/api/v1/auth/login", { body: { email: "who@a.test", password: "nope" } });
    expect(unknown.status).toBe(401);
    const token = await h.login("member@a.test");
    h.clock.advance(13 * 3600_000);
    expect((await h.send("GET", "/api/v1/users/me", { auth: token })).status).toBe(401);
  });

  it("keeps last_used_at in memory and writes it only on flush", async () => {
    const h = makeHarness();
    const key = h.key();
    const me = await h.send("GET", "/api/v1/users/me", { auth: key });
    expect(me.body).toMatchObject({ kind: "api_key", session_expires_at: null });
    const row = () => h.services.store.apiKeys.byHash(hashKey(key))!;
    expect(row().last_used_at).toBeNull();
    h.services.keyUsage.flush();
    expect(row().last_used_at).toBe(new Date(h.clock.now()).toISOString());
  });
});
