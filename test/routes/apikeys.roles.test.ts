/**
 * Who manages which key (DESIGN §10, docs/roles.md) and the account's cap on active keys (issue 31 point 3): a member
 * lists every key of the account and changes only those it issued; admins change all; a key of the command line is
 * the account's. Creating past the cap is 409 api_key_limit_reached, counted atomically; a rotation takes its old
 * key's place, so it is not refused at the cap.
 */
import { describe, expect, it } from "vitest";
import { REPLACED_KEY_GRACE_MS, rotateKey } from "../../src/domain/admin.js";
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

  it("a rotation at the cap is not refused: the old key works a day at most beside its replacement", () => {
    const h = makeHarness();
    capAt(h, 1);
    const store = h.services.store;
    const first = keyRow(h, h.key());
    const { row } = rotateKey(store, "test", first, h.clock.now(), { revokeOldAfterMs: 0 });
    expect(row.replaces_key_id).toBe(first.id);
    expect(store.apiKeys.byId(first.id)!.revoked_at).not.toBeNull();
    const graced = rotateKey(store, "test", row, h.clock.now(), { revokeOldAfterMs: 30 * 86_400_000 }).row;
    expect(graced.replaces_key_id).toBe(row.id);
    expect(store.apiKeys.byId(row.id)!.expires_at).toBe(new Date(h.clock.now() + REPLACED_KEY_GRACE_MS).toISOString());
  });

  it("the dashboard's rotation at the cap (POST with replaces_key_id) works; a plain create and a second one do not", async () => {
    const h = makeHarness();
    capAt(h, 1);
    const admin = await sessionOf(h, "admin@a.test");
    const oldSecret = h.key();
    const old = keyRow(h, oldSecret);
    const rotation = { name: old.name, replaces_key_id: old.id };
    const rotated = await h.send("POST", "/api/v1/api-keys", { auth: admin, body: rotation });
    expect(rotated.status).toBe(201);
    expect(rotated.body.replaces_key_id).toBe(old.id);
    // Both work now; the old one for a day at most, so that the cap holds again after it.
    const dayLater = new Date(h.clock.now() + REPLACED_KEY_GRACE_MS).toISOString();
    expect(h.services.store.apiKeys.byId(old.id)!.expires_at).toBe(dayLater);
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: rotated.body.key })).status).toBe(200);
    const plain = await h.send("POST", "/api/v1/api-keys", { auth: admin, body: { name: "more" } });
    expect(expectErrorBody(plain, 409, "api_key_limit_reached")).toMatchObject({ limit: 1, active: 2 });
    // Past the cap by the rotation's one key, nothing more passes: neither the old key nor the new one is rotated again.
    for (const replaces of [old.id, rotated.body.id]) {
      const again = await h.send("POST", "/api/v1/api-keys", {
        auth: admin,
        body: { name: "x", replaces_key_id: replaces },
      });
      expectErrorBody(again, 409, "api_key_limit_reached");
    }
    h.clock.advance(REPLACED_KEY_GRACE_MS);
    const later = await sessionOf(h, "admin@a.test");
    expectErrorBody(await h.send("GET", "/api/v1/api-keys/current", { auth: oldSecret }), 401);
    expectErrorBody(await h.send("POST", "/api/v1/api-keys", { auth: later, body: { name: "more" } }), 409);
    const next = await h.send("POST", "/api/v1/api-keys", {
      auth: later,
      body: { ...rotation, replaces_key_id: rotated.body.id },
    });
    expect(next.status).toBe(201);
  });

  it("gives no place for a replaced key that is not active, and leaves the old key as it was below the cap", async () => {
    const h = makeHarness();
    capAt(h, 2);
    const admin = await sessionOf(h, "admin@a.test");
    const revoked = keyRow(h, h.key());
    await h.send("DELETE", `/api/v1/api-keys/${revoked.id}`, { auth: admin });
    const kept = keyRow(h, h.key());
    const below = await h.send("POST", "/api/v1/api-keys", {
      auth: admin,
      body: { name: "n", replaces_key_id: kept.id },
    });
    expect(below.status).toBe(201);
    expect(h.services.store.apiKeys.byId(kept.id)!.expires_at).toBe(kept.expires_at);
    const body = { name: "n", replaces_key_id: revoked.id };
    expectErrorBody(await h.send("POST", "/api/v1/api-keys", { auth: admin, body }), 409, "api_key_limit_reached");
  });

  it("lets a member replace only a key it may change, and only one of its account", async () => {
    const h = makeHarness();
    const admin = await sessionOf(h, "admin@a.test");
    const member = await sessionOf(h, "member@a.test");
    const theirs = await h.send("POST", "/api/v1/api-keys", { auth: admin, body: { name: "theirs" } });
    const refused = await h.send("POST", "/api/v1/api-keys", {
      auth: member,
      body: { name: "x", replaces_key_id: theirs.body.id },
    });
    expectErrorBody(refused, 403, "admin_required");
    const foreign = keyRow(h, h.key({ account: h.b.id }));
    const elsewhere = await h.send("POST", "/api/v1/api-keys", {
      auth: admin,
      body: { name: "x", replaces_key_id: foreign.id },
    });
    expectErrorBody(elsewhere, 404, "api_key_not_found");
    expect(h.services.store.apiKeys.list(h.a.id)).toHaveLength(1);
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
