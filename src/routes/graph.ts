/**
 * The knowledge graph (DESIGN §6, beta, workspace-aware): entities — proper nouns and key phrases — and
 * their co-occurrence, drawn from a workspace's reference materials and finalized or published contents.
 * The graph catches up with its sources in the background; reading it never waits for that.
 */
import * as v from "valibot";
import { type EntityType, type NodeKey, type SearchKey, SOURCES_INLINE } from "../db/graph.js";
import { notFound } from "../domain/errors.js";
import {
  type EntitiesQuery as EntitiesRead,
  type FoundEntity,
  type Overview,
  type OverviewQuery,
  readGraphAt,
} from "../domain/graph-reads.js";
import { graphNodeView } from "../domain/views/graph.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  Integer,
  intString,
  named,
  PageQuery,
  pageOf,
  RecordWorkspaceId,
  TextFilter,
  Timestamp,
  WorkspaceQuery,
} from "../http/schemas.js";
import { AUTH_ERRORS, decodeCursor, encodeCursor, INPUT_ERRORS, NOT_FOUND, notACursor, TASK_ERRORS } from "./common.js";

const TYPES = ["proper_noun", "key_phrase"] as const;

/**
 * Answers a graph read from the cache while the workspace's graph is unchanged; otherwise runs it on the pool when the
 * server has a database file for its threads (graph-reads.ts), and keeps the answer.
 */
function read(ctx: Ctx, query: OverviewQuery | EntitiesRead): Promise<Overview | FoundEntity[]> {
  const { graphReads, location, pool, store } = ctx.services;
  return graphReads.read(query, store.graph.version(query.workspaceId), async () =>
    location ? pool.run("graphRead", { db: location, query }) : readGraphAt(store, query),
  );
}

/** The sort key an entity search's cursor carries (rank:mentions:id), or null without a cursor. */
function searchKeyOf(cursor: string | undefined): SearchKey | null {
  const text = decodeCursor<string>(cursor, "string");
  if (text === undefined) return null;
  const m = /^([0-2]):(\d{1,15}):(.+)$/s.exec(text);
  if (!m) throw notACursor();
  return { rank: Number(m[1]), mentions: Number(m[2]), id: m[3] };
}

/** The sort key an overview's cursor carries (mentions:id), or null without a cursor. */
function nodeKeyOf(cursor: string | undefined): NodeKey | null {
  const text = decodeCursor<string>(cursor, "string");
  if (text === undefined) return null;
  const m = /^(\d{1,15}):(.+)$/s.exec(text);
  if (!m) throw notACursor();
  return { mentions: Number(m[1]), id: m[2] };
}

/** Entities a response names as related to each found entity. */
const RELATED = 5;

const Source = v.object({
  kind: described(v.picklist(["reference", "content"]), "A reference material or a content."),
  id: described(Integer, "Its id."),
});

const Type = described(v.picklist(TYPES), "proper_noun (a name: Acme Corp) or key_phrase (a repeated noun phrase).");
const Node = v.object({
  id: v.pipe(v.string(), v.description("A stable key made of the entity's words.")),
  label: described(v.string(), "The entity as written in the sources."),
  type: Type,
  mentions: v.pipe(Integer, v.description("Occurrences over all sources.")),
  source_count: described(Integer, "How many reference materials and contents mention it."),
  sources: v.pipe(
    v.array(Source),
    v.description(
      `The first ${SOURCES_INLINE} reference materials and contents that mention it, in the order the graph took them ` +
        "in; GET /knowledge-graph/entities/{entityId}/sources pages them all.",
    ),
  ),
});

const Edge = v.object({
  source: described(v.string(), "One entity's id."),
  target: described(v.string(), "The other entity's id."),
  weight: v.pipe(Integer, v.description("The number of sentences in which both entities occur.")),
});

/** A workspace's entities and their relations (named KnowledgeGraph in the description). */
const GraphSchema = named(
  "KnowledgeGraph",
  v.object({
    workspace_id: RecordWorkspaceId,
    nodes: described(v.array(Node), "The most mentioned entities (then by id), at most `limit`: a page of them."),
    edges: v.pipe(
      v.array(Edge),
      v.description("Edges between the returned nodes, heaviest first: at most `edge_limit` of them."),
    ),
    has_more_edges: v.pipe(
      v.boolean(),
      v.description(
        "More edges join the returned nodes than `edge_limit` let through: the lightest are left out (raise " +
          "`edge_limit` or `min_weight`).",
      ),
    ),
    has_more: v.pipe(
      v.boolean(),
      v.description(
        "More entities match than `limit` let through: `nodes` holds the most mentioned ones only (next_cursor reads the next page).",
      ),
    ),
    next_cursor: v.pipe(
      v.nullable(v.string()),
      v.description("The cursor of the next page of nodes (less mentioned), or null on the last page."),
    ),
    updated_at: v.pipe(
      v.nullable(Timestamp),
      v.description("When the graph last caught up with its sources; null before it first has."),
    ),
    pending_sources: v.pipe(
      Integer,
      v.description("Sources changed since then and not yet taken in (they are being processed)."),
    ),
  }),
);

/** An entity found by a search, with the ones related to it (named Entity in the description). */
const Entity = named(
  "Entity",
  v.object({
    ...Node.entries,
    related: v.pipe(
      v.array(
        v.object({
          id: described(v.string(), "The related entity's id."),
          label: described(v.string(), "Its label."),
          type: Type,
          weight: described(Integer, "The number of sentences in which both occur."),
        }),
      ),
      v.description(`Up to ${RELATED} entities most often in a sentence with this one.`),
    ),
  }),
);

const NODE_EXAMPLE = {
  id: "acme-corp",
  label: "Acme Corp",
  type: "proper_noun",
  mentions: 4,
  source_count: 2,
  sources: [
    { kind: "reference", id: 7 },
    { kind: "content", id: 42 },
  ],
};

const GraphQuery = v.object({
  ...WorkspaceQuery,
  type: v.optional(described(v.picklist(TYPES), "Only entities of this type.")),
  min_weight: v.optional(intString(1, 1_000_000, "Only edges of at least this weight."), "1"),
  limit: v.optional(intString(1, 500, "The most entities to return, 1 to 500."), "100"),
  edge_limit: v.optional(
    intString(1, 5_000, "The most edges to return, the heaviest, 1 to 5,000: the answer's size stays bounded."),
    "500",
  ),
  cursor: PageQuery.cursor,
});
type GraphInput = v.InferOutput<typeof GraphQuery>;

const EntitiesQuery = v.object({
  ...WorkspaceQuery,
  q: v.optional(TextFilter(200, "Text the labels contain (case-insensitive); without it, every entity.")),
  type: v.optional(described(v.picklist(TYPES), "Only entities of this type.")),
  limit: v.optional(intString(1, 100, "How many entities a page holds, 1 to 100."), "20"),
  cursor: PageQuery.cursor,
});
type EntitiesInput = v.InferOutput<typeof EntitiesQuery>;

const EntityParams = v.object({
  entityId: described(v.pipe(v.string(), v.minLength(1), v.maxLength(200)), "The entity's id."),
});

const SourcesQuery = v.object({ ...WorkspaceQuery, ...PageQuery });
type SourcesInput = v.InferOutput<typeof SourcesQuery>;

/** A source of an entity (named EntitySource in the description). */
const EntitySource = named("EntitySource", Source);

const common = {
  tag: "Knowledge graph",
  stability: "beta",
  access: "any",
  workspace: "required",
} as const;

/** The knowledge-graph routes: a workspace's overview and its entities. */
export const graphRoutes = [
  route({
    ...common,
    method: "GET",
    path: "/api/v1/knowledge-graph",
    operationId: "getKnowledgeGraph",
    summary:
      "The workspace's knowledge graph: a page of its entities, most mentioned first (filters: type, limit), and " +
      "the co-occurrence edges between them of at least min_weight",
    description:
      "Reads the entities (proper nouns and repeated key phrases) of a workspace's reference materials and finalized " +
      "or published contents, and the edges between entities that share sentences: what the workspace writes " +
      "about, to pick references or spot gaps. Nodes come a page at a time, most mentioned first (next_cursor), " +
      "each with its source_count and first sources; the edges are those among the page's nodes. Sources are taken in after the request that changed them has answered " +
      "(pending_sources counts those not yet in). Changes nothing.",
    query: GraphQuery,
    responses: {
      200: {
        description: "The graph.",
        schema: GraphSchema,
        example: {
          workspace_id: "ws_4fT9sK2mQ8zL1xWc",
          nodes: [NODE_EXAMPLE, { ...NODE_EXAMPLE, id: "ballast-mounts", label: "ballast mounts", type: "key_phrase" }],
          edges: [{ source: "acme-corp", target: "ballast-mounts", weight: 2 }],
          has_more_edges: false,
          has_more: false,
          next_cursor: null,
          updated_at: "2026-03-02T10:02:10.000Z",
          pending_sources: 0,
        },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
      ...TASK_ERRORS,
    },
    async handler(ctx: Ctx<Record<string, string>, GraphInput>) {
      const ws = ctx.workspace.id;
      // Sources the graph has not taken in (data from before it existed, a change lost to a restart) are
      // queued here; this answer shows the graph as it is.
      const pending = ctx.services.graph.behind(ws);
      const { nodes, edges, hasMore, hasMoreEdges, updatedAt } = (await read(ctx, {
        kind: "overview",
        workspaceId: ws,
        type: (ctx.query.type as EntityType | undefined) ?? null,
        limit: ctx.query.limit,
        minWeight: ctx.query.min_weight,
        edgeLimit: ctx.query.edge_limit,
        after: nodeKeyOf(ctx.query.cursor),
      })) as Overview;
      const last = nodes.at(-1);
      return {
        body: {
          workspace_id: ws,
          nodes: nodes.map(graphNodeView),
          edges,
          has_more_edges: hasMoreEdges,
          has_more: hasMore,
          next_cursor: hasMore && last ? encodeCursor(`${last.mentions}:${last.id}`) : null,
          updated_at: updatedAt,
          pending_sources: pending,
        },
      };
    },
  }),
  route({
    ...common,
    method: "GET",
    path: "/api/v1/knowledge-graph/entities",
    operationId: "searchKnowledgeGraphEntities",
    summary:
      "Search the workspace's entities by label (case-insensitive), each with its most related entities: best match " +
      "first (the label's start, then a word's start, then anywhere), then most mentioned first",
    description:
      "Finds entities of a workspace's knowledge graph whose label contains q, best match first, a page at a time, " +
      "each with the five entities most often in a sentence with it. Changes nothing.",
    query: EntitiesQuery,
    responses: {
      200: {
        description: "A page of entities.",
        schema: pageOf(Entity),
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
      ...TASK_ERRORS,
    },
    async handler(ctx: Ctx<Record<string, string>, EntitiesInput>) {
      const ws = ctx.workspace.id;
      ctx.services.graph.behind(ws);
      const rows = (await read(ctx, {
        kind: "entities",
        workspaceId: ws,
        q: (ctx.query.q ?? "").toLowerCase(),
        type: (ctx.query.type as EntityType | undefined) ?? null,
        limit: ctx.query.limit + 1,
        after: searchKeyOf(ctx.query.cursor),
        related: RELATED,
      })) as FoundEntity[];
      const has_more = rows.length > ctx.query.limit;
      const found = rows.slice(0, ctx.query.limit);
      const data = found.map((n) => ({ ...graphNodeView(n), related: n.related }));
      const last = found.at(-1);
      return {
        body: {
          data,
          has_more,
          next_cursor: has_more && last ? encodeCursor(`${last.rank}:${last.mentions}:${last.id}`) : null,
        },
      };
    },
  }),
  route({
    ...common,
    method: "GET",
    path: "/api/v1/knowledge-graph/entities/{entityId}/sources",
    operationId: "listKnowledgeGraphEntitySources",
    summary:
      "The reference materials and contents that mention an entity, in the order the graph took them in, a page " +
      "at a time",
    description:
      "Lists every source of an entity of the workspace's knowledge graph (its source_count), in the order the graph " +
      "took them in: the nodes of GET /knowledge-graph carry only the first ones. Changes nothing.",
    params: EntityParams,
    query: SourcesQuery,
    responses: {
      200: { description: "A page of the entity's sources.", schema: pageOf(EntitySource) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace or entity"),
    },
    handler(ctx: Ctx<{ entityId: string }, SourcesInput>) {
      const ws = ctx.workspace.id;
      const id = ctx.params.entityId;
      const graph = ctx.services.store.graph;
      // An index range of the entity's mentions (graph_mentions_entity): O(page), so on this thread.
      if (!graph.node(ws, id))
        throw notFound("entity_not_found", `No entity ${id} in workspace ${ws}'s knowledge graph.`, { entity_id: id });
      const after = decodeCursor<number>(ctx.query.cursor, "number") ?? 0;
      const rows = graph.sourcesOf(ws, id, after, ctx.query.limit + 1);
      const has_more = rows.length > ctx.query.limit;
      const found = rows.slice(0, ctx.query.limit);
      const last = found.at(-1);
      return {
        body: {
          data: found.map((r) => ({ kind: r.kind, id: r.id })),
          has_more,
          next_cursor: has_more && last ? encodeCursor(last.document) : null,
        },
      };
    },
  }),
];
