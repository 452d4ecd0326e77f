/**
 * A 201 answer names the record it created in `Location` (RFC 9110 §10.2.2), a path that reads it back; an
 * Idempotency-Key replay carries it too, and the description lists it on exactly those answers.
 */
import { describe, expect, it } from "vitest";
import { contract, makeHarness } from "../helpers/harness.js";
import { sessionOf } from "../helpers/http.js";
import { png } from "../helpers/images.js";

describe("Location on 201", () => {
  it("every creating operation answers the path that reads the new record", async () => {
    const h = makeHarness();
    const key = h.key();
    const session = await sessionOf(h, "admin@a.test");
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Plan", content: "# Plan" } });
    const creations: [string, string, unknown, string][] = [
      ["POST", "/api/v1/contents", { title: "Another" }, key],
      ["POST", "/api/v1/generate", { template_id: 1, user_direction: "Quarterly planning in Lisbon" }, key],
      ["POST", "/api/v1/memories", { kind: "voice", title: "Tone", content: "Plain." }, key],
      ["POST", "/api/v1/reference-materials", { title: "Study", format: "text", content: "A finding." }, key],
      ["POST", "/api/v1/conversions", { content_id: draft.body.content_id, target_format: "html" }, key],
      ["POST", "/api/v1/images", { filename: "a.png", data_base64: Buffer.from(png(8, 8)).toString("base64") }, key],
      ["POST", "/api/v1/images/generate", { prompt: "A lighthouse", width: 64, height: 64 }, key],
      ["POST", "/api/v1/workspaces", { name: "Third" }, session],
      ["POST", "/api/v1/templates", { name: "Brief", sections: [{ role: "point", words: 80 }] }, key],
    ];
    expect(draft.headers.get("location")).toBe(`/api/v1/contents/${draft.body.content_id}`);
    for (const [method, path, body, auth] of creations) {
      const res = await h.send(method, path, { auth, body });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
      const location = res.headers.get("location");
      expect(location, path).toMatch(/^\/api\/v1\/[a-z-]+\/\w+$/);
      const read = await h.send("GET", location!, { auth });
      expect(read.status, location!).toBe(200);
      const id = res.body.content_id ?? res.body.id;
      expect(read.body.content_id ?? read.body.id, location!).toBe(id);
    }
  });

  it("carries the path of --public-url, and no host (it resolves against the address the client used)", async () => {
    const h = makeHarness({ config: { publicUrl: "https://example.test/content/" } });
    const res = await h.send("POST", "/api/v1/memories", {
      auth: h.key(),
      body: { kind: "voice", title: "Tone", content: "Plain." },
    });
    expect(res.headers.get("location")).toBe(`/content/api/v1/memories/${res.body.id}`);
  });

  it("a new version (200) has none; a replay of the 201 carries it", async () => {
    const h = makeHarness();
    const key = h.key();
    const headers = { "idempotency-key": "create-memory-1" };
    const body = { kind: "context", title: "Client", content: "Acme." };
    const first = await h.send("POST", "/api/v1/memories", { auth: key, body, headers });
    const replay = await h.send("POST", "/api/v1/memories", { auth: key, body, headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("location")).toBe(`/api/v1/memories/${first.body.id}`);
    const generated = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Quarterly planning in Lisbon" },
    });
    const again = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { content_id: generated.body.content_id, template_id: 1, user_direction: "Shorter, please" },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get("location")).toBeNull();
  });

  it("the description lists Location on the 201 answers that send it", () => {
    const paths = contract.document.paths as Record<
      string,
      Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
    >;
    const listing = Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.responses["201"]?.headers?.Location !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(listing.sort()).toEqual(
      [
        "POST /api/v1/contents",
        "POST /api/v1/conversions",
        "POST /api/v1/generate",
        "POST /api/v1/images",
        "POST /api/v1/images/generate",
        "POST /api/v1/memories",
        "POST /api/v1/reference-materials",
        "POST /api/v1/templates",
        "POST /api/v1/workspaces",
      ].sort(),
    );
  });
});
