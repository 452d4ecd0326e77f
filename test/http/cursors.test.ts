/**
 * A list's cursor goes only with the list that issued it (src/http/cursors.ts): another list, filter or workspace
 * answers 400 validation_failed on query.cursor instead of a page read from somewhere else in its rows.
 */
import { describe, expect, it } from "vitest";
import { extractGraph, MAX_ENTITY_ID_BYTES } from "../../src/domain/graph-extract.js";
import { MAX_CURSOR_CHARS } from "../../src/http/schemas.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

async function draft(h: Harness, key: string, ws: string, title: string) {
  const res = await h.send("POST", `/api/v1/contents?workspace_id=${ws}`, {
    auth: key,
    body: { title, content: "Some text." },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.content_id as number;
}

const ids = (res: { body: { data: { content_id: number }[] } }) => res.body.data.map((c) => c.content_id);

describe("cursors bound to their list", () => {
  it("refuses a cursor of another workspace, filter or list; limit may change between pages", async () => {
    const h = makeHarness();
    const key = h.key();
    const inA = [await draft(h, key, h.a.ws1, "a1"), await draft(h, key, h.a.ws1, "a2")];
    const inB = [
      await draft(h, key, h.a.ws2, "b1"),
      await draft(h, key, h.a.ws2, "b2"),
      await draft(h, key, h.a.ws2, "b3"),
    ];
    const first = await h.send("GET", `/api/v1/contents?workspace_id=${h.a.ws1}&limit=1`, { auth: key });
    expect(ids(first)).toEqual([inA[0]]);
    const cursor = first.body.next_cursor as string;

    // Workspace B's list with A's cursor had skipped B's records before inA[0].
    for (const query of [
      `workspace_id=${h.a.ws2}`,
      `workspace_id=${h.a.ws1}&status=draft`,
      `workspace_id=${h.a.ws1}&planned_from=2026-01-01`,
    ]) {
      const res = await h.send("GET", `/api/v1/contents?${query}&cursor=${cursor}`, { auth: key });
      const details = expectErrorBody(res, 400, "validation_failed");
      expect(details.issues).toEqual([{ path: "query.cursor", message: expect.stringContaining("another list") }]);
    }
    const memories = await h.send("GET", `/api/v1/memories?workspace_id=${h.a.ws1}&cursor=${cursor}`, { auth: key });
    expectErrorBody(memories, 400, "validation_failed");
    // The same list with another limit goes on.
    const next = await h.send("GET", `/api/v1/contents?workspace_id=${h.a.ws1}&limit=5&cursor=${cursor}`, {
      auth: key,
    });
    expect(next.status).toBe(200);
    expect(ids(next)).toEqual([inA[1]]);
    expect(inB).toHaveLength(3);
  });

  it("binds to the account and to the workspace a key is bound to", async () => {
    const h = makeHarness();
    const key = h.key();
    await draft(h, key, h.a.ws1, "a1");
    await draft(h, key, h.a.ws1, "a2");
    const first = await h.send("GET", "/api/v1/contents?limit=1", { auth: key });
    expect(first.body.has_more).toBe(true);
    const cursor = first.body.next_cursor as string;
    // Another key of the account, unbound (the same default workspace): the same list.
    expect((await h.send("GET", `/api/v1/contents?limit=1&cursor=${cursor}`, { auth: h.key() })).status).toBe(200);
    for (const other of [h.key({ workspaceId: h.a.ws2 }), h.key({ account: h.b.id })]) {
      const res = await h.send("GET", `/api/v1/contents?limit=1&cursor=${cursor}`, { auth: other });
      expectErrorBody(res, 400, "validation_failed");
    }
  });

  it("takes a cursor issued before cursors were bound (a server upgraded during a walk)", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await draft(h, key, h.a.ws1, "a1");
    const second = await draft(h, key, h.a.ws1, "a2");
    const old = Buffer.from(JSON.stringify(first)).toString("base64url");
    const res = await h.send("GET", `/api/v1/contents?cursor=${old}`, { auth: key });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([second]);
  });

  it("a bound key's workspace list of one leaves its workspace out after a cursor, and checks the cursor", async () => {
    const h = makeHarness();
    const bound = h.key({ workspaceId: h.a.ws2 });
    const garbage = await h.send("GET", "/api/v1/workspaces?cursor=garbage", { auth: bound });
    expectErrorBody(garbage, 400, "validation_failed");
    const after = Buffer.from(JSON.stringify(h.a.ws2)).toString("base64url");
    const res = await h.send("GET", `/api/v1/workspaces?cursor=${after}`, { auth: bound });
    expect(res.body).toEqual({ data: [], has_more: false, next_cursor: null });
  });
});

describe("cursors on routes that are not lists", () => {
  it("are ignored, as any unknown query parameter is", async () => {
    const h = makeHarness();
    const key = h.key();
    const id = await draft(h, key, h.a.ws1, "a1");
    for (const path of ["/api/v1/users/me", `/api/v1/contents/${id}`, "/api/v1/users/me/entitlements"]) {
      const res = await h.send("GET", `${path}?cursor=a.b`, { auth: key });
      expect(res.status, path).toBe(200);
      expect(res.body).not.toHaveProperty("next_cursor");
    }
  });
});

describe("the knowledge graph's entity cursors", () => {
  it("walk past an entity whose id is near the longest kept", async () => {
    const h = makeHarness();
    const key = h.key();
    const long = `Zq${"x".repeat(180)}`;
    const text = [
      ...Array.from({ length: 5 }, (_, i) => `We met ${long} Corp today number ${i}.`),
      ...Array.from({ length: 2 }, (_, i) => `We met Zqy Corp today number ${i}.`),
    ].join(" ");
    const added = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { content: text, format: "text" },
    });
    expect(added.status).toBe(201);
    await h.services.graph.idle();
    const first = await h.send("GET", "/api/v1/knowledge-graph/entities?q=zq&limit=1", { auth: key });
    expect(first.body.data[0].id).toBe(`${long.toLowerCase()}-corp`);
    expect(first.body.next_cursor.length).toBeGreaterThan(200);
    const next = await h.send("GET", `/api/v1/knowledge-graph/entities?q=zq&limit=1&cursor=${first.body.next_cursor}`, {
      auth: key,
    });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.data.map((e: { id: string }) => e.id)).toEqual(["zqy-corp"]);
  });

  it("keep their entity ids short enough for a cursor: a 'name' of over 200 bytes is no entity", () => {
    const long = `Zq${"x".repeat(300)}`;
    const text = `We met ${long} Corp today. Then ${long} Corp left. We met Acme Corp today. Then Acme Corp left.`;
    const found = extractGraph({ text, format: "plain" }).entities.map((e) => e.id);
    expect(found).toContain("acme-corp");
    expect(found.every((id) => Buffer.byteLength(id) <= MAX_ENTITY_ID_BYTES)).toBe(true);
    // The longest entity cursor: rank, mentions and a 200-byte id, in base64url, with its tag.
    const longest = Buffer.from(JSON.stringify(`2:${"9".repeat(15)}:${"é".repeat(100)}`)).toString("base64url");
    expect(longest.length + 12).toBeLessThanOrEqual(MAX_CURSOR_CHARS);
  });
});
