/**
 * The account's own state from a web session (spec §4.11, DESIGN §6): settings, learning preferences and the
 * entitlements read.
 */
import { describe, expect, it } from "vitest";
import { setPlan } from "../../src/domain/admin.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf, userIn } from "../helpers/http.js";

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

  it("learning-preferences: GET with a key or a session; PUT with an administrator's session only", async () => {
    const h = makeHarness();
    const key = h.key({ scopes: ["read"] });
    const writeKey = h.key();
    const member = await sessionOf(h, "member@a.test");
    expect((await h.send("GET", "/api/v1/learning-preferences", { auth: member })).status).toBe(200);
    expectErrorBody(
      await h.send("PUT", "/api/v1/learning-preferences", { auth: member, body: { enabled: false } }),
      403,
      "admin_required",
    );
    const token = await sessionOf(h, "admin@a.test");
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
    expect((await h.send("GET", "/api/v1/learning-preferences", { auth: member })).body.enabled).toBe(false);
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

    const admin = await sessionOf(h, "admin@a.test");
    const prefs = (await h.send("GET", "/api/v1/learning-preferences", { auth: admin })).body;
    expect(prefs.updated_at).toBeNull();
    const off = await h.send("PUT", "/api/v1/learning-preferences", {
      auth: admin,
      body: { ...prefs, enabled: false },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toEqual({ enabled: false, apply_to_generation: true, updated_at: now });
    h.clock.advance(1000);
    const again = await h.send("PUT", "/api/v1/learning-preferences", { auth: admin, body: off.body });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ enabled: false, apply_to_generation: true });
    const unknown = await h.send("PUT", "/api/v1/learning-preferences", { auth: admin, body: { ...off.body, on: 1 } });
    expectErrorBody(unknown, 400, "validation_failed");
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
