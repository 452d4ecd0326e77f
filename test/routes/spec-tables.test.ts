/**
 * The specification's tables, row by row: spec §5's request-time workspace table, its scope table and its
 * key-binding rules, spec §7's error table, and account isolation (DESIGN §3).
 */
import { describe, expect, it } from "vitest";
import { issueKey } from "../../src/domain/admin.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import {
  API_ROUTES,
  expectErrorBody,
  isWriteMethod,
  keyRow,
  label,
  probeApp,
  realPath,
  sessionOf,
} from "../helpers/http.js";

const PROBE = "/api/v1/__probe/workspace";

/** One row of spec §5's request-time table. */
interface BindingRow {
  row: string;
  /** The key's binding: null = unbound. */
  bound: (h: Harness) => string | null;
  /** The workspace_id the request names, if any. */
  requested: (h: Harness) => string | undefined;
  /** The workspace a workspace-requiring operation acts on, or the error it gets. */
  outcome: (h: Harness) => { workspace: string } | { status: number; code: string };
  /** What GET /workspaces (binding-aware listing) shows, or its error. */
  listing: (h: Harness) => string[] | { status: number; code: string };
}

const BINDING_ROWS: BindingRow[] = [
  {
    row: "unbound key, no workspace_id: the default workspace",
    bound: () => null,
    requested: () => undefined,
    outcome: (h) => ({ workspace: h.a.ws1 }),
    listing: (h) => [h.a.ws1, h.a.ws2],
  },
  {
    row: "unbound key, explicit workspace_id: that workspace",
    bound: () => null,
    requested: (h) => h.a.ws2,
    outcome: (h) => ({ workspace: h.a.ws2 }),
    listing: (h) => [h.a.ws2],
  },
  {
    row: "unbound key, workspace_id of another account: 404",
    bound: () => null,
    requested: (h) => h.b.ws,
    outcome: () => ({ status: 404, code: "workspace_not_found" }),
    listing: () => ({ status: 404, code: "workspace_not_found" }),
  },
  {
    row: "bound key, no workspace_id: the bound workspace is injected",
    bound: (h) => h.a.ws2,
    requested: () => undefined,
    outcome: (h) => ({ workspace: h.a.ws2 }),
    listing: (h) => [h.a.ws2],
  },
  {
    row: "bound key, workspace_id equal to the binding: 200",
    bound: (h) => h.a.ws2,
    requested: (h) => h.a.ws2,
    outcome: (h) => ({ workspace: h.a.ws2 }),
    listing: (h) => [h.a.ws2],
  },
  {
    row: "bound key, a different workspace_id: 403 workspace_mismatch, never overridden",
    bound: (h) => h.a.ws2,
    requested: (h) => h.a.ws1,
    outcome: () => ({ status: 403, code: "workspace_mismatch" }),
    listing: () => ({ status: 403, code: "workspace_mismatch" }),
  },
];

describe("spec §5: request-time workspace table", () => {
  describe.each(BINDING_ROWS)("$row", (row) => {
    const via = [
      { how: "query string", method: "GET", place: "query" },
      { how: "JSON body", method: "POST", place: "body" },
      { how: "JSON body of PATCH", method: "PATCH", place: "body" },
    ] as const;
    it.each(via)("on a workspace-requiring operation, workspace_id in the $how", async ({ method, place }) => {
      const h = makeHarness();
      const p = probeApp(h);
      const key = h.key({ workspaceId: row.bound(h) });
      const requested = row.requested(h);
      const query = place === "query" && requested ? `?workspace_id=${requested}` : "";
      const body = place === "body" ? (requested ? { workspace_id: requested } : {}) : undefined;
      const res = await p.send(method, `${PROBE}${query}`, { auth: key, body });
      const outcome = row.outcome(h);
      if ("workspace" in outcome) {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.workspace_id).toBe(outcome.workspace);
        expect(p.log.calls).toEqual([{ method, path: PROBE, workspaceId: outcome.workspace }]);
      } else {
        const details = expectErrorBody(res, outcome.status, outcome.code);
        if (outcome.code === "workspace_mismatch") {
          expect(details.bound_workspace_id).toBe(row.bound(h));
          expect(details.requested_workspace_id).toBe(requested);
        }
        expect(p.log.calls).toEqual([]);
      }
    });

    it("on the workspace listing (GET /workspaces)", async () => {
      const h = makeHarness();
      const key = h.key({ workspaceId: row.bound(h) });
      const requested = row.requested(h);
      const res = await h.send("GET", `/api/v1/workspaces${requested ? `?workspace_id=${requested}` : ""}`, {
        auth: key,
      });
      const expected = row.listing(h);
      if (Array.isArray(expected)) {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.data.map((w: { id: string }) => w.id).sort()).toEqual([...expected].sort());
      } else {
        expectErrorBody(res, expected.status, expected.code);
      }
    });
  });

  it("an empty workspace_id is 400 validation_failed, in the query and in the body, bound key or not", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    for (const key of [h.key(), h.key({ workspaceId: h.a.ws1 })]) {
      const query = await p.send("GET", `${PROBE}?workspace_id=`, { auth: key });
      expect(expectErrorBody(query, 400, "validation_failed").issues).toEqual([
        { path: "query.workspace_id", message: expect.stringContaining("workspace_id must be a workspace id") },
      ]);
      const body = await p.send("POST", PROBE, { auth: key, body: { workspace_id: "" } });
      expect(expectErrorBody(body, 400, "validation_failed").issues).toEqual([
        { path: "body.workspace_id", message: expect.stringContaining("workspace_id must be a workspace id") },
      ]);
    }
    expect(p.log.calls).toEqual([]);
  });

  describe("unbound key, no workspace_id, on an account without a default workspace", () => {
    const withoutDefault = () => {
      const h = makeHarness();
      h.db.prepare("DELETE FROM workspaces WHERE id = ?").run(h.a.ws1);
      expect(h.services.store.workspaces.defaultOf(h.a.id)).toBeUndefined();
      return h;
    };

    it("a workspace-requiring operation answers 400 workspace_required", async () => {
      const h = withoutDefault();
      const p = probeApp(h);
      const key = h.key();
      for (const [method, body] of [
        ["GET", undefined],
        ["POST", {}],
      ] as const) {
        expectErrorBody(await p.send(method, PROBE, { auth: key, body }), 400, "workspace_required");
      }
      expect(p.log.calls).toEqual([]);
      // Naming the workspace works.
      const named = await p.send("GET", `${PROBE}?workspace_id=${h.a.ws2}`, { auth: key });
      expect(named.body.workspace_id).toBe(h.a.ws2);
    });

    it("/thesis and /generate check the workspace before the body (DESIGN §3)", async () => {
      const h = withoutDefault();
      const key = h.key();
      expectErrorBody(await h.send("POST", "/api/v1/thesis", { auth: key, body: {} }), 400, "workspace_required");
      const direction = { user_direction: "A short piece on quarterly reviews in Lisbon" };
      expectErrorBody(
        await h.send("POST", "/api/v1/thesis", { auth: key, body: direction }),
        400,
        "workspace_required",
      );
      const generate = { template_id: 1, ...direction };
      for (const body of [generate, {}, { template_id: "one" }, { content_id: null }])
        expectErrorBody(await h.send("POST", "/api/v1/generate", { auth: key, body }), 400, "workspace_required");
      // Named, the workspace is used.
      const named = await h.send("POST", `/api/v1/thesis?workspace_id=${h.a.ws2}`, { auth: key, body: direction });
      expect(named.status).toBe(200);
    });

    it("/generate with content_id works in the content's workspace, and validates its body", async () => {
      const h = withoutDefault();
      const key = h.key();
      const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { workspace_id: h.a.ws2 } });
      expect(draft.status).toBe(201);
      const id = draft.body.content_id;
      expectErrorBody(
        await h.send("POST", "/api/v1/generate", { auth: key, body: { content_id: id, template_id: "one" } }),
        400,
        "validation_failed",
      );
      const res = await h.send("POST", "/api/v1/generate", {
        auth: key,
        body: { content_id: id, template_id: 1, user_direction: "A short piece on quarterly reviews in Lisbon" },
      });
      expect(res.status).toBe(200);
      expect(res.body.workspace_id).toBe(h.a.ws2);
    });

    it("the listing, which does not require a workspace, still answers", async () => {
      const h = withoutDefault();
      const res = await h.send("GET", "/api/v1/workspaces", { auth: h.key() });
      expect(res.status).toBe(200);
      expect(res.body.data.map((w: { id: string }) => w.id)).toEqual([h.a.ws2]);
    });
  });

  it("a session acts unbound: no workspace_id gives the default, an explicit one is used", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const token = await sessionOf(h, "member@a.test");
    expect((await p.send("GET", PROBE, { auth: token })).body.workspace_id).toBe(h.a.ws1);
    expect((await p.send("GET", `${PROBE}?workspace_id=${h.a.ws2}`, { auth: token })).body.workspace_id).toBe(h.a.ws2);
  });

  it("account-level reads ignore binding: a bound key naming another workspace still reads them", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    for (const path of ["/api/v1/users/me", "/api/v1/users/me/entitlements", "/api/v1/analysis/quota"]) {
      const res = await h.send("GET", `${path}?workspace_id=${h.a.ws2}`, { auth: key });
      expect(res.status, path).toBe(200);
    }
  });
});

describe("spec §7: error table", () => {
  it("every error body carries error, message, details.error_code, detail and trace_id", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/workspaces?workspace_id=ws_nope", {
      auth: h.key({ workspaceId: h.a.ws1 }),
    });
    const details = expectErrorBody(res, 403, "workspace_mismatch");
    expect(res.body.detail).toEqual(details);
  });

  it("401: missing or invalid credentials", async () => {
    const h = makeHarness();
    for (const auth of [undefined, "svc_live_wrong", "not-a-jwt"]) {
      const res = await h.send("GET", "/api/v1/users/me", { auth });
      expectErrorBody(res, 401);
      expect(res.body.error).toBe("UNAUTHORIZED");
    }
  });

  it("401: an operation rejected for API keys (spec §4.11)", async () => {
    const h = makeHarness();
    expectErrorBody(await h.send("PUT", "/api/v1/me/settings", { auth: h.key(), body: { locale: "fr" } }), 401);
  });

  it("403 FORBIDDEN insufficient_scope: required_scope, current_scopes, upgrade_action", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const res = await p.send("POST", "/api/v1/__probe/write", { auth: h.key({ scopes: ["read"] }), body: {} });
    const details = expectErrorBody(res, 403, "insufficient_scope");
    expect(res.body.error).toBe("FORBIDDEN");
    expect(details.required_scope).toBe("write");
    expect(details.current_scopes).toEqual(["read"]);
    // A URL for re-issuing the key: absolute, under the server's public address, and a page a browser opens (the
    // dashboard's key-creation form, filled in for read+write), which the server answers.
    expect(details.upgrade_action).toBe("http://127.0.0.1:8080/#/keys/new?scopes=read,write");
    const page = await h.send("GET", new URL(details.upgrade_action as string).pathname);
    expect(page.status).not.toBe(404);
  });

  it("upgrade_action follows --public-url, and a plan's points to the dashboard's plan page", async () => {
    const h = makeHarness({ config: { publicUrl: "https://content.example.com/" } });
    const p = probeApp(h);
    const res = await p.send("POST", "/api/v1/__probe/write", { auth: h.key({ scopes: ["read"] }), body: {} });
    expect(expectErrorBody(res, 403, "insufficient_scope").upgrade_action).toBe(
      "https://content.example.com/#/keys/new?scopes=read,write",
    );
    const starter = h.accountWithPlan("starter");
    const refused = await h.send("GET", "/api/v1/users/me", { auth: starter.key });
    const details = expectErrorBody(refused, 403, "plan_upgrade_required");
    expect(details.upgrade_action).toBe("https://content.example.com/#/plan");
  });

  it("403 FORBIDDEN workspace_mismatch: bound_workspace_id, requested_workspace_id", async () => {
    const h = makeHarness();
    const res = await h.send("GET", `/api/v1/workspaces?workspace_id=${h.a.ws2}`, {
      auth: h.key({ workspaceId: h.a.ws1 }),
    });
    const details = expectErrorBody(res, 403, "workspace_mismatch");
    expect(res.body.error).toBe("FORBIDDEN");
    expect(details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
  });

  it("400: unbound key without workspace_id where a workspace is required and there is no default", async () => {
    const h = makeHarness();
    h.db.prepare("UPDATE workspaces SET is_default = 0 WHERE account_id = ?").run(h.a.id);
    const p = probeApp(h);
    const res = await p.send("GET", PROBE, { auth: h.key() });
    expectErrorBody(res, 400, "workspace_required");
  });
});

describe("spec §5: scope table", () => {
  const keyRoutes = API_ROUTES.filter((r) => r.access === "any");

  /** The request got past authentication, access and scope: the operation itself answered. */
  const reachedOperation = (res: { status: number; body: { details?: { error_code?: string } } }, what: string) => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
    expect([401, 403], `${what}: ${JSON.stringify(res.body)}`).not.toContain(res.status);
  };

  it.each(keyRoutes.filter((r) => r.method === "GET").map((def) => ({ name: label(def), def })))(
    "read allows $name",
    async ({ def }) => {
      const h = makeHarness();
      for (const workspaceId of [null, h.a.ws2]) {
        const res = await h.send("GET", realPath(h, def), { auth: h.key({ scopes: ["read"], workspaceId }) });
        reachedOperation(res, String(workspaceId));
        // The sample ids in the path may not exist or have another shape; anything else answers 200.
        if (res.status === 400)
          for (const issue of res.body.details.issues) expect(issue.path, JSON.stringify(res.body)).toMatch(/^path\./);
        else if (res.status !== 200)
          expect(res.body.details.error_code, JSON.stringify(res.body)).toMatch(/_not_found$/);
      }
    },
  );

  it("write allows every operation open to keys, including every write method", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const routes = p.routes.filter((r) => r.access === "any");
    expect(routes.some((r) => isWriteMethod(r.method))).toBe(true);
    // A fresh key per route (each its own rate buckets): more than the business plan's cap of active keys.
    h.services.store.accounts.setQuotas(h.a.id, routes.length + 10, null);
    for (const def of routes) {
      const res = await p.send(def.method, realPath(h, def), { auth: h.key(), body: def.body ? {} : undefined });
      reachedOperation(res, label(def));
      if (def.path.startsWith("/api/v1/__probe/")) expect(res.status).toBe(200);
    }
    expect(p.log.calls.length).toBe(p.probes.length);
  });

  it("scopes are additive: write includes read; admin is never issued", async () => {
    const h = makeHarness();
    const cases: [string[], string[]][] = [
      [["read"], ["read"]],
      [["write"], ["read", "write"]],
      [
        ["read", "write"],
        ["read", "write"],
      ],
      // read is always included: an empty list asks for read alone (spec §2); only no list at all is the default.
      [[], ["read"]],
    ];
    for (const [requested, effective] of cases) {
      const res = await h.send("GET", "/api/v1/api-keys/current", { auth: h.key({ scopes: requested }) });
      expect(res.body.scopes, JSON.stringify(requested)).toEqual(effective);
    }
    expect(() => h.key({ scopes: ["admin"] })).toThrow();
  });

  it("a key stored before scopes existed acts with read and write", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const key = h.key({ scopes: ["read"] });
    h.db.prepare("UPDATE api_keys SET scopes = NULL WHERE id = ?").run(keyRow(h, key).id);
    expect((await p.send("POST", "/api/v1/__probe/write", { auth: key, body: {} })).status).toBe(200);
  });

  it("a session acts with read and write", async () => {
    const h = makeHarness();
    const p = probeApp(h);
    const token = await sessionOf(h, "member@a.test");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"])
      expect(
        (await p.send(method, "/api/v1/__probe/write", { auth: token, body: method === "DELETE" ? undefined : {} }))
          .status,
      ).toBe(200);
  });
});

describe("spec §5: key binding at issue", () => {
  const cases = [
    {
      name: "an account with exactly one workspace gets a key bound to it",
      account: (h: Harness) => h.b.id,
      expected: (h: Harness) => h.b.ws,
    },
    {
      name: "an account with several workspaces gets an unbound key",
      account: (h: Harness) => h.a.id,
      expected: () => null,
    },
  ];

  it.each(cases)("$name (issueKey without workspaceId)", async ({ account, expected }) => {
    const h = makeHarness();
    const { secret, row } = issueKey(h.services.store, "test", { accountId: account(h), name: "auto" }, h.clock.now());
    expect(row.workspace_id).toBe(expected(h));
    const res = await h.send("GET", "/api/v1/api-keys/current", { auth: secret });
    expect(res.body.workspace_id).toBe(expected(h));
  });

  it.each(cases)("$name (POST /api-keys from a session)", async ({ account, expected }) => {
    const h = makeHarness();
    const email = account(h) === h.a.id ? "admin@a.test" : "admin@b.test";
    const token = await sessionOf(h, email);
    for (const body of [{ name: "auto" }, { name: "all", workspace_id: null }]) {
      const res = await h.send("POST", "/api/v1/api-keys", { auth: token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.workspace_id, JSON.stringify(body)).toBe(expected(h));
    }
  });

  it("POST /api-keys: no scopes gives read and write, an empty list read alone", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    for (const [body, scopes] of [
      [{ name: "default" }, ["read", "write"]],
      [{ name: "none", scopes: [] }, ["read"]],
    ] as const) {
      const res = await h.send("POST", "/api/v1/api-keys", { auth: token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.scopes, JSON.stringify(body)).toEqual(scopes);
    }
  });

  it("a key bound to a workspace of another account cannot be issued", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const res = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "x", workspace_id: h.b.ws } });
    expectErrorBody(res, 404, "workspace_not_found");
  });

  it("binding and scopes are fixed at issue: a rename that would change them is refused, one that repeats them is not", async () => {
    const h = makeHarness();
    const key = h.key({ scopes: ["read"], workspaceId: h.a.ws2 });
    const token = await sessionOf(h, "admin@a.test");
    const id = keyRow(h, key).id;
    const rename = (body: Record<string, unknown>) =>
      h.send("PUT", `/api/v1/api-keys/${id}`, { auth: token, body: { name: "renamed", ...body } });
    for (const [body, path] of [
      [{ scopes: ["read", "write"] }, "body.scopes"],
      [{ scopes: ["write"] }, "body.scopes"],
      [{ workspace_id: null }, "body.workspace_id"],
      [{ workspace_id: h.a.ws1 }, "body.workspace_id"],
    ] as const) {
      const res = await rename(body);
      const details = expectErrorBody(res, 400, "validation_failed");
      expect(details.issues, JSON.stringify(body)).toEqual([
        { path, message: expect.stringContaining("fixed at creation: issue a new key") },
      ]);
    }
    // Nothing changed, not even the name.
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: key })).body).toMatchObject({
      name: keyRow(h, key).name,
      scopes: ["read"],
      workspace_id: h.a.ws2,
    });
    // The record as read, written back with a new name: a rename.
    const ok = await rename({ scopes: ["read"], workspace_id: h.a.ws2 });
    expect((await rename({ scopes: [] })).status).toBe(200);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const current = await h.send("GET", "/api/v1/api-keys/current", { auth: key });
    expect(current.body).toMatchObject({ name: "renamed", scopes: ["read"], workspace_id: h.a.ws2 });
  });
});

describe("account isolation", () => {
  it("another account's workspace by id is 404, for keys and sessions alike", async () => {
    const h = makeHarness();
    const credentials = [h.key(), h.key({ workspaceId: h.a.ws1 }), await sessionOf(h, "admin@a.test")];
    for (const auth of credentials) {
      const res = await h.send("GET", `/api/v1/workspaces/${h.b.ws}`, { auth });
      expectErrorBody(res, 404, "workspace_not_found");
      expect(JSON.stringify(res.body)).not.toContain("Account B");
    }
  });

  it("another account's workspace cannot be renamed or deleted by a session (404)", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    expectErrorBody(
      await h.send("PUT", `/api/v1/workspaces/${h.b.ws}`, { auth: token, body: { name: "mine" } }),
      404,
      "workspace_not_found",
    );
    expectErrorBody(
      await h.send("DELETE", `/api/v1/workspaces/${h.b.ws}`, { auth: token }),
      404,
      "workspace_not_found",
    );
    expect(h.services.store.workspaces.byId(h.b.ws)?.name).toBe("Default");
  });

  it("another account's API key cannot be renamed or revoked (404)", async () => {
    const h = makeHarness();
    const bKey = h.key({ account: h.b.id });
    const id = keyRow(h, bKey).id;
    const token = await sessionOf(h, "admin@a.test");
    expectErrorBody(
      await h.send("PUT", `/api/v1/api-keys/${id}`, { auth: token, body: { name: "x" } }),
      404,
      "api_key_not_found",
    );
    expectErrorBody(await h.send("DELETE", `/api/v1/api-keys/${id}`, { auth: token }), 404, "api_key_not_found");
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: bKey })).status).toBe(200);
    const listed = await h.send("GET", "/api/v1/api-keys", { auth: token });
    expect(listed.body.data.map((k: { id: string }) => k.id)).not.toContain(id);
  });

  it("a key bound to ws1 reading A's ws2 by id gets 403 workspace_mismatch", async () => {
    const h = makeHarness();
    const res = await h.send("GET", `/api/v1/workspaces/${h.a.ws2}`, { auth: h.key({ workspaceId: h.a.ws1 }) });
    const details = expectErrorBody(res, 403, "workspace_mismatch");
    expect(details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
  });

  it("a bound key listing /workspaces sees only its workspace; an unbound key sees its account's only", async () => {
    const h = makeHarness();
    const bound = await h.send("GET", "/api/v1/workspaces", { auth: h.key({ workspaceId: h.a.ws2 }) });
    expect(bound.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(bound.body.data.map((w: { id: string }) => w.id)).toEqual([h.a.ws2]);
    const unbound = await h.send("GET", "/api/v1/workspaces", { auth: h.key() });
    expect(unbound.body.data.map((w: { id: string }) => w.id).sort()).toEqual([h.a.ws1, h.a.ws2].sort());
    const b = await h.send("GET", "/api/v1/workspaces", { auth: h.key({ account: h.b.id }) });
    expect(b.body.data.map((w: { id: string }) => w.id)).toEqual([h.b.ws]);
  });

  it("the workspace listing pages with limit and cursor within the account", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    for (let i = 0; i < 3; i++) await h.send("POST", "/api/v1/workspaces", { auth: token, body: { name: `W${i}` } });
    const key = h.key();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: { id: string }[]; next_cursor: string | null; has_more: boolean } } = await h.send(
        "GET",
        `/api/v1/workspaces?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { auth: key },
      );
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((w) => w.id));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect(seen).not.toContain(h.b.ws);
  });
});
