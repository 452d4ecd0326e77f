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

/** The pool task: the same reads on the thread's own read connection to the database. */
export function graphRead(input: { db: DbLocation; query: OverviewQuery | EntitiesQuery }): Overview | FoundEntity[] {
  return readGraph(threadStore(input.db, { readonly: true }), input.query as OverviewQuery);
}
