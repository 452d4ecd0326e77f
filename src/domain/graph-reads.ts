/**
 * Reading the knowledge graph for GET /knowledge-graph and /knowledge-graph/entities. Nodes and edges come from the
 * workspace's sums (sql/0013_graph_totals.sql), so a read costs about what it returns rather than every co-occurrence
 * of the workspace's documents (which took 1-2 s of queries with tens of dense references); still, an overview of 500
 * nodes can return a hundred thousand edges, and an entity search asks for each result's related entities. On a
 * server they run on a pool thread with a read connection of its own (graphRead), not on the HTTP thread; in tests
 * and one-shot commands, on the caller's store.
 */
import type { EntityType, GraphEdgeRow, GraphNodeRow, RelatedNodeRow } from "../db/graph.js";
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

export type FoundEntity = GraphNodeRow & { related: RelatedNodeRow[] };

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
  return rows.map((n) => ({ ...n, related: graph.relatedNodes(ws, n.id, query.related) }));
}

/** The pool task: the same reads on the thread's own read connection to the database. */
export function graphRead(input: { db: DbLocation; query: OverviewQuery | EntitiesQuery }): Overview | FoundEntity[] {
  return readGraph(threadStore(input.db, { readonly: true }), input.query as OverviewQuery);
}
