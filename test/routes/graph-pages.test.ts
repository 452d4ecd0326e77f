/**
 * The knowledge graph's pages (issue 33): the overview's nodes by cursor, an entity's sources by cursor, and an
 * answer whose size does not grow with the number of sources.
 */
import { describe, expect, it } from "vitest";
import { ACME, addReference, getGraph, type Node } from "../helpers/graph.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

/** A harness whose graph has taken in `n` copies of the ACME reference. */
async function graphOf(n: number) {
  const h = makeHarness();
  const key = h.key();
  const ids = [];
  for (let i = 0; i < n; i++) ids.push(await addReference(h, key, ACME));
  await h.services.graph.idle();
  return { h, key, ids };
}

describe("GET /api/v1/knowledge-graph pages", () => {
  it("walks every node once by next_cursor, most mentioned first", async () => {
    const { h, key } = await graphOf(3);
    const whole = await getGraph(h, key);
    expect(whole.body.has_more).toBe(false);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await getGraph(h, key, `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.nodes.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.nodes.map((n: Node) => n.id));
      cursor = res.body.next_cursor;
      expect(cursor !== null).toBe(res.body.has_more);
    } while (cursor);
    expect(seen).toEqual(whole.body.nodes.map((n: Node) => n.id));
    expectErrorBody(await getGraph(h, key, "cursor=nonsense"), 400, "validation_failed");
  });

  it("keeps each node's sources to its first ten and counts the rest, so the answer does not grow", async () => {
    const small = await graphOf(10);
    const large = await graphOf(30);
    const a = await getGraph(small.h, small.key);
    const b = await getGraph(large.h, large.key);
    const acme = b.body.nodes.find((n: Node) => n.id === "acme-corp");
    expect(acme).toMatchObject({ source_count: 30, mentions: 60 });
    expect(acme.sources).toEqual(large.ids.slice(0, 10).map((id) => ({ kind: "reference", id })));
    expect(b.body.nodes.map((n: Node) => n.id)).toEqual(a.body.nodes.map((n: Node) => n.id));
    // Only the digits of counts and ids may differ.
    expect(JSON.stringify(b.body).length).toBeLessThan(JSON.stringify(a.body).length * 1.1);
  });
});

describe("GET /api/v1/knowledge-graph/entities/{entityId}/sources", () => {
  it("pages every source of an entity once, and is 404 for an entity not in the workspace", async () => {
    const { h, key, ids } = await graphOf(12);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await h.send(
        "GET",
        `/api/v1/knowledge-graph/entities/acme-corp/sources?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        { auth: key },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...res.body.data.map((s: { kind: string; id: number }) => s.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const missing = await h.send("GET", "/api/v1/knowledge-graph/entities/no-such/sources", { auth: key });
    expectErrorBody(missing, 404, "entity_not_found");
    expect(missing.body.details.entity_id).toBe("no-such");
  });
});
