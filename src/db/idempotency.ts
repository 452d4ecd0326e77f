/** Queries on the stored responses of Idempotency-Key requests. */
import type { SqlConnection } from "./connection.js";

/** One stored response. */
export interface IdempotencyRow {
  account_id: number;
  caller: string;
  idempotency_key: string;
  fingerprint: string;
  status: number;
  headers: string;
  body: Buffer;
  /** 0: the response was too large to keep, and `body` is empty. */
  body_kept: 0 | 1;
  created_at: string;
  expires_at: string;
}

/** The row of a response recorded without its body (too large, or past the storage quota): no headers either. */
export function withoutBody(row: IdempotencyRow): IdempotencyRow {
  return { ...row, headers: "{}", body: Buffer.alloc(0), body_kept: 0 };
}

/** Prepared idempotency statements of one connection. */
export function idempotencyQueries(db: SqlConnection) {
  const find = db.prepare<[number, string, string, string], IdempotencyRow>(
    `SELECT * FROM idempotency_keys
     WHERE account_id = ? AND caller = ? AND idempotency_key = ? AND expires_at > ?`,
  );
  // An expired row that the purge has not reached yet is replaced. An upsert, not INSERT OR REPLACE, so that the
  // storage counter's UPDATE trigger sees the body replaced (sql/0021_storage_idempotency.sql).
  const save = db.prepare(
    `INSERT INTO idempotency_keys
       (account_id, caller, idempotency_key, fingerprint, status, headers, body, body_kept, created_at, expires_at)
     VALUES (@account_id, @caller, @idempotency_key, @fingerprint, @status, @headers, @body, @body_kept, @created_at,
       @expires_at)
     ON CONFLICT (account_id, caller, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint,
       status = excluded.status, headers = excluded.headers, body = excluded.body, body_kept = excluded.body_kept,
       created_at = excluded.created_at, expires_at = excluded.expires_at`,
  );
  // In bounded batches: a day's expiry at once would be one long transaction. The rows by their primary key, which
  // both engines have (rowid is SQLite's).
  const purge = db.prepare<[string, number]>(
    `DELETE FROM idempotency_keys WHERE (account_id, caller, idempotency_key) IN
       (SELECT account_id, caller, idempotency_key FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`,
  );
  return {
    /** The unexpired response stored for (account, caller, key) at an ISO time, if any. */
    find: (accountId: number, caller: string, key: string, now: string) => find.get(accountId, caller, key, now),
    save(row: IdempotencyRow): void {
      save.run(row);
    },
    /** Deletes at most `limit` of the responses expired at an ISO time; returns how many. */
    purgeExpired: (now: string, limit: number) => purge.run(now, limit).changes,
  };
}
