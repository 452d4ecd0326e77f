/**
 * Queries on the knowledge graph: what each source document yielded, summed per workspace into nodes and edges (the
 * sums kept by triggers, sql/0013_graph_totals.sql).
 */
import type { Db } from "./open.js";

export type EntityType = "proper_noun" | "key_phrase";
export type SourceKind = "reference" | "content";

/** A source of a workspace's graph: a reference material, or a finalized or published content at a version. */
export interface GraphSource {
  kind: SourceKind;
  id: number;
  version: number;
}

/** A node: an entity summed over the documents that mention it; `sources` is JSON text. */
export interface GraphNodeRow {
  id: string;
  label: string;
  type: EntityType;
  mentions: number;
  sources: string;
}

/** An edge: two entities and the number of sentences they share. */
export interface GraphEdgeRow {
  source: string;
  target: string;
  weight: number;
}

/** An entity related to another: its label and type, and the number of sentences they share. */
export interface RelatedNodeRow {
  id: string;
  label: string;
  type: EntityType;
  weight: number;
}

/** What extraction found in one document. */
export interface ExtractedDocument {
  entities: { id: string; label: string; type: EntityType; mentions: number }[];
  pairs: { source: string; target: string; weight: number }[];
}

const SOURCE_KIND = "CASE WHEN d.reference_id IS NULL THEN 'content' ELSE 'reference' END";

/**
 * The columns of a node from its row `t` of graph_entity_totals (sql/0013_graph_totals.sql): its best label and its
 * sources are read from its own document rows, so a query computes them only for the nodes it returns, after
 * choosing those from the totals (a MATERIALIZED page: otherwise SQLite would compute them for every candidate row
 * before its ORDER BY ... LIMIT, as the former per-document sums did for every entity of the workspace).
 */
const nodeColumns = (t: string) => `${t}.entity AS id, ${t}.type AS type, ${t}.mentions AS mentions,
  (SELECT json_group_array(json_object('kind', ${SOURCE_KIND}, 'id', coalesce(d.reference_id, d.content_id)))
   FROM graph_mentions AS m JOIN graph_documents AS d ON d.id = m.document_id
   WHERE m.workspace_id = @ws AND m.entity = ${t}.entity) AS sources,
  ${labelOf(`${t}.entity`)} AS label`;

/** The best label of the entity `entity`: of a proper noun first, then of the most mentions, then the first. */
function labelOf(entity: string) {
  return `(SELECT l.label FROM graph_mentions AS l WHERE l.workspace_id = @ws AND l.entity = ${entity}
   ORDER BY l.type = 'proper_noun' DESC, l.mentions DESC, l.label LIMIT 1)`;
}

/** The most mentioned nodes of a workspace, of the entities in totals `t` that `filter` keeps, ties by id. */
const topNodes = (filter: string) => `
  WITH top AS MATERIALIZED (
    SELECT t.entity, t.type, t.mentions FROM graph_entity_totals AS t
    WHERE t.workspace_id = @ws ${filter} ORDER BY t.mentions DESC, t.entity LIMIT @limit)
  SELECT ${nodeColumns("top")} FROM top ORDER BY top.mentions DESC, top.entity`;

/** How a label `s.search` (lower case) matches `@q`: at its start, at the start of a word, or inside a word. */
const MATCH_RANK = "CASE WHEN instr(s.search, @q) = 1 THEN 0 WHEN instr(s.search, ' ' || @q) > 0 THEN 1 ELSE 2 END";

/**
 * Whether the document `d` is stale: no content with its id is in its workspace, finalized or published, at its
 * version. The index (sql/0009_graph_scans.sql) holds all of that; without INDEXED BY SQLite would look the
 * content up by its id and read status and version from the table row, past the row's two texts.
 */
const STALE = `NOT EXISTS (SELECT 1 FROM contents AS c INDEXED BY contents_graph
  WHERE c.workspace_id = d.workspace_id AND c.status IN ('finalized', 'published') AND c.version_count = d.version
    AND c.id = d.content_id)`;

/** The workspace-wide scans of a catch-up (exported for the tests of their query plans). */
export const GRAPH_SCANS = {
  // Unordered: pendingSources sorts the rows found, where an ORDER BY sorted each half of the union in a temp B-tree.
  pending: `SELECT 'reference' AS kind, r.id AS id, 0 AS version FROM reference_materials AS r
     WHERE r.workspace_id = @ws AND NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.reference_id = r.id)
     UNION ALL
     SELECT 'content', c.id, c.version_count FROM contents AS c
     WHERE c.workspace_id = @ws AND c.status IN ('finalized', 'published')
       AND NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.content_id = c.id AND d.version = c.version_count)`,
  // Reference rows go with their material (cascade); a content's rows are stale when its version moved on, it
  // left the finalized/published statuses or the workspace.
  stale: `SELECT d.id FROM graph_documents AS d
     WHERE d.workspace_id = @ws AND d.content_id IS NOT NULL AND ${STALE}`,
} as const;

/**
 * The reads (exported for the tests of their query plans): each picks what it returns from the totals through a key or
 * an index, then reads document rows only for the nodes it returns.
 */
export const GRAPH_READS = {
  nodes: topNodes(""),
  nodesOfType: topNodes("AND t.type = @type"),
  // Picked by key before ordering: asked for in the order, SQLite walked the workspace's whole rank index instead.
  nodesByIds: `WITH picked AS MATERIALIZED (
       SELECT t.entity, t.type, t.mentions FROM graph_entity_totals AS t
       WHERE t.workspace_id = @ws AND t.entity IN (SELECT value FROM json_each(@ids)))
     SELECT ${nodeColumns("picked")} FROM picked ORDER BY picked.mentions DESC, picked.entity`,
  // Label matches rank first at the start of a label, then at the start of a word, then anywhere; an entity ranks
  // by its best matching label. The labels are read once per distinct label, not per document.
  search: `WITH found AS MATERIALIZED (
       SELECT t.entity, t.type, t.mentions, f.rank FROM (
           SELECT s.entity, min(${MATCH_RANK}) AS rank FROM graph_label_totals AS s
           WHERE s.workspace_id = @ws AND instr(s.search, @q) > 0 GROUP BY s.entity) AS f
         JOIN graph_entity_totals AS t ON t.workspace_id = @ws AND t.entity = f.entity
       WHERE (@type IS NULL OR t.type = @type)
       ORDER BY f.rank, t.mentions DESC, t.entity LIMIT @limit OFFSET @offset)
     SELECT ${nodeColumns("found")} FROM found ORDER BY found.rank, found.mentions DESC, found.entity`,
  // Each id's edges from the key, their other end tested against the ids (`+`: a seek for every pair of ids instead,
  // 250,000 for 500 nodes, was slower than reading the edges).
  edges: `SELECT e.source, e.target, e.weight FROM graph_edge_totals AS e
     WHERE e.workspace_id = @ws AND e.source IN (SELECT value FROM json_each(@ids))
       AND +e.target IN (SELECT value FROM json_each(@ids)) AND e.weight >= @minWeight
     ORDER BY e.weight DESC, e.source, e.target`,
  // An edge is one row (source < target): the entity is at one end of each, once per other entity. INDEXED BY: without
  // it SQLite read every edge of the workspace for the second half.
  related: `SELECT target AS id, weight FROM graph_edge_totals WHERE workspace_id = @ws AND source = @id
     UNION ALL
     SELECT source AS id, weight FROM graph_edge_totals INDEXED BY graph_edge_totals_target
     WHERE workspace_id = @ws AND target = @id
     ORDER BY weight DESC, id LIMIT @limit`,
  // The same with each one's label and type, read for those few only (their sources are not needed).
  relatedNodes: `WITH r AS MATERIALIZED (
       SELECT target AS id, weight FROM graph_edge_totals WHERE workspace_id = @ws AND source = @id
       UNION ALL
       SELECT source AS id, weight FROM graph_edge_totals INDEXED BY graph_edge_totals_target
       WHERE workspace_id = @ws AND target = @id
       ORDER BY weight DESC, id LIMIT @limit)
     SELECT r.id, ${labelOf("r.id")} AS label, t.type, r.weight
     FROM r JOIN graph_entity_totals AS t ON t.workspace_id = @ws AND t.entity = r.id
     ORDER BY r.weight DESC, r.id`,
} as const;

const bySource = (a: GraphSource, b: GraphSource) => (a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1);

/** Prepared graph statements of one connection. */
export function graphQueries(db: Db) {
  const pending = db.prepare<{ ws: string }, GraphSource>(GRAPH_SCANS.pending);
  const stale = db.prepare<{ ws: string }, { id: number }>(GRAPH_SCANS.stale);
  const referenceExtracted = db.prepare<[number]>("SELECT 1 FROM graph_documents WHERE reference_id = ?").pluck();
  const contentExtracted = db
    .prepare<[number, number]>("SELECT 1 FROM graph_documents WHERE content_id = ? AND version = ?")
    .pluck();
  const removeStaleOfContent = db.prepare<{ ws: string; id: number }>(
    `DELETE FROM graph_documents AS d WHERE d.content_id = @id AND d.workspace_id = @ws AND ${STALE}`,
  );
  const removeDocument = db.prepare<[number]>("DELETE FROM graph_documents WHERE id = ?");
  const removeOfReference = db.prepare<[number]>("DELETE FROM graph_documents WHERE reference_id = ?");
  const removeOfContent = db.prepare<[number]>("DELETE FROM graph_documents WHERE content_id = ?");
  const insertDocument = db.prepare(
    `INSERT INTO graph_documents (workspace_id, reference_id, content_id, version, extracted_at)
     VALUES (@ws, @referenceId, @contentId, @version, @now)`,
  );
  const insertMention = db.prepare(
    `INSERT INTO graph_mentions (document_id, workspace_id, entity, label, search, type, mentions)
     VALUES (@documentId, @ws, @id, @label, @search, @type, @mentions)`,
  );
  const insertPair = db.prepare(
    `INSERT INTO graph_pairs (document_id, workspace_id, source, target, weight)
     VALUES (@documentId, @ws, @source, @target, @weight)`,
  );
  const touch = db.prepare<{ ws: string; now: string }>(
    `INSERT INTO graph_state (workspace_id, updated_at) VALUES (@ws, @now)
     ON CONFLICT(workspace_id) DO UPDATE SET updated_at = excluded.updated_at`,
  );
  const updatedAt = db.prepare<[string], { updated_at: string }>(
    "SELECT updated_at FROM graph_state WHERE workspace_id = ?",
  );
  const nodes = db.prepare<{ ws: string; limit: number }, GraphNodeRow>(GRAPH_READS.nodes);
  const nodesOfType = db.prepare<{ ws: string; type: EntityType; limit: number }, GraphNodeRow>(
    GRAPH_READS.nodesOfType,
  );
  const nodesByIds = db.prepare<{ ws: string; ids: string }, GraphNodeRow>(GRAPH_READS.nodesByIds);
  const search = db.prepare<
    { ws: string; q: string; type: EntityType | null; limit: number; offset: number },
    GraphNodeRow
  >(GRAPH_READS.search);
  const edges = db.prepare<{ ws: string; ids: string; minWeight: number }, GraphEdgeRow>(GRAPH_READS.edges);
  const related = db.prepare<{ ws: string; id: string; limit: number }, { id: string; weight: number }>(
    GRAPH_READS.related,
  );
  const relatedNodes = db.prepare<{ ws: string; id: string; limit: number }, RelatedNodeRow>(GRAPH_READS.relatedNodes);

  return {
    /** Sources of a workspace not yet extracted at their current version, in a stable order. */
    pendingSources: (workspaceId: string) => pending.all({ ws: workspaceId }).sort(bySource),
    /** Whether a source has been extracted at its version (pendingSources leaves it out). */
    isExtracted: (source: GraphSource) =>
      (source.kind === "reference"
        ? referenceExtracted.get(source.id)
        : contentExtracted.get(source.id, source.version)) !== undefined,
    /** How many documents are of contents that changed or left the graph's statuses. */
    staleCount: (workspaceId: string) => stale.all({ ws: workspaceId }).length,
    /** Drops the documents of contents that changed or left the graph's statuses; returns how many. */
    removeStale: db.transaction((workspaceId: string): number => {
      const ids = stale.all({ ws: workspaceId });
      for (const { id } of ids) removeDocument.run(id);
      return ids.length;
    }),
    /** Drops a content's document in a workspace when it is stale (removeStale for one content); returns how many. */
    removeStaleOf: (workspaceId: string, contentId: number) =>
      removeStaleOfContent.run({ ws: workspaceId, id: contentId }).changes,
    /** Replaces what a source yielded with a new extraction, in one transaction. */
    saveDocument: db.transaction(
      (workspaceId: string, source: GraphSource, extracted: ExtractedDocument, now: string): void => {
        if (source.kind === "reference") removeOfReference.run(source.id);
        else removeOfContent.run(source.id);
        const documentId = Number(
          insertDocument.run({
            ws: workspaceId,
            referenceId: source.kind === "reference" ? source.id : null,
            contentId: source.kind === "content" ? source.id : null,
            version: source.version,
            now,
          }).lastInsertRowid,
        );
        for (const e of extracted.entities)
          insertMention.run({ ...e, documentId, ws: workspaceId, search: e.label.toLowerCase() });
        for (const p of extracted.pairs) insertPair.run({ ...p, documentId, ws: workspaceId });
      },
    ),
    /** Records that a workspace's graph has caught up with its sources. */
    markUpdated: (workspaceId: string, now: string) => touch.run({ ws: workspaceId, now }),
    /** When a workspace's graph last caught up, or null when never. */
    updatedAt: (workspaceId: string) => updatedAt.get(workspaceId)?.updated_at ?? null,
    /** The most mentioned nodes of a workspace, optionally of one type. */
    nodes: (workspaceId: string, type: EntityType | null, limit: number) =>
      type === null ? nodes.all({ ws: workspaceId, limit }) : nodesOfType.all({ ws: workspaceId, type, limit }),
    /** The nodes among `ids`. */
    nodesByIds: (workspaceId: string, ids: string[]) => nodesByIds.all({ ws: workspaceId, ids: JSON.stringify(ids) }),
    /** Nodes whose label contains `q` (lower case), best matches first. */
    search: (q: { workspaceId: string; q: string; type: EntityType | null; limit: number; offset: number }) =>
      search.all({ ws: q.workspaceId, q: q.q, type: q.type, limit: q.limit, offset: q.offset }),
    /** The edges between nodes among `ids` of at least `minWeight`, heaviest first. */
    edges: (workspaceId: string, ids: string[], minWeight: number) =>
      edges.all({ ws: workspaceId, ids: JSON.stringify(ids), minWeight }),
    /** The entities most often in a sentence with `id`, with the number of such sentences. */
    related: (workspaceId: string, id: string, limit: number) => related.all({ ws: workspaceId, id, limit }),
    /** The same entities (those still in the graph) with their labels and types. */
    relatedNodes: (workspaceId: string, id: string, limit: number) => relatedNodes.all({ ws: workspaceId, id, limit }),
  };
}
