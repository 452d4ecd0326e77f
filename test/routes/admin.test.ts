/** /admin/* from a web session (spec §4.11, DESIGN §6): admins only; accounts, plans, users and the audit log. */
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/routes/index.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, expectRateHeaders, label, realPath, sessionOf } from "../helpers/http.js";

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
