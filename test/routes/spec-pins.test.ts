/**
 * Rules of the specification that no other test pinned on their own (a conformance review's findings): each is
 * checked here against the spec's words (and, where it says so, this server's choices beside them), not against the
 * route table or the helpers the code itself uses.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";

const DAY_MS = 86_400_000;

describe("contents: planning and publication (spec §3, DESIGN §7)", () => {
  it("planning never locks a draft: a scheduled draft is edited, generated into and finalized", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Planned", content: "One." } });
    const id = draft.body.content_id;
    const planned = await h.send("PATCH", `/api/v1/contents/${id}/schedule`, {
      auth: key,
      body: { scheduled_publish_at: "2030-05-01" },
    });
    expect(planned.body).toMatchObject({ status: "draft", scheduled_publish_day: "2030-05-01" });

    const edited = await h.send("PATCH", `/api/v1/contents/${id}`, { auth: key, body: { content: "Two." } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ content: "Two.", status: "draft", scheduled_publish_day: "2030-05-01" });

    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "A short note on planning reviews.", content_id: id },
    });
    expect(gen.status).toBe(200);
    expect(gen.body).toMatchObject({ content_id: id, status: "generated", scheduled_publish_day: "2030-05-01" });

    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: id, finalized_content: `${gen.body.content}\n\nSigned off.`, edit_seconds: 30 },
    });
    expect(fin.status).toBe(200);
    expect(fin.body.status).toBe("finalized");
    const read = await h.send("GET", `/api/v1/contents/${id}`, { auth: key });
    expect(read.body).toMatchObject({ status: "finalized", scheduled_publish_day: "2030-05-01" });
  });

  it("published content cannot be scheduled: 409 invalid_status, the plan unchanged", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "A short note on planning reviews." },
    });
    const id = gen.body.content_id;
    await h.send("PATCH", `/api/v1/contents/${id}/schedule`, {
      auth: key,
      body: { scheduled_publish_at: "2030-05-01" },
    });
    await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: id, finalized_content: gen.body.content, edit_seconds: 30 },
    });
    const pub = await h.send("POST", `/api/v1/contents/${id}/publication`, { auth: key });
    expect(pub.body.status).toBe("published");

    for (const scheduled_publish_at of ["2031-01-01", null]) {
      const res = await h.send("PATCH", `/api/v1/contents/${id}/schedule`, {
        auth: key,
        body: { scheduled_publish_at },
      });
      expect(expectErrorBody(res, 409, "invalid_status"), String(scheduled_publish_at)).toMatchObject({
        current_status: "published",
      });
    }
    expect((await h.send("GET", `/api/v1/contents/${id}`, { auth: key })).body).toEqual(pub.body);
  });
});

describe("API keys (spec §2)", () => {
  it("are stored as the SHA-256 of the key, hex, and never as the key", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const res = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "stored" } });
    expect(res.status).toBe(201);
    const secret: string = res.body.key;
    const row = h.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(res.body.id) as Record<string, unknown>;
    expect(row.key_hash).toBe(createHash("sha256").update(secret, "utf8").digest("hex"));
    expect(JSON.stringify(row)).not.toContain(secret.slice("svc_live_".length));
  });

  it("can expire after 365 days, and stop working then", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "member@a.test");
    const res = await h.send("POST", "/api/v1/api-keys", { auth: token, body: { name: "year", expires: "365d" } });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBe(new Date(h.clock.now() + 365 * DAY_MS).toISOString());
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: res.body.key })).status).toBe(200);
    h.clock.advance(365 * DAY_MS - 1_000);
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: res.body.key })).status).toBe(200);
    h.clock.advance(2_000);
    expectErrorBody(await h.send("GET", "/api/v1/api-keys/current", { auth: res.body.key }), 401);
  });
});

describe("stability tags (spec §9.3-9.4)", () => {
  /**
   * The operations the spec keeps stable: templates, generate, finalizeContent, thesis and mcp. The spec says every
   * other route opened to API keys is beta; this server also tags the session-only operations beta (they are as
   * new), and the description's own route stable (the contract it describes): those two are its choices, pinned too.
   */
  const STABLE = new Set([
    "GET /api/v1/openapi.json",
    "GET /api/v1/templates",
    "GET /api/v1/templates/{id}",
    "POST /api/v1/generate",
    "POST /api/v1/finalizeContent",
    "POST /api/v1/thesis",
    "POST /api/v1/mcp",
  ]);

  it("tags those operations stable and every other operation of the description beta", async () => {
    const h = makeHarness();
    const doc = (await h.send("GET", "/api/v1/openapi.json")).body as {
      paths: Record<string, Record<string, { "x-stability"?: string }>>;
    };
    const seen: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        if (typeof op !== "object" || !op || !("responses" in op)) continue;
        const name = `${method.toUpperCase()} ${path}`;
        seen.push(name);
        expect(op["x-stability"], name).toBe(STABLE.has(name) ? "stable" : "beta");
      }
    for (const name of STABLE) expect(seen, name).toContain(name);
    expect(seen.length).toBeGreaterThan(STABLE.size + 40);
    expect(seen).not.toContain("GET /healthz");
  });

  it("marks a beta operation's answers with X-API-Stability: beta, and a stable one's not", async () => {
    const h = makeHarness();
    const key = h.key();
    const beta = await h.send("GET", "/api/v1/api-keys/current", { auth: key });
    expect(beta.status).toBe(200);
    expect(beta.headers.get("x-api-stability")).toBe("beta");
    const stable = await h.send("GET", "/api/v1/templates", { auth: key });
    expect(stable.status).toBe(200);
    expect(stable.headers.get("x-api-stability")).toBeNull();
  });
});
