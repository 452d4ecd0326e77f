-- The Idempotency-Key requests in flight on servers that share one PostgreSQL database (http/idempotency-claims.ts):
-- a server inserts the row before it runs the operation, renews it while the operation runs, and deletes it once the
-- answer is stored in idempotency_keys (or nothing was to be stored). A duplicate on another server that finds the
-- row waits; one whose renewals stop (its server died) takes the row over. SQLite (one server) never writes here:
-- its duplicates wait in the server's memory.
CREATE TABLE idempotency_claims (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  caller TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  claimed_by TEXT NOT NULL,
  claimed_at TEXT NOT NULL,
  renewals INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, caller, idempotency_key)
);
CREATE INDEX idempotency_claims_claimed_at ON idempotency_claims(claimed_at);
