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
  /** 0: the response was too large to keep, and `body` is empty. */
  body_kept: 0 | 1;
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
       (account_id, caller, idempotency_key, fingerprint, status, headers, body, body_kept, created_at, expires_at)
     VALUES (@account_id, @caller, @idempotency_key, @fingerprint, @status, @headers, @body, @body_kept, @created_at,
       @expires_at)`,
  );
  // In bounded batches: a day's expiry at once would be one long transaction.
  const purge = db.prepare<[string, number]>(
    `DELETE FROM idempotency_keys WHERE rowid IN
       (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`,
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
