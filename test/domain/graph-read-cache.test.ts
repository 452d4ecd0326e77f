/** The knowledge graph's read cache (src/domain/graph-reads.ts): answers by query and graph version, bounded in size. */
import { describe, expect, it } from "vitest";
import { CACHED_ITEMS, GraphReadCache, type Overview, type OverviewQuery } from "../../src/domain/graph-reads.js";

const query = (limit: number): OverviewQuery => ({
  kind: "overview",
  workspaceId: "ws_1",
  type: null,
  limit,
  minWeight: 1,
});
/** An overview of `n` nodes and no edges. */
const overview = (n: number): Overview => ({
  nodes: Array.from({ length: n }, (_, i) => ({
    id: `e${i}`,
    label: `E${i}`,
    type: "proper_noun" as const,
    mentions: 1,
    sources: "[]",
  })),
  edges: [],
  updatedAt: null,
});

describe("the graph read cache", () => {
  it("answers a query only at the version it was read at", () => {
    const cache = new GraphReadCache();
    const value = overview(3);
    cache.set(query(3), { version: "1|", value });
    expect(cache.get(query(3), "1|")).toBe(value);
    expect(cache.get(query(4), "1|")).toBeUndefined();
    // A newer version drops the old answer.
    expect(cache.get(query(3), "2|")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("keeps at most CACHED_ITEMS items, dropping the least recently used first, and no answer larger than that", () => {
    const cache = new GraphReadCache();
    const half = Math.floor(CACHED_ITEMS / 2);
    cache.set(query(1), { version: "1|", value: overview(half) });
    cache.set(query(2), { version: "1|", value: overview(half) });
    // Used: query 2 is now the older one.
    expect(cache.get(query(1), "1|")).toBeDefined();
    cache.set(query(3), { version: "1|", value: overview(10) });
    expect(cache.get(query(2), "1|")).toBeUndefined();
    expect(cache.get(query(1), "1|")).toBeDefined();
    expect(cache.get(query(3), "1|")).toBeDefined();
    cache.set(query(4), { version: "1|", value: overview(CACHED_ITEMS + 1) });
    expect(cache.get(query(4), "1|")).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
