/**
 * Queries on the stored responses of Idempotency-Key requests, and on the claims of those in flight on servers that
 * share a PostgreSQL database (sql/0024_idempotency_claims.sql, http/idempotency-claims.ts).
 */
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

/** Who holds the claim on a key in flight, what it runs, and how often it has renewed the claim. */
export interface IdempotencyClaim {
  fingerprint: string;
  claimed_by: string;
  renewals: number;
}

/** The (account, caller, key) a claim is for. */
export type ClaimKey = [accountId: number, caller: string, key: string];

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
  const claimed = claimQueries(db);
  return {
    ...claimed,
    /** The unexpired response stored for (account, caller, key) at an ISO time, if any. */
    find: (accountId: number, caller: string, key: string, now: string) => find.get(accountId, caller, key, now),
    save(row: IdempotencyRow): void {
      save.run(row);
    },
    /** Deletes at most `limit` of the responses expired at an ISO time; returns how many. */
    purgeExpired: (now: string, limit: number) => purge.run(now, limit).changes,
  };
}

/** The statements on idempotency_claims: one statement each, atomic on its own (no transaction needed). */
function claimQueries(db: SqlConnection) {
  const key = "account_id = ? AND caller = ? AND idempotency_key = ?";
  const claim = db.prepare<[number, string, string, string, string, string]>(
    `INSERT INTO idempotency_claims (account_id, caller, idempotency_key, fingerprint, claimed_by, claimed_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, caller, idempotency_key) DO NOTHING`,
  );
  const find = db.prepare<[number, string, string], IdempotencyClaim>(
    `SELECT fingerprint, claimed_by, renewals FROM idempotency_claims WHERE ${key}`,
  );
  const renew = db.prepare<[number, string, string, string]>(
    `UPDATE idempotency_claims SET renewals = renewals + 1 WHERE ${key} AND claimed_by = ?`,
  );
  // Only the claim as it was seen: a holder that renewed, or another server that took it over first, keeps it.
  const takeOver = db.prepare<[string, string, number, string, string, string, number]>(
    `UPDATE idempotency_claims SET claimed_by = ?, claimed_at = ?, renewals = 0
     WHERE account_id = ? AND caller = ? AND idempotency_key = ? AND claimed_by = ? AND renewals = ?`,
  );
  const release = db.prepare<[number, string, string, string]>(
    `DELETE FROM idempotency_claims WHERE ${key} AND claimed_by = ?`,
  );
  const purge = db.prepare<[string, number]>(
    `DELETE FROM idempotency_claims WHERE (account_id, caller, idempotency_key) IN
       (SELECT account_id, caller, idempotency_key FROM idempotency_claims WHERE claimed_at <= ? LIMIT ?)`,
  );
  return {
    /** Inserts the claim of `server` on a key at an ISO time; whether it was inserted (false: another holds it). */
    claim: (at: ClaimKey, fingerprint: string, server: string, now: string) =>
      claim.run(...at, fingerprint, server, now).changes === 1,
    /** The claim on a key, if any. */
    findClaim: (at: ClaimKey) => find.get(...at),
    /** Counts one more renewal of `server`'s claim; whether it still holds it. */
    renewClaim: (at: ClaimKey, server: string) => renew.run(...at, server).changes === 1,
    /** Takes over the claim `seen` (a holder that stopped renewing) for `server`; whether it did. */
    takeOverClaim: (at: ClaimKey, seen: IdempotencyClaim, server: string, now: string) =>
      takeOver.run(server, now, ...at, seen.claimed_by, seen.renewals).changes === 1,
    /** Deletes `server`'s claim on a key (none if another took it over). */
    releaseClaim(at: ClaimKey, server: string): void {
      release.run(...at, server);
    },
    /** Deletes at most `limit` of the claims made at or before an ISO time (their servers died); returns how many. */
    purgeClaims: (before: string, limit: number) => purge.run(before, limit).changes,
  };
}
