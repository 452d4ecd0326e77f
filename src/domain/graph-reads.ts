/**
 * Reading the knowledge graph for GET /knowledge-graph and /knowledge-graph/entities. The edges among the returned
 * nodes are summed over every co-occurrence of the workspace's documents, and an entity search asks for each result's
 * related entities: with dense documents (tens of references of many names a sentence) an answer took 1-2 s of
 * queries. On a server they run on a pool thread with a read connection of its own (graphRead), not on the HTTP
 * thread; in tests and one-shot commands, on the caller's store.
 */
import type { EntityType, FoundNodeRow, GraphEdgeRow, GraphNodeRow, NodeKey, SearchKey } from "../db/graph.js";
import type { Store } from "../db/store.js";
import { type DbLocation, threadStore } from "../db/thread-store.js";

/** The graph's nodes (by mentions), the edges among them, and when it last caught up. */
export interface OverviewQuery {
  kind: "overview";
  workspaceId: string;
  type: EntityType | null;
  limit: number;
  minWeight: number;
  /** The most edges to return, the heaviest. */
  edgeLimit: number;
  /** The sort key of the previous page's last node (the cursor), or null for the first page. */
  after: NodeKey | null;
}

/** Entities whose label matches, each with its most related entities. */
export interface EntitiesQuery {
  kind: "entities";
  workspaceId: string;
  q: string;
  type: EntityType | null;
  limit: number;
  /** The sort key of the previous page's last row (the cursor), or null for the first page. */
  after: SearchKey | null;
  related: number;
}

/** The knowledge graph's overview: its strongest nodes and the edges between them. */
export interface Overview {
  nodes: GraphNodeRow[];
  edges: GraphEdgeRow[];
  /** More entities match than the limit let through. */
  hasMore: boolean;
  /** More edges join the nodes than the edge limit let through. */
  hasMoreEdges: boolean;
  updatedAt: string | null;
}

/** An entity a search found, with the entities most often mentioned beside it. */
export type FoundEntity = FoundNodeRow & {
  related: { id: string; label: string; type: EntityType; weight: number }[];
};

/** Reads the overview or an entity search of a workspace's graph from the store. */
export function readGraph(store: Store, query: OverviewQuery): Overview;
export function readGraph(store: Store, query: EntitiesQuery): FoundEntity[];
export function readGraph(store: Store, query: OverviewQuery | EntitiesQuery): Overview | FoundEntity[] {
  const graph = store.graph;
  const ws = query.workspaceId;
  if (query.kind === "overview") {
    // One more than asked for tells whether the limit cut the graph short.
    const nodes = graph.nodes(ws, query.type, query.limit + 1, query.after);
    const hasMore = nodes.length > query.limit;
    if (hasMore) nodes.pop();
    const edges = graph.edges(
      ws,
      nodes.map((n) => n.id),
      query.minWeight,
      query.edgeLimit + 1,
    );
    const hasMoreEdges = edges.length > query.edgeLimit;
    if (hasMoreEdges) edges.pop();
    return { nodes, edges, hasMore, hasMoreEdges, updatedAt: graph.updatedAt(ws) };
  }
  const rows = graph.search({
    workspaceId: ws,
    q: query.q,
    type: query.type,
    limit: query.limit,
    after: query.after,
  });
  return rows.map((n) => {
    const related = graph.related(ws, n.id, query.related);
    const others = new Map(
      graph
        .labelsOf(
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
  return store.readTransaction(() => ({
    version: store.graph.version(query.workspaceId),
    value: readGraph(store, query as OverviewQuery),
  }));
}

/** The pool task: the same reads on the thread's own read connection to the database. */
export function graphRead(input: { db: DbLocation; query: OverviewQuery | EntitiesQuery }): VersionedRead {
  return readGraphAt(threadStore(input.db, { readonly: true }), input.query);
}

/** About how many bytes of answers the cache holds at most (estimated from their strings: cachedBytes). */
export const CACHED_BYTES = 32 * 1024 * 1024;
/** How many answers it holds at most, however small (an empty search's answer still costs its entry). */
export const CACHED_ENTRIES = 2_000;

type Answer = Overview | FoundEntity[];

/**
 * Answers of graph reads kept in memory while their graph's version is current: a workspace's graph changes only when
 * a source is taken in or removed, and reading a dense one costs up to seconds of a pool thread. Bounded by
 * CACHED_BYTES and CACHED_ENTRIES, the least recently used answers going first; an answer larger than the whole
 * budget is not kept. The same read asked again while it runs waits for it instead of running twice.
 */
export class GraphReadCache {
  private entries = new Map<string, { version: string; value: Answer; bytes: number }>();
  private running = new Map<string, Promise<VersionedRead>>();
  private bytes = 0;

  /** The answer to `query` at `version`: kept, being read, or read by `load` (and kept). */
  async read(
    query: OverviewQuery | EntitiesQuery,
    version: string,
    load: () => Promise<VersionedRead>,
  ): Promise<Answer> {
    const key = JSON.stringify(query);
    const kept = this.get(key, version);
    if (kept) return kept;
    const id = `${version}\u0000${key}`;
    let pending = this.running.get(id);
    if (!pending) {
      pending = load();
      this.running.set(id, pending);
      pending.then(
        (read) => {
          this.running.delete(id);
          this.set(key, read);
        },
        () => this.running.delete(id),
      );
    }
    return (await pending).value;
  }

  private get(key: string, version: string): Answer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.version !== version) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    // Most recently used last.
    this.entries.set(key, entry);
    return entry.value;
  }

  private set(key: string, read: VersionedRead): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    const bytes = key.length + read.version.length + cachedBytes(read.value);
    if (bytes > CACHED_BYTES) return;
    this.entries.set(key, { ...read, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= CACHED_BYTES && this.entries.size <= CACHED_ENTRIES) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }

  /** How many answers are kept, and about how many bytes they take. */
  get usage(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/** Per object and per string, about what V8 spends beyond the characters. */
const OBJECT_BYTES = 64;

/** An answer's size: its strings (a node's sources, its first SOURCES_INLINE) and its objects. */
export function cachedBytes(value: Answer): number {
  const node = (n: GraphNodeRow) => OBJECT_BYTES + n.id.length + n.label.length + n.sources.length + n.type.length;
  if (Array.isArray(value))
    return value.reduce(
      (sum, e) =>
        sum + node(e) + e.related.reduce((r, o) => r + OBJECT_BYTES + o.id.length + o.label.length + o.type.length, 0),
      OBJECT_BYTES,
    );
  return value.nodes.reduce(
    (sum, n) => sum + node(n),
    value.edges.reduce((sum, e) => sum + OBJECT_BYTES + e.source.length + e.target.length, OBJECT_BYTES),
  );
}
