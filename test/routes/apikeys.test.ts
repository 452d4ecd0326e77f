/**
 * API-key management from a web session (spec §4.11, DESIGN §6): create, list, rename, revoke and rotate; keys manage
 * no keys.
 */
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, keyRow, sessionOf } from "../helpers/http.js";

describe("API keys from a session", () => {
  it("creates a key: 201 with the secret once, the record, and a key that works at once", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const res = await h.send("POST", "/api/v1/api-keys", {
      auth: token,
      body: { name: "ci", scopes: ["read"], workspace_id: h.a.ws2, expires: "30d" },
    });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(res.body).toMatchObject({
      name: "ci",
      scopes: ["read"],
      workspace_id: h.a.ws2,
      prefix: res.body.key.slice(0, 13),
      expires_at: new Date(h.clock.now() + 30 * 86_400_000).toISOString(),
      revoked_at: null,
      account_id: h.a.id,
    });
    expect(res.body.id).toMatch(/^key_/);
    expect(res.body).not.toHaveProperty("key_hash");
    const current = await h.send("GET", "/api/v1/api-keys/current", { auth: res.body.key });
    expect(current.body).toMatchObject({ id: res.body.id, name: "ci", scopes: ["read"], workspace_id: h.a.ws2 });
  });

  it("defaults to read+write and 90 days; never means no expiry", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const plain = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "plain" } });
    expect(plain.body.scopes).toEqual(["read", "write"]);
    expect(plain.body.expires_at).toBe(new Date(h.clock.now() + 90 * 86_400_000).toISOString());
    const forever = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "f", expires: "never" } });
    expect(forever.body.expires_at).toBeNull();
  });

  it("refuses the admin scope with 400 validation_failed", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    for (const scopes of [["admin"], ["read", "write", "admin"], ["owner"]]) {
      const res = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "x", scopes } });
      const details = expectErrorBody(res, 400, "validation_failed");
      expect((details.issues as { path: string }[])[0].path).toMatch(/^body\.scopes/);
    }
    expect(h.services.store.apiKeys.list(h.a.id)).toHaveLength(0);
  });

  it("lists keys without their secrets or hashes", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const secrets = [h.key(), h.key({ scopes: ["read"] })];
    const created = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "new" } });
    secrets.push(created.body.key);
    h.key({ account: h.b.id });
    const list = await h.send("GET", "/api/v1/api-keys", { auth: token });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(3);
    const text = JSON.stringify(list.body);
    for (const secret of secrets) expect(text).not.toContain(secret.slice(13));
    for (const row of h.services.store.apiKeys.list()) expect(text).not.toContain(row.key_hash);
    for (const item of list.body.data) {
      expect(item).not.toHaveProperty("key");
      expect(item).not.toHaveProperty("key_hash");
      expect(item.prefix).toMatch(/^svc_live_[0-9A-Za-z]{4}$/);
    }
  });

  it("renames a key (PUT) and revokes it (DELETE); the revoked key then gets 401", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const key = h.key();
    const id = keyRow(h, key).id;
    const renamed = await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: token, body: { name: "  renamed  " } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe("renamed");
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: key })).body.name).toBe("renamed");
    const revoked = await h.send("DELETE", `/api/v1/api-keys/${id}`, { auth: token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBe(new Date(h.clock.now()).toISOString());
    // The key's use just before (GET /api-keys/current, not yet flushed to the database) shows, as in the list.
    expect(renamed.body.last_used_at).toBeNull();
    expect(revoked.body.last_used_at).toBe(new Date(h.clock.now()).toISOString());
    const after = await h.send("GET", "/api/v1/api-keys/current", { auth: key });
    expectErrorBody(after, 401);
    expect(after.body.message).toMatch(/revoked/);
    // Revoking twice is harmless: 200 with the key as it is, its first revoked_at kept; an unknown id is 404.
    h.clock.advance(60_000);
    const again = await h.send("DELETE", `/api/v1/api-keys/${id}`, { auth: token });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const revocations = h.db.prepare("SELECT count(*) AS n FROM audit_log WHERE action = 'api_key.revoke'").get() as {
      n: number;
    };
    expect(revocations.n).toBe(1);
    // A revoked key is not renamed: 409 invalid_status, and its name stays.
    const late = await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: token, body: { name: "too late" } });
    expectErrorBody(late, 409, "invalid_status");
    expect(late.body.details).toMatchObject({ current_status: "revoked", required_status: "active" });
    const listed = await h.send("GET", "/api/v1/api-keys", { auth: token });
    const record = listed.body.data.find((k: { id: string }) => k.id === id);
    expect(record.name).toBe("renamed");
    // Its record read and written back (its own name) is no rename: 200, the key as it is.
    const back = await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: token, body: record });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toEqual(record);
    expectErrorBody(
      await h.send("DELETE", "/api/v1/api-keys/key_doesnotexist", { auth: token }),
      404,
      "api_key_not_found",
    );
    expectErrorBody(
      await h.send("PUT", "/api/v1/api-keys/key_doesnotexist", { auth: token, body: { name: "x" } }),
      404,
      "api_key_not_found",
    );
  });

  it("an expired key is not renamed: 409 invalid_status naming it expired, and its name stays", async () => {
    const h = makeHarness();
    const key = h.key({ expires: "30d" });
    const id = keyRow(h, key).id;
    h.clock.advance(30 * 86_400_000);
    // The session is signed in after the clock moved: a session does not last 30 days.
    const token = await sessionOf(h, "admin@a.test");
    expectErrorBody(await h.send("GET", "/api/v1/api-keys/current", { auth: key }), 401);
    const res = await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: token, body: { name: "later" } });
    expectErrorBody(res, 409, "invalid_status");
    expect(res.body.details).toMatchObject({ current_status: "expired", required_status: "active" });
    expect(res.body.message).toMatch(/expired/);
    expect(keyRow(h, key).name).not.toBe("later");
  });

  it("rotation: a replacement works while the old key stays valid until revoked", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const old = h.key();
    const replacement = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "replacement" } });
    expect((await h.send("GET", "/api/v1/users/me", { auth: old })).status).toBe(200);
    expect((await h.send("GET", "/api/v1/users/me", { auth: replacement.body.key })).status).toBe(200);
    await h.send("DELETE", `/api/v1/api-keys/${keyRow(h, old).id}`, { auth: token });
    expect((await h.send("GET", "/api/v1/users/me", { auth: old })).status).toBe(401);
    expect((await h.send("GET", "/api/v1/users/me", { auth: replacement.body.key })).status).toBe(200);
  });

  it("an API key can manage no keys: list, create, rename and revoke are 401", async () => {
    const h = makeHarness();
    const key = h.key();
    const id = keyRow(h, key).id;
    const attempts: [string, string, unknown][] = [
      ["GET", "/api/v1/api-keys", undefined],
      ["POST", "/api/v1/api-keys", { name: "x" }],
      ["PUT", `/api/v1/api-keys/${id}`, { name: "x" }],
      ["DELETE", `/api/v1/api-keys/${id}`, undefined],
    ];
    for (const [method, path, body] of attempts) expectErrorBody(await h.send(method, path, { auth: key, body }), 401);
    expect(keyRow(h, key)).toMatchObject({ name: "test key", revoked_at: null });
  });
});
