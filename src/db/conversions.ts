/** Queries on conversions: a content's text in another format, stored as made. */
import type { SqlConnection } from "./connection.js";

/** The formats a content converts to (DESIGN §6). */
export const TARGET_FORMATS = ["html", "markdown", "plain_text", "social_thread", "email"] as const;
/** One of TARGET_FORMATS. */
export type TargetFormat = (typeof TARGET_FORMATS)[number];

/** A stored conversion; `posts` is JSON text (social_thread only). */
export interface ConversionRow {
  id: number;
  account_id: number;
  workspace_id: string;
  content_id: number;
  target_format: TargetFormat;
  output: string;
  posts: string | null;
  subject: string | null;
  created_at: string;
}

/** A conversion to store. */
export interface NewConversion {
  accountId: number;
  workspaceId: string;
  contentId: number;
  targetFormat: TargetFormat;
  output: string;
  posts: string[] | null;
  subject: string | null;
  now: string;
}

/** Filters and page of a conversion listing. */
export interface ConversionListQuery {
  workspaceId: string;
  /** Only the conversions of this content, when given. */
  contentId?: number;
  /** Ids after this one (0 for the first page). */
  afterId: number;
  limit: number;
}

/**
 * A workspace's conversions in id order, all or of one content: two statements, as `(@contentId IS NULL OR
 * content_id = @contentId)` is served by no index; one content's are read from conversions_content
 * (test/db/list-plans.test.ts).
 */
export const CONVERSION_LIST_SQL = {
  all: "SELECT * FROM conversions WHERE workspace_id = @workspaceId AND id > @afterId ORDER BY id LIMIT @limit",
  ofContent: `SELECT * FROM conversions WHERE content_id = @contentId AND workspace_id = @workspaceId AND id > @afterId
    ORDER BY id LIMIT @limit`,
};

/** Prepared conversion statements of one connection. */
export function conversionQueries(db: SqlConnection) {
  const byId = db.prepare<[number], ConversionRow>("SELECT * FROM conversions WHERE id = ?");
  const insert = db
    .prepare<[Record<string, unknown>], number>(
      // The id from id_sequences: never one a deleted record had (sql/0011_id_sequences.sql).
      `INSERT INTO conversions (id, account_id, workspace_id, content_id, target_format, output, posts, subject,
         created_at)
       VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'conversions'),
         @accountId, @workspaceId, @contentId, @targetFormat, @output, @posts, @subject, @now) RETURNING id`,
    )
    .pluck();
  const list = db.prepare<{ workspaceId: string; afterId: number; limit: number }, ConversionRow>(
    CONVERSION_LIST_SQL.all,
  );
  const listOfContent = db.prepare<
    { workspaceId: string; contentId: number; afterId: number; limit: number },
    ConversionRow
  >(CONVERSION_LIST_SQL.ofContent);

  const same = db.prepare<
    {
      contentId: number;
      workspaceId: string;
      targetFormat: string;
      output: string;
      posts: string | null;
      subject: string | null;
    },
    ConversionRow
  >(
    `SELECT * FROM conversions WHERE content_id = @contentId AND workspace_id = @workspaceId
       AND target_format = @targetFormat AND output = @output AND posts IS NOT DISTINCT FROM @posts
       AND subject IS NOT DISTINCT FROM @subject
     ORDER BY id DESC LIMIT 1`,
  );

  return {
    /**
     * The stored conversion identical to one about to be stored (same content, format and result), if any: the
     * same text converted again is answered with it rather than stored twice (issue 31 L5).
     */
    sameAs: (c: NewConversion) =>
      same.get({
        contentId: c.contentId,
        workspaceId: c.workspaceId,
        targetFormat: c.targetFormat,
        output: c.output,
        posts: c.posts === null ? null : JSON.stringify(c.posts),
        subject: c.subject,
      }),
    /** Any conversion by id: the caller checks the account and the workspace. */
    byId: (id: number) => byId.get(id),
    /** A workspace's conversions in id order, optionally of one content. */
    list: (q: ConversionListQuery) => {
      const page = { workspaceId: q.workspaceId, afterId: q.afterId, limit: q.limit };
      return q.contentId === undefined
        ? list.iterate(page)
        : listOfContent.iterate({ ...page, contentId: q.contentId });
    },
    /** Stores a conversion. */
    create(c: NewConversion): ConversionRow {
      const id = Number(insert.get({ ...c, posts: c.posts === null ? null : JSON.stringify(c.posts) }));
      return byId.get(id)!;
    },
  };
}
