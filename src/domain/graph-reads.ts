/**
 * Reading the knowledge graph for GET /knowledge-graph and /knowledge-graph/entities. The edges among the returned
 * nodes are summed over every co-occurrence of the workspace's documents, and an entity search asks for each result's
 * related entities: with dense documents (tens of references of many names a sentence) an answer took 1-2 s of
 * queries. On a server they run on a pool thread with a read connection of its own (graphRead), not on the HTTP
 * thread; in tests and one-shot commands, on the caller's store.
 */
import type { EntityType, GraphEdgeRow, GraphNodeRow } from "../db/graph.js";
import type { Store } from "../db/store.js";
import { type DbLocation, threadStore } from "../db/thread-store.js";

/** The graph's nodes (by mentions), the edges among them, and when it last caught up. */
export interface OverviewQuery {
  kind: "overview";
  workspaceId: string;
  type: EntityType | null;
  limit: number;
  minWeight: number;
}

/** Entities whose label matches, each with its most related entities. */
export interface EntitiesQuery {
  kind: "entities";
  workspaceId: string;
  q: string;
  type: EntityType | null;
  limit: number;
  offset: number;
  related: number;
}

export interface Overview {
  nodes: GraphNodeRow[];
  edges: GraphEdgeRow[];
  updatedAt: string | null;
}

export type FoundEntity = GraphNodeRow & {
  related: { id: string; label: string; type: EntityType; weight: number }[];
};

export function readGraph(store: Store, query: OverviewQuery): Overview;
export function readGraph(store: Store, query: EntitiesQuery): FoundEntity[];
export function readGraph(store: Store, query: OverviewQuery | EntitiesQuery): Overview | FoundEntity[] {
  const graph = store.graph;
  const ws = query.workspaceId;
  if (query.kind === "overview") {
    const nodes = graph.nodes(ws, query.type, query.limit);
    const edges = graph.edges(
      ws,
      nodes.map((n) => n.id),
      query.minWeight,
    );
    return { nodes, edges, updatedAt: graph.updatedAt(ws) };
  }
  const rows = graph.search({
    workspaceId: ws,
    q: query.q,
    type: query.type,
    limit: query.limit,
    offset: query.offset,
  });
  return rows.map((n) => {
    const related = graph.related(ws, n.id, query.related);
    const others = new Map(
      graph
        .nodesByIds(
          ws,
          related.map((r) => r.id),
        )
        .map((o) => [o.id, o]),
    );
    return {
      ...n,
      related: related.flatMap((r) => {
        const o = others.get(r.id);
        return o ? [{ id: o.id, label: o.label, type: o.type, weight: r.weight }] : [];
      }),
    };
  });
}

/** A read's answer with the graph version it was read at (GraphQueries.version). */
export interface VersionedRead<T = Overview | FoundEntity[]> {
  version: string;
  value: T;
}

/** Reads in one read transaction, so that the answer and its version are of one state of the graph. */
export function readGraphAt(store: Store, query: OverviewQuery | EntitiesQuery): VersionedRead {
  return store.db
    .transaction(() => ({
      version: store.graph.version(query.workspaceId),
      value: readGraph(store, query as OverviewQuery),
    }))
    .deferred();
}

/** The pool task: the same reads on the thread's own read connection to the database. */
export function graphRead(input: { db: DbLocation; query: OverviewQuery | EntitiesQuery }): VersionedRead {
  return readGraphAt(threadStore(input.db, { readonly: true }), input.query);
}

/** How many nodes, edges and related entities the cache holds at most, over all its answers. */
export const CACHED_ITEMS = 200_000;

/**
 * Answers of graph reads kept in memory while their graph's version is current: a workspace's graph changes only when
 * a source is taken in or removed, and reading a dense one costs up to seconds of a pool thread. The least recently
 * used answers go first, past CACHED_ITEMS items in all (tens of megabytes at most); an answer larger than that is
 * not kept.
 */
export class GraphReadCache {
  private entries = new Map<string, { version: string; value: Overview | FoundEntity[]; items: number }>();
  private items = 0;

  /** The answer kept for `query` at `version`, or undefined. */
  get(query: OverviewQuery | EntitiesQuery, version: string): Overview | FoundEntity[] | undefined {
    const key = JSON.stringify(query);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.version !== version) {
      this.items -= entry.items;
      return undefined;
    }
    // Most recently used last.
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps an answer read at `version`. */
  set(query: OverviewQuery | EntitiesQuery, read: VersionedRead): void {
    const key = JSON.stringify(query);
    const items = sizeOf(read.value);
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.items -= old.items;
    }
    if (items > CACHED_ITEMS) return;
    this.entries.set(key, { ...read, items });
    this.items += items;
    for (const [k, e] of this.entries) {
      if (this.items <= CACHED_ITEMS) break;
      this.entries.delete(k);
      this.items -= e.items;
    }
  }

  /** How many answers are kept. */
  get size(): number {
    return this.entries.size;
  }
}

function sizeOf(value: Overview | FoundEntity[]): number {
  if (Array.isArray(value)) return value.reduce((n, e) => n + 1 + e.related.length, 0);
  return value.nodes.length + value.edges.length;
}
