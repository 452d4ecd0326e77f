-- A completed response too large to keep for replay (http/idempotency.ts, MAX_KEPT_BYTES) is recorded without its
-- body: a duplicate learns that the operation ran and with which status, instead of running it again.
ALTER TABLE idempotency_keys ADD COLUMN body_kept INTEGER NOT NULL DEFAULT 1 CHECK (body_kept IN (0, 1));
