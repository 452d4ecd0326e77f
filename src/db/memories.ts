/** Queries on memories: voice and context notes of a workspace that generation injects. */
import type { SqlConnection } from "./connection.js";
import { jsonIntegers } from "./dialect.js";

/** What a memory carries: how to sound (voice) or what to know (context). */
export const MEMORY_KINDS = ["voice", "context"] as const;
/** One of MEMORY_KINDS. */
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** One stored memory of a workspace: its kind, title and text. */
export interface MemoryRow {
  id: number;
  account_id: number;
  workspace_id: string;
  kind: MemoryKind;
  title: string;
  content: string;
  created_at: string;
  updated_at: string;
}

/** A new memory. */
export interface NewMemory {
  accountId: number;
  workspaceId: string;
  kind: MemoryKind;
  title: string;
  content: string;
  now: string;
}

/** The fields PATCH may change. */
export interface MemoryChanges {
  kind?: MemoryKind;
  title?: string;
  content?: string;
}

/** Filters and page of a memory listing. */
export interface MemoryListQuery {
  workspaceId: string;
  kind?: MemoryKind;
  /** Ids after this one (0 for the first page). */
  afterId: number;
  limit: number;
}

/**
 * A workspace's memories in id order, all or of one kind: two statements, as `(@kind IS NULL OR kind = @kind)` is
 * served by no index (sql/0022_list_filters.sql memories_kind; test/db/list-plans.test.ts).
 */
export const MEMORY_LIST_SQL = {
  all: "SELECT * FROM memories WHERE workspace_id = @workspaceId AND id > @afterId ORDER BY id LIMIT @limit",
  ofKind: `SELECT * FROM memories WHERE workspace_id = @workspaceId AND kind = @kind AND id > @afterId
    ORDER BY id LIMIT @limit`,
};

/** Prepared memory statements of one connection. */
export function memoryQueries(db: SqlConnection) {
  const byId = db.prepare<[number], MemoryRow>("SELECT * FROM memories WHERE id = ?");
  // The ids' rows keep the order asked for (their key is the array index).
  const byIds = db.prepare<{ accountId: number; ids: string }, MemoryRow>(
    `SELECT m.* FROM ${jsonIntegers(db, "@ids", "j")} JOIN memories AS m ON m.id = j.value
     WHERE m.account_id = @accountId ORDER BY j.key`,
  );
  const presentIds = db
    .prepare<{ accountId: number; ids: string }, number>(
      `SELECT m.id FROM ${jsonIntegers(db, "@ids", "j")} JOIN memories AS m ON m.id = j.value
       WHERE m.account_id = @accountId`,
    )
    .pluck();
  const list = db.prepare<{ workspaceId: string; afterId: number; limit: number }, MemoryRow>(MEMORY_LIST_SQL.all);
  const listOfKind = db.prepare<{ workspaceId: string; kind: string; afterId: number; limit: number }, MemoryRow>(
    MEMORY_LIST_SQL.ofKind,
  );
  const insert = db
    .prepare<[NewMemory], number>(
      // The id from id_sequences: never one a deleted record had (sql/0011_id_sequences.sql).
      `INSERT INTO memories (id, account_id, workspace_id, kind, title, content, created_at, updated_at)
       VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'memories'),
         @accountId, @workspaceId, @kind, @title, @content, @now, @now) RETURNING id`,
    )
    .pluck();
  const update = db.prepare<{
    id: number;
    kind: string | null;
    title: string | null;
    content: string | null;
    now: string;
  }>(
    `UPDATE memories SET kind = coalesce(@kind, kind), title = coalesce(@title, title),
       content = coalesce(@content, content), updated_at = @now
     WHERE id = @id`,
  );
  const remove = db.prepare<[number]>("DELETE FROM memories WHERE id = ?");
  return {
    /** Any memory by id: the caller checks the account and the workspace. */
    byId: (id: number) => byId.get(id),
    /** The account's memories among `ids`, in the order asked, each once; missing ids are left out. */
    byIds: (accountId: number, ids: number[]): MemoryRow[] =>
      byIds.all({ accountId, ids: JSON.stringify([...new Set(ids)]) }),
    /** Which of these ids are the account's memories (ids only: no texts read). */
    presentIds: (accountId: number, ids: number[]): number[] =>
      presentIds.all({ accountId, ids: JSON.stringify([...new Set(ids)]) }),
    /** A workspace's memories in id order. */
    list: (q: MemoryListQuery) => {
      const page = { workspaceId: q.workspaceId, afterId: q.afterId, limit: q.limit };
      return q.kind === undefined ? list.all(page) : listOfKind.all({ ...page, kind: q.kind });
    },
    create(m: NewMemory): MemoryRow {
      return byId.get(Number(insert.get(m)))!;
    },
    /** Applies the given changes and stamps updated_at; returns the memory as it now is. */
    update(id: number, changes: MemoryChanges, now: string): MemoryRow | undefined {
      update.run({
        id,
        kind: changes.kind ?? null,
        title: changes.title ?? null,
        content: changes.content ?? null,
        now,
      });
      return byId.get(id);
    },
    remove: (id: number) => remove.run(id).changes > 0,
  };
}
