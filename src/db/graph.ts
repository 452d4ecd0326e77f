/** Queries on the knowledge graph: what each source document yielded, summed per workspace into nodes and edges. */
import type { SqlConnection } from "./connection.js";
import { indexedBy, jsonTexts, positionFunction, sqlFor } from "./dialect.js";

/** What kind of entity a node is: a proper noun, or a key phrase. */
export type EntityType = "proper_noun" | "key_phrase";
/** What kind of document a graph source is. */
export type SourceKind = "reference" | "content";

/** A source of a workspace's graph: a reference material, or a finalized or published content at a version. */
export interface GraphSource {
  kind: SourceKind;
  id: number;
  version: number;
}

/** A node: an entity summed over the documents that mention it; `sources` is JSON text of its first SOURCES_INLINE. */
export interface GraphNodeRow {
  id: string;
  label: string;
  type: EntityType;
  mentions: number;
  source_count: number;
  sources: string;
}

/** A node's id, label and type, without its counts and sources. */
export type NodeLabel = Pick<GraphNodeRow, "id" | "label" | "type">;

/** Where the overview's row sorts: most mentioned first, then by id. */
export interface NodeKey {
  mentions: number;
  id: string;
}

/** A source of a node, with the document it was read from (the cursor of a page of them). */
export interface NodeSourceRow {
  document: number;
  kind: SourceKind;
  id: number;
}

/** How many of a node's sources a node carries in an answer (the rest are paged: sourcesOf). */
export const SOURCES_INLINE = 10;

/** Where a search's row sorts: how its label matches (0 at the start, 1 at a word's start, 2 inside), mentions, id. */
export interface SearchKey {
  rank: number;
  mentions: number;
  id: string;
}

type SearchAfter = { afterRank: number | null; afterMentions: number | null; afterId: string | null };

/** A node found by a search, with its match rank. */
export type FoundNodeRow = GraphNodeRow & { rank: number };

/** An edge: two entities and the number of sentences they share. */
export interface GraphEdgeRow {
  source: string;
  target: string;
  weight: number;
}

/** What extraction found in one document. */
export interface ExtractedDocument {
  entities: { id: string; label: string; type: EntityType; mentions: number }[];
  pairs: { source: string; target: string; weight: number }[];
}

const SOURCE_KIND = "CASE WHEN d.reference_id IS NULL THEN 'content' ELSE 'reference' END";

/**
 * A node's first sources (SOURCES_INLINE, in document order) as JSON text, for the node row `n` of `@ws`: the text
 * is put together with string_agg, which both engines have, where their JSON functions differ (SQLite's
 * json_group_array, PostgreSQL's json_agg); a kind is one of two words and an id an integer, nothing to escape. The
 * text is the one json_group_array(json_object(…)) makes. SQLite aggregates the sorted rows in their order, and an
 * ORDER BY in the aggregate would sort them again in a temp B-tree (test/db/graph-totals.test.ts); PostgreSQL
 * promises the order only with one.
 */
const firstSources = (db: SqlConnection) => `(SELECT '[' || coalesce(string_agg(
      '{"kind":"' || f.kind || '","id":' || f.id || '}', ',' ${sqlFor(db, { sqlite: "", postgres: "ORDER BY f.document" })}
    ), '') || ']' FROM (
    SELECT m.document_id AS document, ${SOURCE_KIND} AS kind, coalesce(d.reference_id, d.content_id) AS id
    FROM graph_mentions AS m JOIN graph_documents AS d ON d.id = m.document_id
    WHERE m.workspace_id = @ws AND m.entity = n.entity ORDER BY m.document_id LIMIT ${SOURCES_INLINE}) AS f)`;

/** The columns of a node row from the totals `n` (sql/0023_graph_totals.sql). */
const nodeColumns = (db: SqlConnection) =>
  `n.entity AS id, n.label, n.type, n.mentions, n.source_count, ${firstSources(db)} AS sources`;

/**
 * A queued source the graph is in sync with (sql/0023): a reference with its document; a content finalized or
 * published in the queue row's workspace with a document at its version, or neither in it nor with a document there.
 */
const SETTLED = `(q.kind = 'reference' AND EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.reference_id = q.source_id))
  OR (q.kind = 'content' AND CASE WHEN EXISTS (SELECT 1 FROM contents AS c WHERE c.id = q.source_id
      AND c.workspace_id = q.workspace_id AND c.status IN ('finalized', 'published'))
    THEN EXISTS (SELECT 1 FROM graph_documents AS d JOIN contents AS c ON c.id = d.content_id
      WHERE d.content_id = q.source_id AND d.workspace_id = q.workspace_id AND d.version = c.version_count)
    ELSE NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.content_id = q.source_id
      AND d.workspace_id = q.workspace_id) END)`;

/**
 * Whether the document `d` is stale: no content with its id is in its workspace, finalized or published, at its
 * version. The index (sql/0009_graph_scans.sql) holds all of that; without INDEXED BY SQLite would look the
 * content up by its id and read status and version from the table row, past the row's two texts.
 */
const stale = (db: SqlConnection) => `NOT EXISTS (SELECT 1 FROM contents AS c ${indexedBy(db, "contents_graph")}
  WHERE c.workspace_id = d.workspace_id AND c.status IN ('finalized', 'published') AND c.version_count = d.version
    AND c.id = d.content_id)`;

/**
 * The workspace-wide scans of a connection: `stale` is a catch-up's, on the writer thread; `pending` defines what
 * the queue's graphReads().queued must find (test/db/graph-totals.test.ts compares them). Exported for the tests of
 * their plans.
 */
export const graphScans = (db: SqlConnection) => ({
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
     WHERE d.workspace_id = @ws AND d.content_id IS NOT NULL AND ${stale(db)}`,
});

/** The reads of a connection that must cost what they return (exported for the tests of their query plans). */
export const graphReads = (db: SqlConnection) => ({
  // The sources of a workspace to extract, from its queue (sql/0023): the same as graphScans().pending, which the
  // writes keep, in O(queue) rather than a walk of every reference and content.
  queued: `SELECT q.kind AS kind, q.source_id AS id, CASE q.kind WHEN 'content' THEN c.version_count ELSE 0 END AS version
     FROM graph_queue AS q LEFT JOIN contents AS c ON q.kind = 'content' AND c.id = q.source_id
     WHERE q.workspace_id = @ws AND CASE q.kind
       WHEN 'reference' THEN NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.reference_id = q.source_id)
       ELSE c.workspace_id = q.workspace_id AND c.status IN ('finalized', 'published')
         AND NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.content_id = c.id AND d.version = c.version_count)
       END`,
  // One row the writes keep (sql/0023): whether a workspace's graph is behind, without a scan.
  pending: "SELECT count FROM graph_pending WHERE workspace_id = ?",
  // A page after the sort key (mentions, id) in two index seeks: the rest of the key's mention count, then the less
  // mentioned. One statement's OR of the two would walk the index from its start, and the tail of nodes mentioned
  // once is most of a workspace's.
  tied: (type: boolean) => `SELECT ${nodeColumns(db)} FROM graph_nodes AS n ${indexedBy(db, "graph_nodes_top")}
     WHERE n.workspace_id = @ws ${type ? "AND n.type = @type" : ""} AND n.mentions = @mentions AND n.entity > @afterId
     ORDER BY n.entity LIMIT @limit`,
  below: (type: boolean) => `SELECT ${nodeColumns(db)} FROM graph_nodes AS n ${indexedBy(db, "graph_nodes_top")}
     WHERE n.workspace_id = @ws ${type ? "AND n.type = @type" : ""} AND n.mentions < @mentions
     ORDER BY n.mentions DESC, n.entity LIMIT @limit`,
  sources: `SELECT m.document_id AS document, ${SOURCE_KIND} AS kind, coalesce(d.reference_id, d.content_id) AS id
     FROM graph_mentions AS m JOIN graph_documents AS d ON d.id = m.document_id
     WHERE m.workspace_id = @ws AND m.entity = @id AND m.document_id > @after
     ORDER BY m.document_id LIMIT @limit`,
  // A search's label-start matches (rank 0) among the SEARCH_AHEAD most mentioned nodes after the sort key (mentions,
  // id), in that order: the first page of a search whose text starts many labels, in a walk of the top index that
  // stops there, where the whole search reads every node of the workspace. The walk reads the index alone (it holds
  // the lower-case label: sql/0027), but for a type, which only the row holds; the page's rows are read after the
  // LIMIT, and their node columns made for them only.
  labelStarts: (type: boolean) => `SELECT ${nodeColumns(db)}, 0 AS rank FROM (
       SELECT ahead.entity, ahead.mentions FROM (
         SELECT t.entity, t.mentions, t.search ${type ? ", t.type" : ""}
         FROM graph_nodes AS t ${indexedBy(db, "graph_nodes_top")}
         WHERE t.workspace_id = @ws AND t.mentions <= @mentions
         ORDER BY t.mentions DESC, t.entity LIMIT ${SEARCH_AHEAD}) AS ahead
       WHERE ${positionFunction(db)}(ahead.search, @q) = 1 ${type ? "AND ahead.type = @type" : ""}
         AND NOT (ahead.mentions = @mentions AND ahead.entity <= @afterId)
       ORDER BY ahead.mentions DESC, ahead.entity LIMIT @limit) AS page
     JOIN graph_nodes AS n ON n.workspace_id = @ws AND n.entity = page.entity
     ORDER BY n.mentions DESC, n.entity`,
  // The labels and types of nodes by id (a search's related entities), each sought by its key, without their
  // sources. The unary plus keeps SQLite (without statistics) from walking the workspace's graph_nodes_top in the
  // ORDER BY's order and testing each node against the ids: 55 ms a call at 96,000 nodes, once for each entity of a
  // search; PostgreSQL reads `+n.mentions` as n.mentions.
  byIds: `SELECT n.entity AS id, n.label, n.type FROM graph_nodes AS n
     WHERE n.workspace_id = @ws AND n.entity IN (${jsonTexts(db, "@ids")}) ORDER BY +n.mentions DESC, n.entity`,
  // The entities most often in a sentence with one, from both ends of its edges. Without the hint the plan of the
  // second half (no statistics) walked the workspace's edges by the primary key, 30-40 ms at 335,000 edges.
  related: `SELECT id, weight FROM (
       SELECT target AS id, weight FROM graph_edges WHERE workspace_id = @ws AND source = @id
       UNION ALL
       SELECT source AS id, weight FROM graph_edges ${indexedBy(db, "graph_edges_target")}
       WHERE workspace_id = @ws AND target = @id) AS related
     ORDER BY weight DESC, id LIMIT @limit`,
});

/**
 * How many of the most mentioned nodes a search looks through for a page of label-start matches (graphReads
 * labelStarts) before it reads every node: a short text such as "a" starts thousands of labels, a name starts few.
 */
export const SEARCH_AHEAD = 4096;

const bySource = (a: GraphSource, b: GraphSource) => (a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1);

/** Prepared graph statements of one connection: a catch-up's, the graph's state, the reads of nodes and edges. */
export function graphQueries(db: SqlConnection) {
  return { ...catchUpQueries(db), ...stateQueries(db), ...nodeQueries(db), ...edgeQueries(db) };
}

/** What a catch-up reads and writes: the sources still to extract, the stale documents, and each extraction. */
function catchUpQueries(db: SqlConnection) {
  const pending = db.prepare<{ ws: string }, GraphSource>(graphReads(db).queued);
  const staleDocuments = db.prepare<{ ws: string }, { id: number }>(graphScans(db).stale);
  const referenceExtracted = db.prepare<[number]>("SELECT 1 FROM graph_documents WHERE reference_id = ?").pluck();
  const contentExtracted = db
    .prepare<[number, number]>("SELECT 1 FROM graph_documents WHERE content_id = ? AND version = ?")
    .pluck();
  const removeStaleOfContent = db.prepare<{ ws: string; id: number }>(
    `DELETE FROM graph_documents AS d WHERE d.content_id = @id AND d.workspace_id = @ws AND ${stale(db)}`,
  );
  const removeDocument = db.prepare<[number]>("DELETE FROM graph_documents WHERE id = ?");
  const removeOfReference = db.prepare<[number]>("DELETE FROM graph_documents WHERE reference_id = ?");
  const removeOfContent = db.prepare<[number]>("DELETE FROM graph_documents WHERE content_id = ?");
  const insertDocument = db
    .prepare<[Record<string, unknown>], number>(
      `INSERT INTO graph_documents (workspace_id, reference_id, content_id, version, extracted_at)
       VALUES (@ws, @referenceId, @contentId, @version, @now) RETURNING id`,
    )
    .pluck();
  const insertMention = db.prepare(
    `INSERT INTO graph_mentions (document_id, workspace_id, entity, label, search, type, mentions)
     VALUES (@documentId, @ws, @id, @label, @search, @type, @mentions)`,
  );
  const insertPair = db.prepare(
    `INSERT INTO graph_pairs (document_id, workspace_id, source, target, weight)
     VALUES (@documentId, @ws, @source, @target, @weight)`,
  );
  const settleWorkspace = db.prepare<{ ws: string }>(
    `DELETE FROM graph_queue AS q WHERE q.workspace_id = @ws AND (${SETTLED})`,
  );
  const settleSource = db.prepare<{ ws: string; kind: SourceKind; id: number }>(
    `DELETE FROM graph_queue AS q WHERE q.workspace_id = @ws AND q.kind = @kind AND q.source_id = @id AND (${SETTLED})`,
  );
  const removeStale = db.transaction((workspaceId: string): number => {
    const ids = staleDocuments.all({ ws: workspaceId });
    for (const { id } of ids) removeDocument.run(id);
    settleWorkspace.run({ ws: workspaceId });
    return ids.length;
  });
  const removeStaleOf = db.transaction((workspaceId: string, contentId: number): number => {
    const removed = removeStaleOfContent.run({ ws: workspaceId, id: contentId }).changes;
    settleSource.run({ ws: workspaceId, kind: "content", id: contentId });
    return removed;
  });
  const saveDocument = db.transaction(
    (workspaceId: string, source: GraphSource, extracted: ExtractedDocument, now: string): void => {
      if (source.kind === "reference") removeOfReference.run(source.id);
      else removeOfContent.run(source.id);
      const documentId = Number(
        insertDocument.get({
          ws: workspaceId,
          referenceId: source.kind === "reference" ? source.id : null,
          contentId: source.kind === "content" ? source.id : null,
          version: source.version,
          now,
        }),
      );
      for (const e of extracted.entities)
        insertMention.run({ ...e, documentId, ws: workspaceId, search: e.label.toLowerCase() });
      for (const p of extracted.pairs) insertPair.run({ ...p, documentId, ws: workspaceId });
      settleSource.run({ ws: workspaceId, kind: source.kind, id: source.id });
    },
  );

  return {
    /** Sources of a workspace not yet extracted at their current version, in a stable order, from its queue. */
    pendingSources: (workspaceId: string) => pending.all({ ws: workspaceId }).sort(bySource),
    /** Whether a source has been extracted at its version (pendingSources leaves it out). */
    isExtracted: (source: GraphSource) =>
      (source.kind === "reference"
        ? referenceExtracted.get(source.id)
        : contentExtracted.get(source.id, source.version)) !== undefined,
    /** How many documents are of contents that changed or left the graph's statuses. */
    staleCount: (workspaceId: string) => staleDocuments.all({ ws: workspaceId }).length,
    /** Drops the documents of contents that changed or left the graph's statuses, in one transaction; how many. */
    removeStale: (workspaceId: string): number => removeStale(workspaceId),
    /** Drops a content's document in a workspace when it is stale (removeStale for one content); returns how many. */
    removeStaleOf: (workspaceId: string, contentId: number): number => removeStaleOf(workspaceId, contentId),
    /** Drops the queue rows of a workspace's sources the graph is in sync with (sql/0023 graph_queue). */
    settle: (workspaceId: string): void => {
      settleWorkspace.run({ ws: workspaceId });
    },
    /** Replaces what a source yielded with a new extraction, in one transaction. */
    saveDocument: (workspaceId: string, source: GraphSource, extracted: ExtractedDocument, now: string): void =>
      saveDocument(workspaceId, source, extracted, now),
  };
}

/** When a workspace's graph caught up, and the version its reads depend on. */
function stateQueries(db: SqlConnection) {
  const touch = db.prepare<{ ws: string; now: string }>(
    // Nothing for a workspace deleted since the catch-up looked (a deletion queued ahead on the writer thread).
    `INSERT INTO graph_state (workspace_id, updated_at)
     SELECT CAST(@ws AS TEXT), CAST(@now AS TEXT) WHERE EXISTS (SELECT 1 FROM workspaces WHERE id = @ws)
     ON CONFLICT(workspace_id) DO UPDATE SET updated_at = excluded.updated_at`,
  );
  const pending = db.prepare<[string], number>(graphReads(db).pending).pluck();
  const updatedAt = db.prepare<[string], { updated_at: string }>(
    "SELECT updated_at FROM graph_state WHERE workspace_id = ?",
  );
  const version = db.prepare<{ ws: string }, { version: number | null; updated_at: string | null }>(
    `SELECT (SELECT version FROM graph_versions WHERE workspace_id = @ws) AS version,
            (SELECT updated_at FROM graph_state WHERE workspace_id = @ws) AS updated_at`,
  );

  return {
    /** Records that a workspace's graph has caught up with its sources. */
    markUpdated(workspaceId: string, now: string): void {
      touch.run({ ws: workspaceId, now });
    },
    /**
     * What a read of a workspace's graph depends on, as one string: its documents' version (sql/0013) and when it
     * last caught up. Equal strings, equal answers.
     */
    version: (workspaceId: string) => {
      const row = version.get({ ws: workspaceId });
      return `${row?.version ?? 0}|${row?.updated_at ?? ""}`;
    },
    /**
     * How many sources a workspace's graph has yet to take in or drop: one row the writes keep (sql/0023), never a
     * scan (test/db/graph-totals.test.ts holds its plan).
     */
    pendingCount: (workspaceId: string): number => pending.get(workspaceId) ?? 0,
    /** When a workspace's graph last caught up, or null when never. */
    updatedAt: (workspaceId: string) => updatedAt.get(workspaceId)?.updated_at ?? null,
  };
}

/** The reads of a workspace's nodes from their totals: the most mentioned, some by id, a search, a node's sources. */
function nodeQueries(db: SqlConnection) {
  // Pages go on after the last row's sort key, not after a count of rows: mention counts change as the graph takes
  // in sources, so that an offset would repeat entities and skip others between pages.
  type Page = { ws: string; type: EntityType | null; limit: number; mentions: number; afterId: string };
  const reads = graphReads(db);
  const tied = [false, true].map((t) => db.prepare<Page, GraphNodeRow>(reads.tied(t)));
  const below = [false, true].map((t) => db.prepare<Page, GraphNodeRow>(reads.below(t)));
  const nodes = (ws: string, type: EntityType | null, limit: number, after: NodeKey | null) => {
    const t = type ? 1 : 0;
    const page: Page = { ws, type, limit, mentions: after?.mentions ?? Number.MAX_SAFE_INTEGER, afterId: "" };
    const rows = after ? tied[t].all({ ...page, afterId: after.id }) : [];
    return rows.length < limit ? rows.concat(below[t].all({ ...page, limit: limit - rows.length })) : rows;
  };
  const labelsOf = db.prepare<{ ws: string; ids: string }, NodeLabel>(graphReads(db).byIds);
  const node = db.prepare<{ ws: string; id: string }, GraphNodeRow>(
    `SELECT ${nodeColumns(db)} FROM graph_nodes AS n WHERE n.workspace_id = @ws AND n.entity = @id`,
  );
  // Label matches rank first at the start of the label, then at the start of a word, then anywhere: a read of the
  // workspace's nodes (one row per entity), not of their mentions. The optional parameters are cast: PostgreSQL
  // cannot tell a type from `? IS NULL`.
  const instr = positionFunction(db);
  const search = db.prepare<
    { ws: string; q: string; type: EntityType | null; limit: number } & SearchAfter,
    FoundNodeRow
  >(
    `SELECT * FROM (
       SELECT ${nodeColumns(db)},
         CASE WHEN ${instr}(n.search, @q) = 1 THEN 0 WHEN ${instr}(n.search, ' ' || @q) > 0 THEN 1 ELSE 2 END AS rank
       FROM graph_nodes AS n
       WHERE n.workspace_id = @ws AND ${instr}(n.search, @q) > 0 AND (CAST(@type AS TEXT) IS NULL OR n.type = @type)
     ) AS ranked
     WHERE CAST(@afterId AS TEXT) IS NULL OR ranked.rank > @afterRank
       OR (ranked.rank = @afterRank AND (ranked.mentions < @afterMentions
         OR (ranked.mentions = @afterMentions AND ranked.id > @afterId)))
     ORDER BY ranked.rank, ranked.mentions DESC, ranked.id
     LIMIT @limit`,
  );
  const labelStarts = [false, true].map((t) =>
    db.prepare<
      { ws: string; q: string; type: EntityType | null; limit: number; mentions: number; afterId: string },
      FoundNodeRow
    >(reads.labelStarts(t)),
  );
  const sources = db.prepare<{ ws: string; id: string; after: number; limit: number }, NodeSourceRow>(reads.sources);

  return {
    /** The most mentioned nodes of a workspace, optionally of one type, after the sort key `after`. */
    nodes: (workspaceId: string, type: EntityType | null, limit: number, after: NodeKey | null = null) =>
      nodes(workspaceId, type, limit, after),
    /** The labels and types of the nodes among `ids`, most mentioned first. */
    labelsOf: (workspaceId: string, ids: string[]) => labelsOf.all({ ws: workspaceId, ids: JSON.stringify(ids) }),
    /** One node, or undefined when the workspace's graph has no such entity. */
    node: (workspaceId: string, id: string) => node.get({ ws: workspaceId, id }),
    /**
     * Nodes whose label contains `q` (lower case), best matches first: from the label-start matches among the most
     * mentioned nodes when they fill the page (they are its first rows then), else from a read of every node.
     */
    search: (q: {
      workspaceId: string;
      q: string;
      type: EntityType | null;
      limit: number;
      after: SearchKey | null;
    }) => {
      if (q.after === null || q.after.rank === 0) {
        const page = labelStarts[q.type ? 1 : 0].all({
          ws: q.workspaceId,
          q: q.q,
          type: q.type,
          limit: q.limit,
          mentions: q.after?.mentions ?? Number.MAX_SAFE_INTEGER,
          afterId: q.after?.id ?? "",
        });
        if (page.length === q.limit) return page;
      }
      return search.all({
        ws: q.workspaceId,
        q: q.q,
        type: q.type,
        limit: q.limit,
        afterRank: q.after?.rank ?? null,
        afterMentions: q.after?.mentions ?? null,
        afterId: q.after?.id ?? null,
      });
    },
    /** A page of the sources that mention a node, in document order, after the document `after` (0: from the first). */
    sourcesOf: (workspaceId: string, id: string, after: number, limit: number) =>
      sources.all({ ws: workspaceId, id, after, limit }),
  };
}

/** The reads of a workspace's edges from their totals: between given nodes, and around one node. */
function edgeQueries(db: SqlConnection) {
  const edges = db.prepare<{ ws: string; ids: string; minWeight: number; limit: number }, GraphEdgeRow>(
    `SELECT e.source, e.target, e.weight FROM graph_edges AS e
     WHERE e.workspace_id = @ws AND e.source IN (${jsonTexts(db, "@ids")})
       AND e.target IN (${jsonTexts(db, "@ids")}) AND e.weight >= @minWeight
     ORDER BY e.weight DESC, e.source, e.target LIMIT @limit`,
  );
  const related = db.prepare<{ ws: string; id: string; limit: number }, { id: string; weight: number }>(
    graphReads(db).related,
  );

  return {
    /** The heaviest `limit` edges between nodes among `ids` of at least `minWeight`, heaviest first. */
    edges: (workspaceId: string, ids: string[], minWeight: number, limit: number) =>
      edges.all({ ws: workspaceId, ids: JSON.stringify(ids), minWeight, limit }),
    /** The entities most often in a sentence with `id`, with the number of such sentences. */
    related: (workspaceId: string, id: string, limit: number) => related.all({ ws: workspaceId, id, limit }),
  };
}
