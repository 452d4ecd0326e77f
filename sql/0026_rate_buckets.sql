-- The rate limits' token buckets (DESIGN §5) where several servers share one PostgreSQL database (issue 34): one row
-- per identity (a key, `user:<id>`, `addr:<address>`), its minute bucket and its hour one, taken from by one
-- statement per request (db/rate-buckets.ts). On SQLite one server holds the buckets in memory (http/ratelimit.ts):
-- this table stays empty there, and exists so that both engines have the same schema (sql/postgres/README.md).
-- Tokens are fractional (the refill is even); times in milliseconds since the epoch, each bucket's own: the hour
-- bucket is absent (NULL) for an identity limited per minute only. `admitted` is whether the last take admitted its
-- request, which the statement returns.
CREATE TABLE rate_buckets (
  id TEXT PRIMARY KEY,
  minute_tokens REAL NOT NULL,
  minute_capacity INTEGER NOT NULL,
  minute_at_ms INTEGER NOT NULL,
  hour_tokens REAL,
  hour_capacity INTEGER,
  hour_at_ms INTEGER,
  admitted INTEGER NOT NULL CHECK (admitted IN (0, 1))
);
