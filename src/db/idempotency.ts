/** Queries on the stored responses of Idempotency-Key requests. */
import type { Db } from "./open.js";

/** One stored response. */
export interface IdempotencyRow {
  account_id: number;
  caller: string;
  idempotency_key: string;
  fingerprint: string;
  status: number;
  headers: string;
  body: Buffer;
  created_at: string;
  expires_at: string;
}

/** Prepared idempotency statements of one connection. */
export function idempotencyQueries(db: Db) {
  const find = db.prepare<[number, string, string, string], IdempotencyRow>(
    `SELECT * FROM idempotency_keys
     WHERE account_id = ? AND caller = ? AND idempotency_key = ? AND expires_at > ?`,
  );
  // An expired row that the purge has not reached yet is replaced.
  const save = db.prepare(
    `INSERT OR REPLACE INTO idempotency_keys
       (account_id, caller, idempotency_key, fingerprint, status, headers, body, created_at, expires_at)
     VALUES (@account_id, @caller, @idempotency_key, @fingerprint, @status, @headers, @body, @created_at, @expires_at)`,
  );
  const purge = db.prepare<[string]>("DELETE FROM idempotency_keys WHERE expires_at <= ?");
  return {
    /** The unexpired response stored for (account, caller, key) at an ISO time, if any. */
    find: (accountId: number, caller: string, key: string, now: string) => find.get(accountId, caller, key, now),
    save: (row: IdempotencyRow) => save.run(row),
    /** Deletes the responses expired at an ISO time; returns how many. */
    purgeExpired: (now: string) => purge.run(now).changes,
  };
}
