/** Queries on contents and their versions. */
import type { SqlConnection, SqlStatement } from "./connection.js";
import { indexedBy } from "./dialect.js";

/** Where a content is in its life: draft, generated, finalized, published. */
export type ContentStatus = "draft" | "generated" | "finalized" | "published";

/** One content as its rows hold it, `content` read through ROW (the current text wherever it is stored). */
export interface ContentRow {
  id: number;
  account_id: number;
  workspace_id: string;
  template_id: number | null;
  title: string;
  content: string;
  finalized_content: string | null;
  status: ContentStatus;
  scheduled_publish_at: string | null;
  scheduled_publish_day: string | null;
  published_at: string | null;
  version_count: number;
  created_at: string;
  updated_at: string;
  /** The version whose text is the current text (`content` is then read from it), or null: `content` holds it. */
  text_version: number | null;
}

/** One stored version of a content: a generation or a finalization, with its text; `details` is JSON text. */
export interface VersionRow {
  id: number;
  content_id: number;
  version: number;
  kind: "generated" | "finalized";
  title: string;
  text: string;
  model: string | null;
  details: string | null;
  created_at: string;
}

/** Filters of the contents list. */
export interface ContentFilter {
  workspaceId: string;
  status?: ContentStatus;
  plannedFrom?: string;
  plannedTo?: string;
  /** Only contents whose planned day is before this day and that are not published. */
  overdueBefore?: string;
  /** Only contents that are not overdue on this day (no planned day, a day not before it, or published). */
  notOverdueOn?: string;
  afterId: number;
  limit: number;
}

/**
 * A content row as the code sees it: `content` is the current text wherever it is stored (sql/0010_text_version.sql).
 * Every read of a content row goes through these columns.
 */
const ROW = `c.id, c.account_id, c.workspace_id, c.template_id, c.title,
  CASE WHEN c.text_version IS NULL THEN c.content
    ELSE coalesce((SELECT v.text FROM content_versions AS v WHERE v.content_id = c.id AND v.version = c.text_version),
      c.content) END AS content,
  c.finalized_content, c.status, c.scheduled_publish_at, c.scheduled_publish_day, c.published_at, c.version_count,
  c.created_at, c.updated_at, c.text_version`;

/** Prepared content statements of one connection: the rows, their listing, and their versions. */
export function contentQueries(db: SqlConnection) {
  return { ...rowQueries(db), list: listQuery(db), ...versionQueries(db) };
}

/** One content row: read, created, saved, scheduled, published, removed. */
function rowQueries(db: SqlConnection) {
  const byId = db.prepare<[number], ContentRow>(`SELECT ${ROW} FROM contents AS c WHERE c.id = ?`);
  const insert = db
    .prepare<[Record<string, unknown>], number>(
      // The id from id_sequences: never one a deleted record had (sql/0011_id_sequences.sql).
      `INSERT INTO contents (id, account_id, workspace_id, template_id, title, content, status, created_at, updated_at)
       VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'contents'),
         @accountId, @workspaceId, @templateId, @title, @content, @status, @now, @now) RETURNING id`,
    )
    .pluck();
  const update = db.prepare(
    `UPDATE contents SET title = @title, content = @content, template_id = @templateId, status = @status,
       finalized_content = @finalizedContent, version_count = @versionCount, text_version = @textVersion,
       updated_at = @now WHERE id = @id`,
  );
  const schedule = db.prepare<[string | null, string | null, string, number]>(
    "UPDATE contents SET scheduled_publish_at = ?, scheduled_publish_day = ?, updated_at = ? WHERE id = ?",
  );
  const publish = db.prepare<[string, string, number]>(
    "UPDATE contents SET status = 'published', published_at = ?, updated_at = ? WHERE id = ?",
  );
  const remove = db.prepare<[number]>("DELETE FROM contents WHERE id = ?");

  return {
    byId: (id: number) => byId.get(id),
    create(c: {
      accountId: number;
      workspaceId: string;
      templateId: number | null;
      title: string;
      content: string;
      status: ContentStatus;
      now: string;
    }): ContentRow {
      const id = Number(insert.get(c));
      return byId.get(id)!;
    },
    /**
     * Writes a new state of a content record (all mutable text fields at once). `textVersion`: the version that holds
     * `row.content` (added in the same transaction); the text is then not written into the row again. Without it the
     * text is stored in the row.
     */
    save(row: ContentRow, now: string, textVersion: number | null = null): ContentRow {
      update.run({
        id: row.id,
        title: row.title,
        content: textVersion === null ? row.content : "",
        templateId: row.template_id,
        status: row.status,
        finalizedContent: row.finalized_content,
        versionCount: row.version_count,
        textVersion,
        now,
      });
      return byId.get(row.id)!;
    },
    schedule(id: number, at: string | null, day: string | null, now: string): ContentRow {
      schedule.run(at, day, now, id);
      return byId.get(id)!;
    },
    publish(id: number, at: string): ContentRow {
      publish.run(at, at, id);
      return byId.get(id)!;
    },
    remove: (id: number) => remove.run(id).changes > 0,
  };
}

/** Index entries a page filtered by a day range walks in id order before it takes its matches from the range. */
export const RANGE_WALK = 1000;

/** Whether a filter is a range of planned days (overdue=true is one, up to today). */
const ranged = (f: ContentFilter) => Boolean(f.plannedFrom || f.plannedTo || f.overdueBefore);

/**
 * The index a contents page takes its ids from, by its filters (sql/0022_list_filters.sql). Each holds every column
 * its filters test, so that no row is read to test it. Equality filters are served in id order: the page costs the
 * page (overdue=false also passes over the overdue contents between, in the index). A planned-day range, or overdue
 * (a range up to today), cannot also be in id order: when the walk of listSql does not fill the page, its matches are
 * found in this index and their ids sorted, a cost of the matches, not of the workspace. test/db/list-plans.test.ts
 * holds each filter to its plan.
 */
export function listIndex(f: ContentFilter): string {
  if (f.overdueBefore) return "contents_overdue";
  if (f.plannedFrom || f.plannedTo) return "contents_planned";
  return orderedIndex(f);
}

/** The index of a workspace's contents in id order, of one status when the filter names one. */
function orderedIndex(f: ContentFilter): string {
  return f.status ? "contents_status" : "contents_workspace";
}

/** The filter's terms on a content's workspace, the cursor and the status: an index in id order searches them. */
function placeTerms(f: ContentFilter): string[] {
  return ["workspace_id = @workspaceId", "id > @afterId", ...(f.status ? ["status = @status"] : [])];
}

/** The filter's terms on a content's planned day (and, for overdue, its status). */
function dayTerms(f: ContentFilter): string[] {
  const where: string[] = [];
  if (f.plannedFrom) where.push("scheduled_publish_day >= @plannedFrom");
  if (f.plannedTo) where.push("scheduled_publish_day <= @plannedTo");
  if (f.overdueBefore) where.push("scheduled_publish_day < @overdueBefore AND status != 'published'");
  if (f.notOverdueOn)
    where.push("(scheduled_publish_day IS NULL OR scheduled_publish_day >= @notOverdueOn OR status = 'published')");
  return where;
}

/**
 * The statements of a contents page's ids. `exact`: the page's ids from listIndex's index. `walk`, for a day range
 * only: the matches among the next RANGE_WALK entries in id order, which are the page when they fill it; a range
 * that matches densely is thus served at the page's cost, a sparse one at RANGE_WALK entries and its matches.
 * The indexes are named on SQLite (INDEXED BY): without statistics SQLite prefers any index in id order and tests
 * each row, and a dropped index is then an error rather than a slow page.
 */
export function listSql(db: SqlConnection, f: ContentFilter): { exact: string; walk?: string } {
  const place = placeTerms(f);
  const days = dayTerms(f);
  const exact = `SELECT id FROM contents ${indexedBy(db, listIndex(f))} WHERE ${[...place, ...days].join(" AND ")}
    ORDER BY id LIMIT @limit`;
  if (!ranged(f)) return { exact };
  const next = `SELECT id, status, scheduled_publish_day FROM contents ${indexedBy(db, orderedIndex(f))}
    WHERE ${place.join(" AND ")} ORDER BY id LIMIT ${RANGE_WALK}`;
  return { exact, walk: `SELECT id FROM (${next}) AS walked WHERE ${days.join(" AND ")} ORDER BY id LIMIT @limit` };
}

/** The listing of a workspace's contents by filters: statements per combination, prepared on first use and kept. */
function listQuery(db: SqlConnection): (f: ContentFilter) => IterableIterator<ContentRow> {
  const prepared = new Map<string, SqlStatement<[Record<string, unknown>], number>>();
  const ids = (sql: string, f: ContentFilter): number[] => {
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db.prepare<[Record<string, unknown>], number>(sql).pluck();
      prepared.set(sql, stmt);
    }
    return stmt.all({ ...f, status: f.status ?? null });
  };
  const byId = db.prepare<[number], ContentRow>(`SELECT ${ROW} FROM contents AS c WHERE c.id = ?`);
  // One row at a time, as the page takes it (a statement's ORDER BY over the ids would read every row first).
  function* rows(page: number[]): IterableIterator<ContentRow> {
    for (const id of page) {
      const row = byId.get(id);
      // A content the writer removed since its id was read is left out.
      if (row) yield row;
    }
  }
  /** A page of contents, read as it is taken (routes' page()): texts past what a page shows are not read. */
  return function list(f: ContentFilter): IterableIterator<ContentRow> {
    const sql = listSql(db, f);
    const walked = sql.walk === undefined ? [] : ids(sql.walk, f);
    const page = walked.length === f.limit ? walked : ids(sql.exact, f);
    return rows(page);
  };
}

/** A content's versions: added, paged through, one's text, the last generated. */
function versionQueries(db: SqlConnection) {
  const insertVersion = db.prepare(
    `INSERT INTO content_versions (content_id, version, kind, title, text, model, details, created_at)
     VALUES (@contentId, @version, @kind, @title, @text, @model, @details, @now)`,
  );
  // One page at a time: a content may have thousands of versions of long texts.
  const versions = db.prepare<[number, number, number], VersionRow>(
    "SELECT * FROM content_versions WHERE content_id = ? AND version > ? ORDER BY version LIMIT ?",
  );
  const versionText = db
    .prepare<[number, number], string>("SELECT text FROM content_versions WHERE content_id = ? AND version = ?")
    .pluck();
  const lastGenerated = db.prepare<[number], VersionRow>(
    "SELECT * FROM content_versions WHERE content_id = ? AND kind = 'generated' ORDER BY version DESC LIMIT 1",
  );

  return {
    addVersion(v: {
      contentId: number;
      version: number;
      kind: "generated" | "finalized";
      title: string;
      text: string;
      model: string | null;
      details: unknown;
      now: string;
    }) {
      insertVersion.run({ ...v, details: v.details === undefined ? null : JSON.stringify(v.details) });
    },
    /** Up to `limit` versions of a content after version `after`, oldest first, read as they are taken. */
    versions: (contentId: number, after: number, limit: number) => versions.iterate(contentId, after, limit),
    /** The text of one version of a content, or undefined. */
    versionText: (contentId: number, version: number) => versionText.get(contentId, version),
    lastGenerated: (contentId: number) => lastGenerated.get(contentId),
  };
}
