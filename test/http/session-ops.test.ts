/**
 * The operations of the web session (spec §4.11, DESIGN §6): API-key management, workspace management,
 * settings and learning preferences, billing, /admin/*, login, and the account-level entitlements read.
 */
import { describe, expect, it } from "vitest";
import { setPlan } from "../../src/domain/admin.js";
import { ROUTES } from "../../src/routes/index.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, expectRateHeaders, keyRow, label, realPath, sessionOf, userIn } from "../helpers/http.js";

const PASSWORD = "correct horse battery staple";

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
    const token = await sessionOf(h, "member@a.test");
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
    const revocations = h.services.store.db
      .prepare("SELECT count(*) AS n FROM audit_log WHERE action = 'api_key.revoke'")
      .get() as { n: number };
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
    const token = await sessionOf(h, "member@a.test");
    expectErrorBody(await h.send("GET", "/api/v1/api-keys/current", { auth: key }), 401);
    const res = await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: token, body: { name: "later" } });
    expectErrorBody(res, 409, "invalid_status");
    expect(res.body.details).toMatchObject({ current_status: "expired", required_status: "active" });
    expect(res.body.message).toMatch(/expired/);
    expect(keyRow(h, key).name).not.toBe("later");
  });

  it("rotation: a replacement works while the old key stays valid until revoked", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
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

describe("workspaces from a session", () => {
  it("creates, renames, makes default and deletes a workspace", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const created = await h.send("POST", "/api/v1/workspaces", { auth: token, body: { name: " Marketing " } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Marketing",
      is_default: false,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(created.body.id).toMatch(/^ws_/);
    const id = created.body.id as string;
    const renamed = await h.send("PUT", `/api/v1/workspaces/${id}`, { auth: token, body: { name: "Brand" } });
    expect(renamed.body).toMatchObject({ id, name: "Brand", is_default: false });
    const made = await h.send("PUT", `/api/v1/workspaces/${id}`, { auth: token, body: { is_default: true } });
    expect(made.body.is_default).toBe(true);
    expect((await h.send("GET", `/api/v1/workspaces/${h.a.ws1}`, { auth: token })).body.is_default).toBe(false);
    // The default cannot go while others exist.
    expectErrorBody(await h.send("DELETE", `/api/v1/workspaces/${id}`, { auth: token }), 409, "workspace_not_empty");
    const deleted = await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: token });
    expect(deleted.body).toEqual({ id: h.a.ws2, deleted: true });
    expectErrorBody(await h.send("GET", `/api/v1/workspaces/${h.a.ws2}`, { auth: token }), 404, "workspace_not_found");
  });

  it("takes a workspace read and written back: is_default false changes nothing, but the default keeps it (409)", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const second = (await h.send("GET", `/api/v1/workspaces/${h.a.ws2}`, { auth: token })).body;
    expect(second.is_default).toBe(false);
    const renamed = await h.send("PUT", `/api/v1/workspaces/${h.a.ws2}`, {
      auth: token,
      body: { ...second, name: "Second renamed" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toEqual({ ...second, name: "Second renamed" });
    const first = (await h.send("GET", `/api/v1/workspaces/${h.a.ws1}`, { auth: token })).body;
    expect(first.is_default).toBe(true);
    expect((await h.send("PUT", `/api/v1/workspaces/${h.a.ws1}`, { auth: token, body: first })).body).toEqual(first);
    const unset = await h.send("PUT", `/api/v1/workspaces/${h.a.ws1}`, {
      auth: token,
      body: { name: "Not kept", is_default: false },
    });
    expect(expectErrorBody(unset, 409, "invalid_status")).toMatchObject({
      current_status: "default",
      required_status: "not_default",
      workspace_id: h.a.ws1,
    });
    expect(unset.body.message).toContain("make another workspace the default");
    // Nothing of the refused body was applied.
    expect((await h.send("GET", `/api/v1/workspaces/${h.a.ws1}`, { auth: token })).body).toEqual(first);
  });

  it("deleting a workspace takes the keys bound to it", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const bound = h.key({ workspaceId: h.a.ws2 });
    const unbound = h.key();
    await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: token });
    expectErrorBody(await h.send("GET", "/api/v1/users/me", { auth: bound }), 401);
    expect((await h.send("GET", "/api/v1/users/me", { auth: unbound })).status).toBe(200);
  });

  it("API keys cannot create, update or delete workspaces (401), whatever their scopes", async () => {
    const h = makeHarness();
    for (const key of [h.key(), h.key({ workspaceId: h.a.ws2 })]) {
      expectErrorBody(await h.send("POST", "/api/v1/workspaces", { auth: key, body: { name: "x" } }), 401);
      expectErrorBody(await h.send("PUT", `/api/v1/workspaces/${h.a.ws2}`, { auth: key, body: { name: "x" } }), 401);
      expectErrorBody(await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: key }), 401);
    }
    expect(
      h.services.store.workspaces
        .listByAccount(h.a.id)
        .map((w) => w.name)
        .sort(),
    ).toEqual(["Default", "Second"]);
  });
});

describe("settings and learning preferences", () => {
  it("me/settings: GET and PUT for a session, merged; a key reads (no user: none) but gets 401 on PUT", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    expect((await h.send("GET", "/api/v1/me/settings", { auth: token })).body).toEqual({ updated_at: null });
    const put = await h.send("PUT", "/api/v1/me/settings", {
      auth: token,
      body: { display_name: "M", timezone: "Europe/Paris" },
    });
    expect(put.body).toEqual({
      display_name: "M",
      timezone: "Europe/Paris",
      updated_at: new Date(h.clock.now()).toISOString(),
    });
    h.clock.advance(1000);
    await h.send("PUT", "/api/v1/me/settings", { auth: token, body: { locale: "fr-FR", email_notifications: false } });
    const got = await h.send("GET", "/api/v1/me/settings", { auth: token });
    expect(got.body).toEqual({
      display_name: "M",
      timezone: "Europe/Paris",
      locale: "fr-FR",
      email_notifications: false,
      updated_at: new Date(h.clock.now()).toISOString(),
    });
    // Settings are the user's own.
    const admin = await sessionOf(h, "admin@a.test");
    expect((await h.send("GET", "/api/v1/me/settings", { auth: admin })).body).toEqual({ updated_at: null });
    const key = h.key();
    // DESIGN §6 reserves only PUT to sessions; a key (read scope is enough) acts for no user, so it has no settings.
    const keyRead = await h.send("GET", "/api/v1/me/settings", { auth: h.key({ scopes: ["read"] }) });
    expect(keyRead.status).toBe(200);
    expect(keyRead.body).toEqual({ updated_at: null });
    expect(keyRead.headers.get("x-api-stability")).toBe("beta");
    expectErrorBody(await h.send("PUT", "/api/v1/me/settings", { auth: key, body: { locale: "de" } }), 401);
    expect((await h.send("GET", "/api/v1/me/settings", { auth: token })).body.locale).toBe("fr-FR");
  });

  it("learning-preferences: GET with a key or a session; PUT with a session only", async () => {
    const h = makeHarness();
    const key = h.key({ scopes: ["read"] });
    const writeKey = h.key();
    const token = await sessionOf(h, "member@a.test");
    expect((await h.send("GET", "/api/v1/learning-preferences", { auth: key })).body).toEqual({
      enabled: true,
      apply_to_generation: true,
      updated_at: null,
    });
    expectErrorBody(
      await h.send("PUT", "/api/v1/learning-preferences", { auth: writeKey, body: { enabled: false } }),
      401,
    );
    const put = await h.send("PUT", "/api/v1/learning-preferences", { auth: token, body: { enabled: false } });
    expect(put.body).toEqual({
      enabled: false,
      apply_to_generation: true,
      updated_at: new Date(h.clock.now()).toISOString(),
    });
    expect((await h.send("GET", "/api/v1/learning-preferences", { auth: key })).body.enabled).toBe(false);
    // Account-wide: another user of the account sees the same.
    const admin = await sessionOf(h, "admin@a.test");
    expect((await h.send("GET", "/api/v1/learning-preferences", { auth: admin })).body.enabled).toBe(false);
    expect(
      (await h.send("GET", "/api/v1/learning-preferences", { auth: h.key({ account: h.b.id }) })).body.enabled,
    ).toBe(true);
  });
});

describe("settings read and written back", () => {
  it("take the record's own updated_at, ignored, and still refuse unknown fields", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    await h.send("PUT", "/api/v1/me/settings", { auth: token, body: { display_name: "M", locale: "fr-FR" } });
    const settings = (await h.send("GET", "/api/v1/me/settings", { auth: token })).body;
    h.clock.advance(1000);
    const back = await h.send("PUT", "/api/v1/me/settings", { auth: token, body: { ...settings, locale: "de-DE" } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    const now = new Date(h.clock.now()).toISOString();
    expect(back.body).toEqual({ display_name: "M", locale: "de-DE", updated_at: now });
    // Whatever updated_at says (an older read, null), the server sets it; it is not stored as a setting.
    const stale = await h.send("PUT", "/api/v1/me/settings", { auth: token, body: { updated_at: null } });
    expect(stale.body).toEqual({ display_name: "M", locale: "de-DE", updated_at: now });
    expect((await h.send("GET", "/api/v1/me/settings", { auth: token })).body).toEqual(stale.body);
    const misspelt = await h.send("PUT", "/api/v1/me/settings", { auth: token, body: { ...settings, local: "x" } });
    expect(expectErrorBody(misspelt, 400, "validation_failed").issues).toEqual([
      expect.objectContaining({ path: "body.local" }),
    ]);

    const prefs = (await h.send("GET", "/api/v1/learning-preferences", { auth: token })).body;
    expect(prefs.updated_at).toBeNull();
    const off = await h.send("PUT", "/api/v1/learning-preferences", {
      auth: token,
      body: { ...prefs, enabled: false },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toEqual({ enabled: false, apply_to_generation: true, updated_at: now });
    h.clock.advance(1000);
    const again = await h.send("PUT", "/api/v1/learning-preferences", { auth: token, body: off.body });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ enabled: false, apply_to_generation: true });
    const unknown = await h.send("PUT", "/api/v1/learning-preferences", { auth: token, body: { ...off.body, on: 1 } });
    expectErrorBody(unknown, 400, "validation_failed");
  });
});

describe("billing", () => {
  const billing = ROUTES.filter((r) => r.path.startsWith("/api/v1/billing/"));

  it("has the four billing mutations of spec §4.11", () => {
    expect(billing.map((r) => r.path.split("/").at(-1)).sort()).toEqual([
      "cancel-subscription",
      "checkout-session",
      "portal-session",
      "refund-request",
    ]);
  });

  it.each(billing.map((def) => ({ name: label(def), def })))(
    "$name: 409 billing_managed_locally for a session (any plan), 401 for a key",
    async ({ def }) => {
      const h = makeHarness();
      const starter = h.accountWithPlan("starter");
      for (const token of [
        await sessionOf(h, "member@a.test"),
        await userIn(h, starter.id, "s@starter.test", "member"),
      ]) {
        for (const body of [undefined, {}, { plan: "agency" }]) {
          const res = await h.send(def.method, def.path, { auth: token, body });
          expectErrorBody(res, 409, "billing_managed_locally");
        }
      }
      expectErrorBody(await h.send(def.method, def.path, { auth: h.key(), body: {} }), 401);
      expect(h.services.store.accounts.byId(h.a.id)?.plan).toBe("business");
    },
  );
});

describe("/admin/*", () => {
  const adminRoutes = ROUTES.filter((r) => r.access === "admin");

  it.each(adminRoutes.map((def) => ({ name: label(def), def })))(
    "$name: 403 admin_required for a member session, 401 for a key",
    async ({ def }) => {
      const h = makeHarness();
      const member = await sessionOf(h, "member@a.test");
      const res = await h.send(def.method, realPath(h, def), { auth: member, body: def.body ? {} : undefined });
      const details = expectErrorBody(res, 403, "admin_required");
      expect(details.required_role).toBe("admin");
      expectErrorBody(
        await h.send(def.method, realPath(h, def), { auth: h.key(), body: def.body ? {} : undefined }),
        401,
      );
    },
  );

  it("lists and creates accounts; a new account has its default workspace", async () => {
    const h = makeHarness();
    const admin = await sessionOf(h, "admin@a.test");
    const list = await h.send("GET", "/api/v1/admin/accounts", { auth: admin });
    expect(list.body.data.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(["Account A", "Account B"]),
    );
    const created = await h.send("POST", "/api/v1/admin/accounts", {
      auth: admin,
      body: { name: "Account C", plan: "agency" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Account C",
      plan: "agency",
      rate_per_minute: null,
      rate_per_hour: null,
    });
    const workspaces = h.services.store.workspaces.listByAccount(created.body.id);
    expect(workspaces).toHaveLength(1);
    expect(workspaces[0].is_default).toBe(1);
    const defaulted = await h.send("POST", "/api/v1/admin/accounts", { auth: admin, body: { name: "Account D" } });
    expect(defaulted.body.plan).toBe("business");
  });

  it("changes a plan and the rate-limit override, and nulls return to the plan's", async () => {
    const h = makeHarness();
    const admin = await sessionOf(h, "admin@a.test");
    const key = h.key({ account: h.b.id });
    const entitlements = async () => (await h.send("GET", "/api/v1/users/me/entitlements", { auth: key })).body;

    const limits = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, {
      auth: admin,
      body: { rate_per_minute: 10, rate_per_hour: 50 },
    });
    expect(limits.body).toMatchObject({ plan: "agency", rate_per_minute: 10, rate_per_hour: 50 });
    expect((await entitlements()).rate_limits).toEqual({ per_minute: 10, per_hour: 50, overridden: true });
    expect(expectRateHeaders(await h.send("GET", "/api/v1/users/me", { auth: key })).limit).toBe(10);

    const partial = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, {
      auth: admin,
      body: { rate_per_minute: null },
    });
    expect(partial.body).toMatchObject({ rate_per_minute: null, rate_per_hour: 50 });
    expect((await entitlements()).rate_limits).toEqual({ per_minute: 300, per_hour: 50, overridden: true });

    await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, { auth: admin, body: { rate_per_hour: null } });
    expect((await entitlements()).rate_limits).toEqual({ per_minute: 300, per_hour: 5000, overridden: false });

    const plan = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, { auth: admin, body: { plan: "business" } });
    expect(plan.body.plan).toBe("business");
    expect(await entitlements()).toMatchObject({ plan: "business", rate_limits: { per_minute: 100, per_hour: 1000 } });
    await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, { auth: admin, body: { plan: "starter" } });
    expectErrorBody(await h.send("GET", "/api/v1/users/me", { auth: key }), 403, "plan_upgrade_required");
    expectErrorBody(
      await h.send("PUT", "/api/v1/admin/accounts/999999", { auth: admin, body: { plan: "pro" } }),
      404,
      "account_not_found",
    );
  });

  it("creates users: a generated password is shown once and signs in; duplicates and unknown accounts are refused", async () => {
    const h = makeHarness();
    const admin = await sessionOf(h, "admin@a.test");
    const created = await h.send("POST", "/api/v1/admin/users", {
      auth: admin,
      body: { account_id: h.b.id, email: "new@b.test" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ account_id: h.b.id, email: "new@b.test", role: "member" });
    expect(created.body.password).toBeTypeOf("string");
    expect(created.body).not.toHaveProperty("password_hash");
    const login = await h.send("POST", "/api/v1/auth/login", {
      body: { email: "new@b.test", password: created.body.password },
    });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ email: "new@b.test", account_id: h.b.id });

    const chosen = await h.send("POST", "/api/v1/admin/users", {
      auth: admin,
      body: { account_id: h.a.id, email: "chosen@a.test", password: "a long enough password", role: "admin" },
    });
    expect(chosen.body).not.toHaveProperty("password");
    expect(chosen.body.role).toBe("admin");

    const users = await h.send("GET", "/api/v1/admin/users", { auth: admin });
    expect(users.body.data.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining(["admin@a.test", "member@a.test", "new@b.test", "chosen@a.test"]),
    );
    for (const u of users.body.data) expect(u).not.toHaveProperty("password_hash");

    const duplicate = await h.send("POST", "/api/v1/admin/users", {
      auth: admin,
      body: { account_id: h.a.id, email: "member@a.test" },
    });
    const details = expectErrorBody(duplicate, 400, "validation_failed");
    expect(details.issues).toEqual([{ path: "body.email", message: expect.any(String) }]);
    expectErrorBody(
      await h.send("POST", "/api/v1/admin/users", { auth: admin, body: { account_id: 999999, email: "x@x.test" } }),
      404,
      "account_not_found",
    );
  });

  it("the audit log shows key, workspace and plan changes, newest first, with their actor", async () => {
    const h = makeHarness();
    const admin = await sessionOf(h, "admin@a.test");
    const adminId = h.services.store.users.byEmail("admin@a.test")!.id;
    const key = await h.send("POST", "/api/v1/api-keys", { auth: admin, body: { name: "audited" } });
    await h.send("PUT", `/api/v1/api-keys/${key.body.id}`, { auth: admin, body: { name: "audited2" } });
    await h.send("DELETE", `/api/v1/api-keys/${key.body.id}`, { auth: admin });
    const ws = await h.send("POST", "/api/v1/workspaces", { auth: admin, body: { name: "Audited" } });
    await h.send("PUT", `/api/v1/workspaces/${ws.body.id}`, { auth: admin, body: { name: "Audited2" } });
    await h.send("DELETE", `/api/v1/workspaces/${ws.body.id}`, { auth: admin });
    await h.send("PUT", `/api/v1/admin/accounts/${h.a.id}`, {
      auth: admin,
      body: { plan: "agency", rate_per_minute: 700 },
    });
    await h.send("PUT", "/api/v1/learning-preferences", { auth: admin, body: { enabled: false } });

    const log = await h.send("GET", "/api/v1/admin/audit-log?limit=100", { auth: admin });
    expect(log.status).toBe(200);
    const mine = log.body.data.filter((e: { actor: string }) => e.actor === `user:${adminId}`);
    expect(mine.map((e: { action: string }) => e.action)).toEqual([
      "learning_preferences.update",
      "account.set_limits",
      "account.set_plan",
      "workspace.delete",
      "workspace.update",
      "workspace.create",
      "api_key.revoke",
      "api_key.rename",
      "api_key.create",
    ]);
    const plan = mine.find((e: { action: string }) => e.action === "account.set_plan");
    expect(plan.details).toEqual({ from: "business", to: "agency" });
    const created = mine.find((e: { action: string }) => e.action === "api_key.create");
    expect(created.target).toBe(key.body.id);
    expect(JSON.stringify(log.body)).not.toContain(key.body.key);
    // Pages with a cursor, and reads another account's log on request.
    const first = await h.send("GET", "/api/v1/admin/audit-log?limit=2", { auth: admin });
    expect(first.body.has_more).toBe(true);
    const second = await h.send("GET", `/api/v1/admin/audit-log?limit=2&cursor=${first.body.next_cursor}`, {
      auth: admin,
    });
    expect(second.body.data[0].id).toBeLessThan(first.body.data[1].id);
    const other = await h.send("GET", `/api/v1/admin/audit-log?account_id=${h.b.id}`, { auth: admin });
    expect(other.body.data.every((e: { account_id: number }) => e.account_id === h.b.id)).toBe(true);
  });
});

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

describe("GET /users/me/entitlements", () => {
  const cases = [
    { plan: "business", per_minute: 100, per_hour: 1000, quota: 500, api_access: true },
    { plan: "agency", per_minute: 300, per_hour: 5000, quota: 2000, api_access: true },
  ] as const;

  it("starter: a session reads the limits it is held to (business's) and its quota; a key is refused", async () => {
    const h = makeHarness();
    setPlan(h.services.store, "test", h.a.id, "starter");
    const session = await sessionOf(h, "member@a.test");
    const res = await h.send("GET", "/api/v1/users/me/entitlements", { auth: session });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: "starter",
      api_access: false,
      rate_limits: { per_minute: 100, per_hour: 1000, overridden: false },
      analysis_quota: { limit: 0, used: 0, remaining: 0 },
    });
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    const quota = await h.send("GET", "/api/v1/analysis/quota", { auth: session });
    expect(quota.status).toBe(200);
    expect(quota.body).toEqual(res.body.analysis_quota);
    expectErrorBody(await h.send("GET", "/api/v1/analysis/quota", { auth: h.key() }), 403, "plan_upgrade_required");
  });

  it.each(cases)("$plan: plan, api_access, rate_limits and analysis_quota", async (c) => {
    const h = makeHarness();
    const key = h.key({ account: c.plan === "business" ? h.a.id : h.b.id });
    const res = await h.send("GET", "/api/v1/users/me/entitlements", { auth: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: c.plan,
      api_access: c.api_access,
      rate_limits: { per_minute: c.per_minute, per_hour: c.per_hour, overridden: false },
      analysis_quota: {
        period_start: "2026-01-01T00:00:00.000Z",
        period_end: "2026-02-01T00:00:00.000Z",
        limit: c.quota,
        used: 0,
        remaining: c.quota,
      },
    });
    const quota = await h.send("GET", "/api/v1/analysis/quota", { auth: key });
    expect(quota.body).toEqual(res.body.analysis_quota);
    expect(quota.headers.get("x-api-stability")).toBe("beta");
  });

  it("ignores binding: a key bound to ws1 asking with ?workspace_id=ws2 gets 200", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const res = await h.send("GET", `/api/v1/users/me/entitlements?workspace_id=${h.a.ws2}`, { auth: key });
    expect(res.status).toBe(200);
    expect(res.body.plan).toBe("business");
  });

  it("a starter account's session reads its entitlements (no API access), its keys do not", async () => {
    const h = makeHarness();
    const starter = h.accountWithPlan("starter");
    const token = await userIn(h, starter.id, "owner@starter.test", "member");
    const res = await h.send("GET", "/api/v1/users/me/entitlements", { auth: token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ plan: "starter", api_access: false });
    expectErrorBody(
      await h.send("GET", "/api/v1/users/me/entitlements", { auth: starter.key }),
      403,
      "plan_upgrade_required",
    );
  });
});
