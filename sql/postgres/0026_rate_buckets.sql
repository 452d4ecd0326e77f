-- The rate limits' token buckets (DESIGN §5) where several servers share one PostgreSQL database (issue 34): one row
-- per identity (a key, `user:<id>`, `addr:<address>`), its minute bucket and its hour one, taken from by one
-- statement per request (db/rate-buckets.ts). On SQLite one server holds the buckets in memory (http/ratelimit.ts):
-- this table stays empty there, and exists so that both engines have the same schema (sql/postgres/README.md).
-- Tokens are fractional (the refill is even); times in milliseconds since the epoch, each bucket's own: the hour
-- bucket is absent (NULL) for an identity limited per minute only. `admitted` is whether the last take admitted its
-- request, which the statement returns.
-- (PostgreSQL; rules in README.md.) UNLOGGED, PostgreSQL's only difference here: a take writes no WAL and its commit
-- waits for no flush (a logged one waited 4-5 ms on each request's fsync), at the price of the buckets starting full
-- again after PostgreSQL crashes, as a server's in-memory ones do after it restarts. They are not on a standby either.
CREATE UNLOGGED TABLE rate_buckets (
  id TEXT COLLATE "C" PRIMARY KEY,
  minute_tokens DOUBLE PRECISION NOT NULL,
  minute_capacity BIGINT NOT NULL,
  minute_at_ms BIGINT NOT NULL,
  hour_tokens DOUBLE PRECISION,
  hour_capacity BIGINT,
  hour_at_ms BIGINT,
  admitted BIGINT NOT NULL CHECK (admitted IN (0, 1))
);
