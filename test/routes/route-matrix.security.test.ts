/**
 * Security checks that walk the route table (STYLE "Tests"): every protected route without credentials,
 * every write route with a read-only key, every workspace-aware route with a key bound elsewhere, every
 * session-only route with a key, every route with a key of a plan without API access, the headers every
 * response carries, and every route with a member's session (DESIGN §10 roles). Nothing here is hand-picked:
 * a route added to ROUTES joins every matrix.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/domain/errors.js";
import type { RouteDef } from "../../src/http/route.js";
import { ROUTES } from "../../src/routes/index.js";
import { type Harness, makeHarness, samplePath } from "../helpers/harness.js";
import {
  API_ROUTES,
  codedBody,
  credentialFor,
  expectErrorBody,
  expectErrorBodyOf,
  expectRateHeaders,
  freshAddress,
  isWriteMethod,
  keyRow,
  label,
  probeApp,
  probeRoutes,
  realPath,
  sessionOf,
  userIn,
} from "../helpers/http.js";

const cases = (routes: RouteDef[]) => routes.map((def) => ({ name: label(def), def }));
const bodyFor = (def: RouteDef) => (def.body ? {} : undefined);
const auditCount = (h: Harness) => (h.db.prepare("SELECT count(*) AS n FROM audit_log").get() as { n: number }).n;

/** The table walked by (b) and (c): the real routes plus probes for rules no real route uses yet. */
const WITH_PROBES = [...ROUTES, ...probeRoutes({ calls: [] })];

const protectedRoutes = API_ROUTES.filter((r) => r.access !== "public");
const writeRoutesOpenToKeys = WITH_PROBES.filter((r) => r.access === "any" && isWriteMethod(r.method));
const workspaceRoutes = WITH_PROBES.filter((r) => r.workspace !== undefined);
const sessionRoutes = ROUTES.filter((r) => r.access === "session" || r.access === "admin");
const keyRejectingPublicRoutes = ROUTES.filter((r) => r.access === "public" && r.rejectsApiKeys);

describe("the route table", () => {
  it("has each kind of route the matrices walk", () => {
    // Guards against a filter silently matching nothing after a refactor of RouteDef.
    expect(protectedRoutes.length).toBeGreaterThan(10);
    expect(sessionRoutes.length).toBeGreaterThan(5);
    expect(ROUTES.filter((r) => r.workspace !== undefined).length).toBeGreaterThan(0);
    expect(writeRoutesOpenToKeys.length).toBeGreaterThan(0);
    expect(keyRejectingPublicRoutes.length).toBeGreaterThan(0);
  });
});

describe("(a) every protected route without valid credentials answers a coded 401", () => {
  let h: Harness;
  let revoked: string;
  let expired: string;
  let foreignSession: string;
  beforeAll(async () => {
    h = makeHarness();
    revoked = h.key();
    h.services.store.apiKeys.revoke(keyRow(h, revoked).id, new Date(h.clock.now()).toISOString());
    expired = h.key({ expires: "30d" });
    h.db
      .prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?")
      .run(new Date(h.clock.now() - 1000).toISOString(), keyRow(h, expired).id);
    // A well-formed HS256 token signed with another secret.
    foreignSession =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwiYWNjIjoxLCJyb2xlIjoiYWRtaW4iLCJpc3MiOiJjb250ZW50LXNlcnZpY2UiLCJqdGkiOiJ4IiwiZXhwIjo0MTAyNDQ0ODAwfQ.c2lnbmF0dXJlLW9mLWFub3RoZXItc2VjcmV0";
  });

  const credentials: { name: string; headers: () => Record<string, string> }[] = [
    { name: "no Authorization header", headers: () => ({}) },
    { name: "a Basic header", headers: () => ({ authorization: "Basic dXNlcjpwYXNz" }) },
    { name: "an empty Bearer", headers: () => ({ authorization: "Bearer " }) },
    { name: "an unknown key", headers: () => ({ authorization: "Bearer svc_live_0000000000000000000000000000000" }) },
    { name: "a revoked key", headers: () => ({ authorization: `Bearer ${revoked}` }) },
    { name: "an expired key", headers: () => ({ authorization: `Bearer ${expired}` }) },
    { name: "a session token of another server", headers: () => ({ authorization: `Bearer ${foreignSession}` }) },
  ];

  it.each(cases(protectedRoutes))("$name", async ({ def }) => {
    for (const cred of credentials) {
      const res = await h.send(def.method, samplePath(def.path), {
        headers: cred.headers(),
        body: bodyFor(def),
        remoteAddress: freshAddress(),
      });
      const details = expectErrorBodyOf(def, res, 401);
      expect(ERROR_CODES[details.error_code as keyof typeof ERROR_CODES], cred.name).toBe(401);
      expectRateHeaders(res, h.clock.now());
      expect(res.headers.get("x-trace-id")).toBe(res.body.trace_id);
      if (def.stability === "beta") expect(res.headers.get("x-api-stability"), cred.name).toBe("beta");
    }
  });
});

describe("(b) every write route open to keys refuses a read-only key with 403 insufficient_scope", () => {
  it.each(cases(writeRoutesOpenToKeys))("$name", async ({ def }) => {
    const h = makeHarness();
    const p = probeApp(h);
    for (const workspaceId of [null, h.a.ws1]) {
      const key = h.key({ scopes: ["read"], workspaceId });
      const res = await p.send(def.method, samplePath(def.path), { auth: key, body: bodyFor(def) });
      const details = expectErrorBodyOf(def, res, 403, "insufficient_scope");
      expect(codedBody(res.body).error).toBe("FORBIDDEN");
      expect(details.required_scope).toBe("write");
      expect(details.current_scopes).toEqual(["read"]);
      expect(details.upgrade_action).toBeTypeOf("string");
      expect(() => new URL(details.upgrade_action as string, "https://example.test")).not.toThrow();
      expectRateHeaders(res);
    }
    expect(p.log.calls).toEqual([]);
  });
});

describe("(c) every workspace-aware route refuses a key bound elsewhere with 403 workspace_mismatch", () => {
  it.each(cases(workspaceRoutes))("$name", async ({ def }) => {
    const h = makeHarness();
    const p = probeApp(h);
    const key = h.key({ workspaceId: h.a.ws1 });
    const path = samplePath(def.path);
    const attempts: { how: string; path: string; body?: unknown; requested: string }[] = [
      { how: "query", path: `${path}?workspace_id=${h.a.ws2}`, body: bodyFor(def), requested: h.a.ws2 },
      { how: "query, other account", path: `${path}?workspace_id=${h.b.ws}`, body: bodyFor(def), requested: h.b.ws },
    ];
    if (["POST", "PUT", "PATCH"].includes(def.method) && def.body)
      attempts.push({ how: "JSON body", path, body: { workspace_id: h.a.ws2 }, requested: h.a.ws2 });
    for (const attempt of attempts) {
      const res = await p.send(def.method, attempt.path, { auth: key, body: attempt.body });
      const details = expectErrorBodyOf(def, res, 403, "workspace_mismatch");
      expect(details.bound_workspace_id, attempt.how).toBe(h.a.ws1);
      expect(details.requested_workspace_id, attempt.how).toBe(attempt.requested);
    }
    // Never silently overridden: the handler did not run for any of them.
    expect(p.log.calls).toEqual([]);
    // The bound workspace itself is accepted.
    const same = await p.send(def.method, `${path}?workspace_id=${h.a.ws1}`, { auth: key, body: bodyFor(def) });
    expect(same.status).not.toBe(403);
  });
});

describe("(d) every session-only route refuses API keys with 401", () => {
  it.each(cases(sessionRoutes))("$name", async ({ def }) => {
    const h = makeHarness();
    const keys = [h.key(), h.key({ workspaceId: h.a.ws1 }), h.key({ scopes: ["read"] }), h.key({ account: h.b.id })];
    const before = auditCount(h);
    for (const key of keys) {
      const res = await h.send(def.method, realPath(h, def), { auth: key, body: bodyFor(def) });
      expectErrorBody(res, 401);
      expectRateHeaders(res);
    }
    // Nothing changed: every mutation of these routes writes the audit log.
    expect(auditCount(h)).toBe(before);
    // The same route answers a session of the right kind with something other than 401.
    const session = await sessionOf(h, "admin@a.test");
    const ok = await h.send(def.method, realPath(h, def), { auth: session, body: bodyFor(def) });
    expect(ok.status, JSON.stringify(ok.body)).not.toBe(401);
  });

  it.each(cases(keyRejectingPublicRoutes))(
    "public $name refuses an API key with 401 and rate headers",
    async ({ def }) => {
      const h = makeHarness();
      const res = await h.send(def.method, samplePath(def.path), {
        auth: h.key(),
        body: def.body ? { email: "admin@a.test", password: "correct horse battery staple" } : undefined,
      });
      expectErrorBody(res, 401);
      expectRateHeaders(res);
      if (def.stability === "beta") expect(res.headers.get("x-api-stability")).toBe("beta");
    },
  );
});

describe("(e) every protected route refuses keys of plans without API access with 403 plan_upgrade_required", () => {
  it.each(cases(protectedRoutes))("$name", async ({ def }) => {
    const h = makeHarness();
    for (const plan of ["starter", "pro"] as const) {
      const account = h.accountWithPlan(plan);
      const res = await h.send(def.method, samplePath(def.path, { workspaceId: account.ws }), {
        auth: account.key,
        body: bodyFor(def),
      });
      const details = expectErrorBodyOf(def, res, 403, "plan_upgrade_required");
      expect(details.current_plan).toBe(plan);
      expect(details.required_plans).toEqual(["business", "agency"]);
      expect(details.upgrade_action).toBeTypeOf("string");
      expectRateHeaders(res);
    }
  });

  it.each(cases(protectedRoutes))("a starter session on $name: allowed only where planExempt", async ({ def }) => {
    const h = makeHarness();
    const account = h.accountWithPlan("starter");
    const token = await userIn(h, account.id, "owner@starter.test", "admin");
    const res = await h.send(def.method, samplePath(def.path, { workspaceId: account.ws }), {
      auth: token,
      body: bodyFor(def),
    });
    if (def.planExempt) {
      expect(res.status, JSON.stringify(res.body)).not.toBe(401);
      expect(res.body?.details?.error_code).not.toBe("plan_upgrade_required");
    } else {
      const details = expectErrorBodyOf(def, res, 403, "plan_upgrade_required");
      expect(details.current_plan).toBe("starter");
    }
  });
});

describe("(f) every response carries X-Trace-Id, X-RateLimit-* and, on beta routes, X-API-Stability", () => {
  it.each(cases(API_ROUTES))("$name", async ({ def }) => {
    const h = makeHarness();
    const auth = await credentialFor(h, def);
    const res = await h.send(def.method, realPath(h, def), { auth, body: bodyFor(def), remoteAddress: freshAddress() });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
    const trace = res.headers.get("x-trace-id");
    expect(trace).toMatch(/^[0-9a-f-]{36}$/);
    if (res.status >= 400) expect(codedBody(res.body).trace_id).toBe(trace);
    expectRateHeaders(res, h.clock.now());
    expect(res.headers.get("x-api-stability")).toBe(def.stability === "beta" ? "beta" : null);
  });

  it("trace ids differ between requests", async () => {
    const h = makeHarness();
    const key = h.key();
    const traces = new Set<string | null>();
    for (let i = 0; i < 5; i++)
      traces.add((await h.send("GET", "/api/v1/users/me", { auth: key })).headers.get("x-trace-id"));
    expect(traces.size).toBe(5);
  });

  // Internal probes sit outside /api/v1 and outside the contract (spec §9.3): they carry a trace id but
  // are never rate limited, so an orchestrator polling them from one address is never refused.
  // The dashboard's files are named by their hash (test/routes/dashboard.test.ts); /device answers a redirect.
  const asset = readdirSync(path.resolve(import.meta.dirname, "../../dist/dashboard/assets"))[0];
  it.each(cases(ROUTES.filter((r) => r.stability === "outside")))("outside the API: $name", async ({ def }) => {
    const h = makeHarness();
    const concrete = def.path.replace("{file}", asset);
    for (let i = 0; i < 70; i++) {
      const res = await h.send(def.method, concrete, { remoteAddress: "10.250.0.1" });
      // /metrics answers loopback clients only by default (test/http/metrics.test.ts): refused, but never limited.
      const expected = def.path === "/device" ? 303 : def.path === "/metrics" ? 401 : 200;
      expect(res.status, concrete).toBe(expected);
      expect(res.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

/**
 * DESIGN §10's roles, written here rather than read from the route table so that a route that forgets its check
 * fails: a member is refused the administrators' routes and changes to a key it did not issue; everything else
 * answers it as it answers an admin.
 */
const memberRefusal = (def: RouteDef) =>
  def.access === "admin" || (def.path.startsWith("/api/v1/api-keys/{") && isWriteMethod(def.method));

describe("(g) every protected route with a member's session: refused only what DESIGN §10 reserves", () => {
  it.each(cases(protectedRoutes))("$name", async ({ def }) => {
    const h = makeHarness();
    // The first key of the account (realPath's) is the command line's: the account's, not the member's.
    h.key();
    const member = await sessionOf(h, "member@a.test");
    // A valid rename, so that the refusal is the role's, not the body's.
    const body = def.body && def.path.startsWith("/api/v1/api-keys/{") ? { name: "taken over" } : bodyFor(def);
    const res = await h.send(def.method, realPath(h, def), { auth: member, body });
    if (memberRefusal(def)) {
      const details = expectErrorBodyOf(def, res, 403, "admin_required");
      expect(details.required_role).toBe("admin");
    } else {
      expect(res.status, JSON.stringify(res.body)).not.toBe(401);
      expect(res.body?.details?.error_code, JSON.stringify(res.body)).not.toBe("admin_required");
    }
  });

  it.each(cases(protectedRoutes.filter((r) => r.path.startsWith("/api/v1/api-keys/{"))))(
    "$name on the member's own key is allowed",
    async ({ def }) => {
      const h = makeHarness();
      const member = await sessionOf(h, "member@a.test");
      const own = await h.send("POST", "/api/v1/api-keys", { auth: member, body: { name: "own" } });
      const res = await h.send(def.method, def.path.replace("{id}", own.body.id), {
        auth: member,
        body: def.body ? { name: "renamed" } : undefined,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
  );
});

describe("order of checks (DESIGN §3)", () => {
  it("authentication comes before everything: a bad body, a mismatch and a session route still get 401", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const res = await p.send("POST", `/api/v1/__probe/workspace?workspace_id=${h.a.ws2}`, {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectErrorBody(res, 401);
  });

  it("rate limit before plan: a starter key over its override gets 429 before 403", async () => {
    const h = makeHarness();
    const starter = h.accountWithPlan("starter");
    h.services.store.accounts.setLimits(starter.id, 1, null);
    const first = await h.send("GET", "/api/v1/users/me", { auth: starter.key });
    expectErrorBody(first, 403, "plan_upgrade_required");
    const second = await h.send("GET", "/api/v1/users/me", { auth: starter.key });
    expectErrorBody(second, 429, "rate_limit_exceeded");
  });

  it("plan before access: a starter key on a session-only route gets 403 plan_upgrade_required", async () => {
    const h = makeHarness();
    const starter = h.accountWithPlan("starter");
    expectErrorBody(await h.send("GET", "/api/v1/api-keys", { auth: starter.key }), 403, "plan_upgrade_required");
  });

  it("access before scope: a read-only key on a session-only write route gets 401", async () => {
    const h = makeHarness();
    const res = await h.send("POST", "/api/v1/api-keys", { auth: h.key({ scopes: ["read"] }), body: { name: "x" } });
    expectErrorBody(res, 401);
  });

  it("scope before workspace: a read-only key bound elsewhere gets insufficient_scope", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const key = h.key({ scopes: ["read"], workspaceId: h.a.ws1 });
    const res = await p.send("POST", `/api/v1/__probe/workspace?workspace_id=${h.a.ws2}`, { auth: key, body: {} });
    expectErrorBody(res, 403, "insufficient_scope");
  });

  it("workspace before input validation: a mismatch with an invalid body gets workspace_mismatch", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const key = h.key({ workspaceId: h.a.ws1 });
    const res = await p.send("POST", `/api/v1/__probe/workspace?workspace_id=${h.a.ws2}`, { auth: key, body: [1, 2] });
    expectErrorBody(res, 403, "workspace_mismatch");
  });

  it("input validation before the operation: an unknown account with an invalid body gets 400", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const res = await h.send("PUT", "/api/v1/admin/accounts/999999", { auth: token, body: { plan: "gold" } });
    expectErrorBody(res, 400, "validation_failed");
    const valid = await h.send("PUT", "/api/v1/admin/accounts/999999", { auth: token, body: { plan: "agency" } });
    expectErrorBody(valid, 404, "account_not_found");
  });
});
