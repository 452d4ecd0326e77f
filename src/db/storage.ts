/**
 * The bytes each account's records hold (sql/0019_storage_usage.sql keeps the counter with triggers, in the
 * writing transaction, and sql/0021_storage_idempotency.sql adds the answers kept for replay); here the same sizes summed over the tables, to count what is not counted yet (NULL, after
 * the migration) and to recount on demand (`storage recount`). test/db/storage.test.ts holds the triggers and these
 * sums together.
 */
import type { SqlConnection } from "./connection.js";
import { sqlFor } from "./dialect.js";

/** The UTF-8 bytes of a nullable text column, as the triggers count them. */
const bytes = (column: string) => `coalesce(octet_length(${column}), 0)`;

/** What each table's rows hold for an account `@id`, as the triggers of sql/0019 and 0021 count them. */
export const STORAGE_SIZES: Record<string, string> = {
  contents: `SELECT sum(${bytes("title")} + ${bytes("content")} + ${bytes("finalized_content")}) FROM contents
    WHERE account_id = @id`,
  content_versions: `SELECT sum(${bytes("v.title")} + ${bytes("v.text")} + ${bytes("v.details")})
    FROM content_versions v JOIN contents c ON c.id = v.content_id WHERE c.account_id = @id`,
  reference_materials: `SELECT sum(${bytes("title")} + ${bytes("content")}) FROM reference_materials
    WHERE account_id = @id`,
  reference_passages: `SELECT sum(${bytes("p.text")}) FROM reference_passages p
    JOIN reference_materials r ON r.id = p.reference_id WHERE r.account_id = @id`,
  images: "SELECT sum(size_bytes) FROM images WHERE account_id = @id",
  conversions: `SELECT sum(${bytes("output")} + ${bytes("posts")} + ${bytes("subject")}) FROM conversions
    WHERE account_id = @id`,
  memories: `SELECT sum(${bytes("title")} + ${bytes("content")}) FROM memories WHERE account_id = @id`,
  idempotency_keys: "SELECT sum(octet_length(body)) FROM idempotency_keys WHERE account_id = @id",
};

const RECOUNT_SQL = `UPDATE storage_usage SET used_bytes = ${Object.values(STORAGE_SIZES)
  .map((sql) => `coalesce((${sql}), 0)`)
  .join(" + ")} WHERE account_id = @id`;

/** Prepared storage statements of one connection. */
export function storageQueries(db: SqlConnection) {
  const used = db.prepare<[number], { used_bytes: number | null }>(
    "SELECT used_bytes FROM storage_usage WHERE account_id = ?",
  );
  const recount = db.prepare<{ id: number }>(RECOUNT_SQL);
  const accounts = db.prepare<[], { account_id: number }>("SELECT account_id FROM storage_usage ORDER BY account_id");
  return {
    /** The bytes an account's records hold, as counted (0 for an account with no row, null: not counted yet). */
    used: (accountId: number): number | null => {
      const row = used.get(accountId);
      return row === undefined ? 0 : row.used_bytes;
    },
    /** Counts an account's bytes again from its rows, and returns them. */
    recount(accountId: number): number {
      recount.run({ id: accountId });
      return used.get(accountId)?.used_bytes ?? 0;
    },
    /** Counts every account again; returns each account's bytes. */
    recountAll(): { account_id: number; used_bytes: number }[] {
      return accounts.all().map(({ account_id }) => {
        recount.run({ id: account_id });
        return { account_id, used_bytes: used.get(account_id)?.used_bytes ?? 0 };
      });
    },
  };
}

/** Counts the accounts not counted yet (the migration leaves them NULL); nothing before that migration ran. */
export function recountUnknownStorage(db: SqlConnection): void {
  // Each engine's own catalog: SQLite's sqlite_master, PostgreSQL's to_regclass (null for no such table).
  const table = db
    .prepare(
      sqlFor(db, {
        sqlite: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'storage_usage'",
        postgres: "SELECT 1 WHERE to_regclass('storage_usage') IS NOT NULL",
      }),
    )
    .get();
  if (!table) return;
  const recount = db.prepare<{ id: number }>(RECOUNT_SQL);
  const unknown = db.prepare<[], { account_id: number }>(
    "SELECT account_id FROM storage_usage WHERE used_bytes IS NULL",
  );
  db.transaction(() => {
    for (const { account_id } of unknown.all()) recount.run({ id: account_id });
  }).immediate();
}
