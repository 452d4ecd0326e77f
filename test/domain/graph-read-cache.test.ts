/** The knowledge graph's read cache (src/domain/graph-reads.ts): answers by query and graph version, bounded in size. */
import { describe, expect, it } from "vitest";
import {
  CACHED_BYTES,
  CACHED_ENTRIES,
  cachedBytes,
  type EntitiesQuery,
  GraphReadCache,
  type Overview,
  type OverviewQuery,
  type VersionedRead,
} from "../../src/domain/graph-reads.js";

const query = (limit: number): OverviewQuery => ({
  kind: "overview",
  workspaceId: "ws_1",
  type: null,
  limit,
  minWeight: 1,
  edgeLimit: 500,
  after: null,
});
const search = (q: string): EntitiesQuery => ({
  kind: "entities",
  workspaceId: "ws_1",
  q,
  type: null,
  limit: 21,
  after: null,
  related: 5,
});
/** An overview of `n` nodes, each naming `sourcesChars` characters of sources. */
const overview = (n: number, sourcesChars = 2): Overview => ({
  nodes: Array.from({ length: n }, (_, i) => ({
    id: `e${i}`,
    label: `E${i}`,
    type: "proper_noun" as const,
    mentions: 1,
    source_count: 1,
    sources: "x".repeat(sourcesChars),
  })),
  edges: [],
  hasMore: false,
  hasMoreEdges: false,
  updatedAt: null,
});

/** A cache and a loader that counts its reads. */
function counted() {
  const cache = new GraphReadCache();
  let loads = 0;
  const read = (q: OverviewQuery | EntitiesQuery, version: string, value: VersionedRead["value"] = overview(1)) =>
    cache.read(q, version, async () => {
      loads++;
      return { version, value };
    });
  return { cache, read, loads: () => loads };
}

describe("the graph read cache", () => {
  it("answers a query from memory only at the version it was read at", async () => {
    const { read, loads } = counted();
    const first = await read(query(3), "1|");
    expect(await read(query(3), "1|")).toBe(first);
    expect(loads()).toBe(1);
    await read(query(4), "1|");
    expect(loads()).toBe(2);
    // A newer version reads again.
    expect(await read(query(3), "2|")).not.toBe(first);
    expect(loads()).toBe(3);
  });

  it("runs one read for the same query asked again while it runs, and keeps no failed one", async () => {
    const cache = new GraphReadCache();
    let loads = 0;
    let finish: (r: VersionedRead) => void = () => {};
    const load = () => {
      loads++;
      return new Promise<VersionedRead>((resolve) => {
        finish = resolve;
      });
    };
    const a = cache.read(query(3), "1|", load);
    const b = cache.read(query(3), "1|", load);
    const value = overview(3);
    finish({ version: "1|", value });
    expect(await a).toBe(value);
    expect(await b).toBe(value);
    expect(loads).toBe(1);
    await expect(cache.read(query(5), "1|", () => Promise.reject(new Error("stopped")))).rejects.toThrow("stopped");
    expect(await cache.read(query(5), "1|", async () => ({ version: "1|", value }))).toBe(value);
  });

  it("counts the bytes of the answers' strings, dropping the least recently used past CACHED_BYTES", async () => {
    const { cache, read, loads } = counted();
    // Two answers of 500 nodes each naming many sources: together over the budget.
    const sources = Math.ceil((CACHED_BYTES * 0.6) / 500);
    const big = overview(500, sources);
    expect(cachedBytes(big)).toBeGreaterThan(CACHED_BYTES / 2);
    await read(query(1), "1|", big);
    await read(query(2), "1|", overview(500, sources));
    expect(cache.usage.entries).toBe(1);
    expect(cache.usage.bytes).toBeLessThanOrEqual(CACHED_BYTES);
    await read(query(2), "1|");
    await read(query(1), "1|");
    expect(loads()).toBe(3);
    // An answer larger than the whole budget is not kept.
    await read(query(9), "1|", overview(10, CACHED_BYTES));
    await read(query(9), "1|", overview(10, CACHED_BYTES));
    expect(loads()).toBe(5);
  });

  it("keeps at most CACHED_ENTRIES answers, empty ones included", async () => {
    const { cache, read } = counted();
    for (let i = 0; i < CACHED_ENTRIES + 50; i++) await read(search(`nothing-${i}`), "1|", []);
    expect(cache.usage.entries).toBe(CACHED_ENTRIES);
    expect(cache.usage.bytes).toBeGreaterThan(0);
  });
});
