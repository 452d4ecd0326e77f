/**
 * Who manages which key (DESIGN §10, docs/roles.md) and the account's cap on active keys (issue 31 point 3): a member
 * lists every key of the account and changes only those it issued; admins change all; a key of the command line is
 * the account's. Creating past the cap is 409 api_key_limit_reached, counted atomically.
 */
import { describe, expect, it } from "vitest";
import { rotateKey } from "../../src/domain/admin.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, keyRow, sessionOf, userIn } from "../helpers/http.js";

describe("roles on API keys", () => {
  it("a member lists every key of the account, with who issued each", async () => {
    const h = makeHarness();
    const member = await sessionOf(h, "member@a.test");
    const admin = await sessionOf(h, "admin@a.test");
    const cli = keyRow(h, h.key());
    const mine = await h.send("POST", "/api/v1/api-keys", { auth: member, body: { name: "mine" } });
    const theirs = await h.send("POST", "/api/v1/api-keys", { auth: admin, body: { name: "theirs" } });
    const memberId = h.services.store.users.byEmail("member@a.test")!.id;
    const adminId = h.services.store.users.byEmail("admin@a.test")!.id;
    expect(mine.body.created_by).toEqual({ user_id: memberId, email: "member@a.test" });
    const list = await h.send("GET", "/api/v1/api-keys", { auth: member });
    expect(list.status).toBe(200);
    const byId = Object.fromEntries(list.body.data.map((k: { id: string }) => [k.id, k]));
    expect(byId[cli.id].created_by).toBeNull();
    expect(byId[mine.body.id].created_by).toEqual({ user_id: memberId, email: "member@a.test" });
    expect(byId[theirs.body.id].created_by).toEqual({ user_id: adminId, email: "admin@a.test" });
    expect(byId[theirs.body.id].replaces_key_id).toBeNull();
  });

  it("a member renames and revokes its own keys only: another's and the account's are 403 admin_required", async () => {
    const h = makeHarness();
    const member = await sessionOf(h, "member@a.test");
    const admin = await sessionOf(h, "admin@a.test");
    const other = await userIn(h, h.a.id, "other@a.test", "member");
    const mine = (await h.send("POST", "/api/v1/api-keys", { auth: member, body: { name: "mine" } })).body;
    const others = (await h.send("POST", "/api/v1/api-keys", { auth: other, body: { name: "others" } })).body;
    const admins = (await h.send("POST", "/api/v1/api-keys", { auth: admin, body: { name: "admins" } })).body;
    const account = keyRow(h, h.key());
    for (const id of [others.id, admins.id, account.id]) {
      const rename = await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: member, body: { name: "taken over" } });
      const details = expectErrorBody(rename, 403, "admin_required");
      expect(details).toMatchObject({ required_role: "admin", api_key_id: id });
      expectErrorBody(await h.send("DELETE", `/api/v1/api-keys/${id}`, { auth: member }), 403, "admin_required");
      const row = h.services.store.apiKeys.byId(id)!;
      expect(row.revoked_at).toBeNull();
      expect(row.name).not.toBe("taken over");
    }
    const renamed = await h.send("PUT", `/api/v1/api-keys/${mine.id}`, { auth: member, body: { name: "mine 2" } });
    expect(renamed.body.name).toBe("mine 2");
    const revoked = await h.send("DELETE", `/api/v1/api-keys/${mine.id}`, { auth: member });
    expect(revoked.body.revoked_at).not.toBeNull();
  });

  it("an admin renames and revokes every key of the account, its members' and the command line's", async () => {
    const h = makeHarness();
    const member = await sessionOf(h, "member@a.test");
    const admin = await sessionOf(h, "admin@a.test");
    const members = (await h.send("POST", "/api/v1/api-keys", { auth: member, body: { name: "m" } })).body;
    const account = keyRow(h, h.key());
    for (const id of [members.id, account.id]) {
      expect((await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: admin, body: { name: "renamed" } })).status).toBe(
        200,
      );
      expect((await h.send("DELETE", `/api/v1/api-keys/${id}`, { auth: admin })).body.revoked_at).not.toBeNull();
    }
  });

  it("another account's admin finds none of them (404, as before)", async () => {
    const h = makeHarness();
    const adminB = await sessionOf(h, "admin@b.test");
    const account = keyRow(h, h.key());
    expectErrorBody(
      await h.send("DELETE", `/api/v1/api-keys/${account.id}`, { auth: adminB }),
      404,
      "api_key_not_found",
    );
  });
});

describe("the cap on active keys", () => {
  const capAt = (h: ReturnType<typeof makeHarness>, n: number) => h.services.store.accounts.setQuotas(h.a.id, n, null);

  it("refuses a key past the cap with 409 api_key_limit_reached naming the limit and how to raise it", async () => {
    const h = makeHarness();
    capAt(h, 2);
    const member = await sessionOf(h, "member@a.test");
    h.key();
    expect((await h.send("POST", "/api/v1/api-keys", { auth: member, body: { name: "2" } })).status).toBe(201);
    const refused = await h.send("POST", "/api/v1/api-keys", { auth: member, body: { name: "3" } });
    const details = expectErrorBody(refused, 409, "api_key_limit_reached");
    expect(details).toMatchObject({ limit: 2, active: 2, account_id: h.a.id });
    expect(refused.body.message).toMatch(/limit of 2/);
    expect(refused.body.message).toMatch(/accounts set-limits --account \d+ --max-keys/);
    expect(h.services.store.apiKeys.list(h.a.id)).toHaveLength(2);
    // The command line is held to the same cap.
    expect(() => h.key()).toThrow(/limit of 2/);
  });

  it("counts only active keys: a revoked or expired key frees its place", async () => {
    const h = makeHarness();
    capAt(h, 2);
    const admin = await sessionOf(h, "admin@a.test");
    const revoked = keyRow(h, h.key());
    const expiring = keyRow(h, h.key({ expires: "30d" }));
    const body = { name: "next" };
    expectErrorBody(await h.send("POST", "/api/v1/api-keys", { auth: admin, body }), 409, "api_key_limit_reached");
    await h.send("DELETE", `/api/v1/api-keys/${revoked.id}`, { auth: admin });
    expect((await h.send("POST", "/api/v1/api-keys", { auth: admin, body })).status).toBe(201);
    expectErrorBody(await h.send("POST", "/api/v1/api-keys", { auth: admin, body }), 409, "api_key_limit_reached");
    h.clock.advance(31 * 86_400_000);
    expect(h.services.store.apiKeys.byId(expiring.id)!.revoked_at).toBeNull();
    const later = await sessionOf(h, "admin@a.test");
    expect((await h.send("POST", "/api/v1/api-keys", { auth: later, body })).status).toBe(201);
  });

  it("two creates sent together at one place from the cap admit one", async () => {
    const h = makeHarness();
    capAt(h, 2);
    h.key();
    const admin = await sessionOf(h, "admin@a.test");
    const member = await sessionOf(h, "member@a.test");
    const answers = await Promise.all([
      h.send("POST", "/api/v1/api-keys", { auth: admin, body: { name: "a" } }),
      h.send("POST", "/api/v1/api-keys", { auth: member, body: { name: "b" } }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(h.services.store.apiKeys.countActive(h.a.id, new Date(h.clock.now()).toISOString())).toBe(2);
  });

  it("is the plan's when the account sets none (business: 50), and the entitlements show it with the active count", async () => {
    const h = makeHarness();
    const key = h.key();
    h.key({ scopes: ["read"] });
    const res = await h.send("GET", "/api/v1/users/me/entitlements", { auth: key });
    expect(res.body.api_keys).toEqual({ limit: 50, active: 2 });
    capAt(h, 3);
    const again = await h.send("GET", "/api/v1/users/me/entitlements", { auth: await sessionOf(h, "member@a.test") });
    expect(again.body.api_keys).toEqual({ limit: 3, active: 2 });
  });

  it("a rotation that revokes the old key at once is not refused at the cap; one with a grace period is", () => {
    const h = makeHarness();
    capAt(h, 1);
    const old = keyRow(h, h.key());
    const store = h.services.store;
    expect(() => rotateKey(store, "test", old, h.clock.now(), { revokeOldAfterMs: 86_400_000 })).toThrow(/limit of 1/);
    expect(store.apiKeys.byId(old.id)!.expires_at).toBe(old.expires_at);
    const { row } = rotateKey(store, "test", old, h.clock.now(), { revokeOldAfterMs: 0 });
    expect(row.replaces_key_id).toBe(old.id);
    expect(store.apiKeys.byId(old.id)!.revoked_at).not.toBeNull();
  });

  it("a rotation with a grace period brings the old key's expiry forward, never later than it was", () => {
    const h = makeHarness();
    const store = h.services.store;
    const old = keyRow(h, h.key({ expires: "30d" }));
    const { row } = rotateKey(store, "test", old, h.clock.now(), { revokeOldAfterMs: 86_400_000 });
    expect(row).toMatchObject({ replaces_key_id: old.id, name: old.name, created_by_user_id: null });
    expect(store.apiKeys.byId(old.id)!.expires_at).toBe(new Date(h.clock.now() + 86_400_000).toISOString());
    const longGrace = rotateKey(store, "test", row, h.clock.now(), { revokeOldAfterMs: 90 * 86_400_000 });
    expect(store.apiKeys.byId(row.id)!.expires_at).toBe(row.expires_at);
    expect(longGrace.row.replaces_key_id).toBe(row.id);
  });
});
