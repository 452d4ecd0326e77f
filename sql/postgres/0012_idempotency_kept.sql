-- A completed response too large to keep for replay (http/idempotency.ts, MAX_KEPT_BYTES) is recorded without its
-- body: a duplicate learns that the operation ran and with which status, instead of running it again.
-- (PostgreSQL; rules in README.md.)
ALTER TABLE idempotency_keys ADD COLUMN body_kept BIGINT NOT NULL DEFAULT 1 CHECK (body_kept IN (0, 1));
