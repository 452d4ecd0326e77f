/** Conformance to spec §4.3 and §5 and to DESIGN §3, §6 and §9 where an audit found the service deviating. */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { queryObjectOf } from "../../src/http/validate.js";
import { contract, type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody, generateAndFinalize, sessionOf } from "../helpers/http.js";
import { requestSchemaOf } from "../helpers/openapi-doc.js";

/** A finalized content in a workspace, and the learning job its finalization queued. */
async function learningJobIn(h: Harness, workspaceId: string): Promise<string> {
  const { finalized } = await generateAndFinalize(
    h,
    h.key(),
    { template_id: 1, user_direction: "Why written updates beat meetings", workspace_id: workspaceId, seed: 1 },
    { text: (generated) => `${generated}\n\nEdited.`, editSeconds: 5 },
  );
  await h.services.learning.idle();
  return finalized.body.learning_job_id as string;
}

describe("records reached by id lie in the workspace a request names (DESIGN §3)", () => {
  it("a learning job of another workspace than the one named is 404; a bound key elsewhere stays 403", async () => {
    const h = makeHarness();
    const jobId = await learningJobIn(h, h.a.ws2);
    const path = `/api/v1/learning-jobs/${jobId}`;
    for (const auth of [h.key({ scopes: ["read"] }), await sessionOf(h, "admin@a.test")])
      expectErrorBody(await h.send("GET", `${path}?workspace_id=${h.a.ws1}`, { auth }), 404, "learning_job_not_found");
    const bound = h.key({ workspaceId: h.a.ws1 });
    expectErrorBody(await h.send("GET", `${path}?workspace_id=${h.a.ws1}`, { auth: bound }), 403, "workspace_mismatch");
    expectErrorBody(await h.send("GET", path, { auth: bound }), 403, "workspace_mismatch");
    expect((await h.send("GET", `${path}?workspace_id=${h.a.ws2}`, { auth: h.key() })).status).toBe(200);
  });

  it("a workspace read by id while another workspace_id is named is 404", async () => {
    const h = makeHarness();
    const auth = h.key({ scopes: ["read"] });
    const path = `/api/v1/workspaces/${h.a.ws2}`;
    expectErrorBody(await h.send("GET", `${path}?workspace_id=${h.a.ws1}`, { auth }), 404, "workspace_not_found");
    expect((await h.send("GET", `${path}?workspace_id=${h.a.ws2}`, { auth })).body.id).toBe(h.a.ws2);
    expectErrorBody(await h.send("GET", path, { auth: h.key({ workspaceId: h.a.ws1 }) }), 403, "workspace_mismatch");
  });
});

describe("a workspace_id in both the query and the body (spec §5: never silently overridden)", () => {
  it("a bound key naming another workspace in the body is 403 workspace_mismatch, and nothing is created", async () => {
    const h = makeHarness();
    const res = await h.send("POST", `/api/v1/contents?workspace_id=${h.a.ws1}`, {
      auth: h.key({ workspaceId: h.a.ws1 }),
      body: { title: "x", workspace_id: h.a.ws2 },
    });
    const details = expectErrorBody(res, 403, "workspace_mismatch");
    expect(details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
    const list = await h.send("GET", "/api/v1/contents", { auth: h.key({ workspaceId: h.a.ws1 }) });
    expect(list.body.data).toEqual([]);
  });

  it.each([
    { who: "an unbound key", auth: (h: Harness) => h.key() },
    { who: "a session", auth: (h: Harness) => sessionOf(h, "admin@a.test") },
  ])("two different values are 400 validation_failed naming both for $who", async ({ auth }) => {
    const h = makeHarness();
    const res = await h.send("POST", `/api/v1/contents?workspace_id=${h.a.ws1}`, {
      auth: await auth(h),
      body: { title: "x", workspace_id: h.a.ws2 },
    });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect((details.issues as { path: string }[]).map((i) => i.path).sort()).toEqual([
      "body.workspace_id",
      "query.workspace_id",
    ]);
  });

  it("the same value in both is accepted", async () => {
    const h = makeHarness();
    const res = await h.send("POST", `/api/v1/contents?workspace_id=${h.a.ws2}`, {
      auth: h.key({ workspaceId: h.a.ws2 }),
      body: { title: "x", workspace_id: h.a.ws2 },
    });
    expect(res.status).toBe(201);
    expect(res.body.workspace_id).toBe(h.a.ws2);
  });
});

describe("planned dates (spec §4.3, DESIGN §7)", () => {
  it.each([
    ["2030-01-01T10:00:00", "2030-01-01"],
    ["2030-01-01T23:59:59.123", "2030-01-01"],
    ["2030-01-01T23:59", "2030-01-01"],
  ])("accepts the local date-time %s; the planned day is its date as sent", async (value, day) => {
    const h = makeHarness();
    const key = h.key();
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Plan me" } });
    const res = await h.send("PATCH", `/api/v1/contents/${draft.body.content_id}/schedule`, {
      auth: key,
      body: { scheduled_publish_at: value },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ scheduled_publish_at: value, scheduled_publish_day: day, status: "draft" });
  });

  it("one rule for days: year 0000 as on /usage; a leap second only at 23:59:60 UTC; offsets ±HH:MM", async () => {
    const h = makeHarness();
    const key = h.key();
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Plan me" } });
    const schedule = (value: string) =>
      h.send("PATCH", `/api/v1/contents/${draft.body.content_id}/schedule`, {
        auth: key,
        body: { scheduled_publish_at: value },
      });
    for (const [value, day] of [
      ["2016-12-31T15:59:60-08:00", "2016-12-31"],
      // ISO 8601's other offsets and a comma before the fraction, kept as sent.
      ["2026-03-01T23:30:00-0800", "2026-03-01"],
      ["2026-03-02T00:30+09", "2026-03-02"],
      ["2026-03-03T10:00:00,25Z", "2026-03-03"],
      // Last: the listing below finds the record on this day.
      ["0000-02-29", "0000-02-29"],
    ]) {
      const res = await schedule(value);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.scheduled_publish_day).toBe(day);
    }
    const listed = await h.send("GET", "/api/v1/contents?planned_from=0000-01-01&planned_to=0000-12-31", {
      auth: key,
    });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.map((c: { content_id: number }) => c.content_id)).toEqual([draft.body.content_id]);
    expect((await h.send("GET", "/api/v1/usage?from=0000-02-29&to=0000-03-01", { auth: key })).status).toBe(200);
    for (const value of ["2026-03-01T10:00:60Z", "2016-12-31T23:59:60", "2026-03-01T10:00+053"]) {
      const details = expectErrorBody(await schedule(value), 400, "validation_failed");
      expect(details.issues).toEqual([
        { path: "body.scheduled_publish_at", message: expect.stringMatching(/ISO 8601/) },
      ]);
    }
    expectErrorBody(await h.send("GET", "/api/v1/usage?from=0000-02-30", { auth: key }), 400, "validation_failed");
  });

  it("the OpenAPI description says which forms are accepted", () => {
    const schema = requestSchemaOf(contract.document, "/api/v1/contents/{contentId}/schedule", "patch");
    const field = JSON.stringify(schema.properties.scheduled_publish_at);
    expect(field).toMatch(/local/);
    expect(field).toContain("2030-01-31T10:00:00Z");
    expect(field).toContain("2030-01-31T10:00:00,");
  });
});

describe("object bodies are JSON objects (DESIGN §3)", () => {
  const cases: { method: string; path: string; raw: string }[] = [
    { method: "POST", path: "/api/v1/contents", raw: "[]" },
    { method: "PATCH", path: "/api/v1/contents/1", raw: "[1,2]" },
    { method: "PATCH", path: "/api/v1/contents/1", raw: '"title"' },
    { method: "POST", path: "/api/v1/contents", raw: "42" },
    { method: "POST", path: "/api/v1/contents", raw: "null" },
    { method: "PUT", path: "/api/v1/me/settings", raw: "[]" },
    { method: "PUT", path: "/api/v1/learning-preferences", raw: "[]" },
    { method: "POST", path: "/api/v1/contents/1/publication", raw: "[]" },
  ];
  it.each(cases)("$method $path with $raw is 400 validation_failed at body", async ({ method, path, raw }) => {
    const h = makeHarness();
    const auth = await sessionOf(h, "admin@a.test");
    const draft = await h.send("POST", "/api/v1/contents", { auth, body: { title: "Kept" } });
    expect(draft.body.content_id).toBe(1);
    const res = await h.send(method, path, { auth, raw, headers: { "content-type": "application/json" } });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect(details.issues).toEqual([{ path: "body", message: expect.stringMatching(/JSON object/) }]);
    const list = await h.send("GET", "/api/v1/contents", { auth });
    expect(list.body.data.map((c: { title: string }) => c.title)).toEqual(["Kept"]);
  });
});

describe("lists are paged (DESIGN §3)", () => {
  it("GET /admin/accounts takes limit and cursor and answers {data, has_more, next_cursor}", async () => {
    const h = makeHarness();
    const auth = await sessionOf(h, "admin@a.test");
    h.accountWithPlan("agency");
    const first = await h.send("GET", "/api/v1/admin/accounts?limit=2", { auth });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect(first.body.data.map((a: { id: number }) => a.id)).toEqual([h.a.id, h.b.id]);
    const rest = await h.send("GET", `/api/v1/admin/accounts?limit=2&cursor=${first.body.next_cursor}`, { auth });
    expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(rest.body.data).toHaveLength(1);
    const all = await h.send("GET", "/api/v1/admin/accounts", { auth });
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(all.body.data).toHaveLength(3);
    expectErrorBody(await h.send("GET", "/api/v1/admin/accounts?limit=101", { auth }), 400, "validation_failed");
  });
});

describe("a query parameter is sent once (DESIGN §3)", () => {
  it.each([
    ["/api/v1/templates?limit=5&limit=50", "query.limit", 2],
    ["/api/v1/contents?status=draft&limit=1&status=finalized", "query.status", 2],
    ["/api/v1/usage?from=2026-01-01&from=2026-01-02&from=2026-01-03", "query.from", 3],
    ["/api/v1/memories?workspace_id=WS&workspace_id=WS", "query.workspace_id", 2],
  ])("%s is 400 validation_failed naming the parameter (the first value had won)", async (path, issue, n) => {
    const h = makeHarness();
    const res = await h.send("GET", path.replaceAll("WS", h.a.ws1), { auth: h.key() });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect(details.issues).toEqual([
      { path: issue, message: `${issue.slice("query.".length)} must be sent once (got ${n} values)` },
    ]);
    expect(res.body.message).toBe(`${issue.slice("query.".length)} must be sent once (got ${n} values)`);
  });

  it("a repeated workspace_id is 400 before the workspace is looked at: not 404 for another account's, not 403 for a bound key", async () => {
    const h = makeHarness();
    const bound = h.key({ workspaceId: h.a.ws1 });
    const cases: [string, string, string | undefined, string, string][] = [
      // Alone, each of these is 404 workspace_not_found or 403 workspace_mismatch.
      ["GET", `/api/v1/memories?workspace_id=${h.b.ws}&workspace_id=${h.b.ws}`, undefined, h.key(), "404"],
      ["GET", `/api/v1/memories?workspace_id=${h.a.ws2}&workspace_id=${h.a.ws1}`, undefined, bound, "403"],
      // An operation whose query schema does not list workspace_id (it reads the query's all the same).
      ["POST", `/api/v1/contents?workspace_id=${h.b.ws}&workspace_id=${h.a.ws1}`, '{"title":"t"}', h.key(), "404"],
      ["POST", `/api/v1/contents?workspace_id=${h.a.ws2}&workspace_id=${h.a.ws2}`, "{", bound, "403"],
    ];
    for (const [method, path, raw, auth, alone] of cases) {
      const single = path.slice(0, path.indexOf("&"));
      const once = await h.send(method, single, { auth, raw, headers: { "content-type": "application/json" } });
      expect(once.status, `${method} ${single}`).toBe(Number(alone));
      const res = await h.send(method, path, { auth, raw, headers: { "content-type": "application/json" } });
      const details = expectErrorBody(res, 400, "validation_failed");
      expect(details.issues, `${method} ${path}`).toEqual([
        { path: "query.workspace_id", message: "workspace_id must be sent once (got 2 values)" },
      ]);
    }
  });

  it("names every repeated parameter, in the order they repeat; one the operation does not take is ignored, repeated or not", async () => {
    const h = makeHarness();
    const auth = h.key();
    const res = await h.send("GET", "/api/v1/templates?q=a&limit=1&q=b&limit=2", { auth });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect((details.issues as { path: string }[]).map((i) => i.path)).toEqual(["query.q", "query.limit"]);
    const ok = await h.send("GET", "/api/v1/templates?limit=1&utm=a&utm=b", { auth });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toHaveLength(1);
  });

  it("an array parameter takes every value in order", () => {
    const schema = v.object({ tag: v.optional(v.array(v.string())), limit: v.optional(v.string()) });
    expect(queryObjectOf(new URLSearchParams("tag=a&limit=3&tag=b"), schema)).toEqual({ tag: ["a", "b"], limit: "3" });
    expect(() => queryObjectOf(new URLSearchParams("limit=3&limit=3"), schema)).toThrow(/^limit must be sent once/);
  });
});

describe("X-API-Stability on every answer of a beta path (DESIGN §3)", () => {
  it.each([
    ["PUT", "/api/v1/contents"],
    ["POST", "/api/v1/memories/1"],
    ["OPTIONS", "/api/v1/reference-materials"],
  ])("%s %s (wrong method) is 405 with X-API-Stability: beta", async (method, path) => {
    const h = makeHarness();
    const res = await h.send(method, path, { auth: h.key() });
    expectErrorBody(res, 405, "method_not_allowed");
    expect(res.headers.get("x-api-stability")).toBe("beta");
  });

  it("a wrong method on a stable path carries none", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/generate", { auth: h.key() });
    expectErrorBody(res, 405, "method_not_allowed");
    expect(res.headers.get("x-api-stability")).toBeNull();
  });
});
