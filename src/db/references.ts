import type { SqlConnection } from "./connection.js";
import { jsonIntegers } from "./dialect.js";

/** How a reference material arrived: JSON content of a format, or an uploaded file. */
export const SOURCE_TYPES = ["text", "markdown", "html", "file"] as const;
/** How a reference material was given: one of SOURCE_TYPES. */
export type SourceType = (typeof SOURCE_TYPES)[number];

/** A reference material with its plain text and the number of its passages. */
export interface ReferenceRow {
  id: number;
  account_id: number;
  workspace_id: string;
  title: string;
  /** Plain text, whatever the source format was. */
  content: string;
  source_type: SourceType;
  word_count: number;
  passage_count: number;
  created_at: string;
}

/** One passage of a reference material. */
export interface PassageRow {
  id: number;
  reference_id: number;
  /** Order within the material, from 0. */
  position: number;
  text: string;
  word_count: number;
}

/** A new reference material with its passages, already converted and split. */
export interface NewReference {
  accountId: number;
  workspaceId: string;
  title: string;
  content: string;
  sourceType: SourceType;
  wordCount: number;
  passages: { text: string; wordCount: number }[];
  now: string;
}

/** Filters and page of a reference listing. */
export interface ReferenceListQuery {
  workspaceId: string;
  /** Ids after this one (0 for the first page). */
  afterId: number;
  limit: number;
}

/** What a reference material is named by, without its text. */
export type ReferenceHead = Pick<ReferenceRow, "id" | "account_id" | "workspace_id" | "title">;

const COUNTED = "(SELECT count(*) FROM reference_passages AS p WHERE p.reference_id = r.id) AS passage_count";

/** A workspace's reference materials in id order (reference_materials_workspace; test/db/list-plans.test.ts). */
export const REFERENCE_LIST_SQL = `SELECT r.*, ${COUNTED}
  FROM reference_materials AS r
  WHERE r.workspace_id = @workspaceId AND r.id > @afterId
  ORDER BY r.id LIMIT @limit`;

/** Prepared reference statements of one connection. */
export function referenceQueries(db: SqlConnection) {
  const byId = db.prepare<[number], ReferenceRow>(
    `SELECT r.*, ${COUNTED} FROM reference_materials AS r WHERE r.id = ?`,
  );
  // The ids' rows keep the order asked for (their key is the array index).
  // Without the text: generation checks the ids and takes titles; its passages are read on their own.
  const byIds = db.prepare<{ accountId: number; ids: string }, ReferenceHead>(
    `SELECT r.id, r.account_id, r.workspace_id, r.title FROM ${jsonIntegers(db, "@ids", "j")}
     JOIN reference_materials AS r ON r.id = j.value WHERE r.account_id = @accountId ORDER BY j.key`,
  );
  const list = db.prepare<{ workspaceId: string; afterId: number; limit: number }, ReferenceRow>(REFERENCE_LIST_SQL);
  const passagesOf = db.prepare<{ ids: string }, PassageRow>(
    `SELECT p.* FROM ${jsonIntegers(db, "@ids", "j")} JOIN reference_passages AS p ON p.reference_id = j.value
     ORDER BY j.key, p.position`,
  );
  const insert = db
    .prepare<[NewReference], number>(
      // The id from id_sequences: never one a deleted record had (sql/0011_id_sequences.sql).
      `INSERT INTO reference_materials (id, account_id, workspace_id, title, content, source_type, word_count,
         created_at)
       VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'reference_materials'),
         @accountId, @workspaceId, @title, @content, @sourceType, @wordCount, @now) RETURNING id`,
    )
    .pluck();
  const insertPassage = db.prepare<[number, number, string, number]>(
    "INSERT INTO reference_passages (reference_id, position, text, word_count) VALUES (?, ?, ?, ?)",
  );
  const remove = db.prepare<[number]>("DELETE FROM reference_materials WHERE id = ?");

  const create = db.transaction((r: NewReference): ReferenceRow => {
    const id = Number(insert.get(r));
    r.passages.forEach((p, position) => {
      insertPassage.run(id, position, p.text, p.wordCount);
    });
    return byId.get(id)!;
  });

  return {
    /** Any reference material by id: the caller checks the account and the workspace. */
    byId: (id: number) => byId.get(id),
    /**
     * The account's reference materials among `ids` (id, account, workspace, title: not the text), in the order
     * asked, each once; missing ids are left out.
     */
    byIds: (accountId: number, ids: number[]): ReferenceHead[] =>
      byIds.all({ accountId, ids: JSON.stringify([...new Set(ids)]) }),
    /** The passages of these materials, grouped by material in the order asked, each in text order. */
    passagesOf: (referenceIds: number[]): PassageRow[] =>
      passagesOf.all({ ids: JSON.stringify([...new Set(referenceIds)]) }),
    /** A workspace's reference materials in id order, with their text, read as they are taken (routes' page()). */
    list: (q: ReferenceListQuery) => list.iterate(q),
    /** Stores a material and its passages in one transaction. */
    create: (r: NewReference): ReferenceRow => create(r),
    /** Deletes a material; its passages go with it. */
    remove: (id: number) => remove.run(id).changes > 0,
  };
}
