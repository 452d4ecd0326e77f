/**
 * The rate limits' shared token buckets (sql/0026_rate_buckets.sql), for the servers of one PostgreSQL database
 * (http/stored-ratelimit.ts); SQLite's server keeps its buckets in memory (http/ratelimit.ts) and never prepares these.
 */
import type { SqlConnection, SqlStatement } from "./connection.js";

/** One identity's buckets as stored: the minute's, and the hour's (NULL where it has none); times in ms. */
export interface RateBucketRow {
  id: string;
  minute_tokens: number;
  minute_capacity: number;
  minute_at_ms: number;
  hour_tokens: number | null;
  hour_capacity: number | null;
  hour_at_ms: number | null;
  /** 1 when the last take admitted its request. */
  admitted: number;
}

/** One admission: the identity, the server's clock, and its capacities (no hour bucket: null). */
export interface RateTake {
  id: string;
  now: number;
  minute: number;
  hour: number | null;
}

/** A capacity as the arithmetic's floating-point number. */
const capacity = (of: string) => `CAST(${of} AS DOUBLE PRECISION)`;

/**
 * A bucket's tokens at this server's clock (the proposed row's `minute_at_ms`): a changed capacity applied keeping
 * what was used, then the refill since the bucket's stored time, never above capacity. The same arithmetic as
 * http/ratelimit.ts refilled(), in the same order of floating-point operations, so that both limiters count alike
 * (test/helpers/ratelimit-cases.ts). A stored time ahead of this server's clock (another server's clock runs ahead)
 * refills nothing: the refill never goes back.
 */
function refilledSql(tokens: string, stored: string, proposed: string, storedAt: string, windowMs: number): string {
  const cap = capacity(proposed);
  return `LEAST(${cap}, GREATEST(0, LEAST(${cap}, ${tokens} + (${cap} - ${stored})))
    + GREATEST(0, excluded.minute_at_ms - ${storedAt}) * ${cap} / ${windowMs})`;
}

/**
 * The take, one statement: the row inserted full (less the token taken) for a new identity, else its buckets
 * refilled and, when every one holds a token, a token taken from each, or from none. The conflicting row is locked
 * by the upsert, so that concurrent takes of one identity on any server run one after the other, each on what the
 * one before left. An absent hour capacity leaves a stored hour bucket as it is (the in-memory limiter keeps it too);
 * a stored time never moves back. Exported for the test of concurrent takes on several connections.
 */
export const RATE_TAKE_SQL = `
INSERT INTO rate_buckets AS b (id, minute_tokens, minute_capacity, minute_at_ms, hour_tokens, hour_capacity,
  hour_at_ms, admitted)
SELECT f.id, f.minute - f.took, f.minute, f.now, f.hour - f.took, f.hour, CASE WHEN f.hour IS NOT NULL THEN f.now END,
  f.took
FROM (
  SELECT g.*, CASE WHEN g.minute >= 1 AND (g.hour IS NULL OR g.hour >= 1) THEN 1 ELSE 0 END AS took
  FROM (SELECT CAST(@id AS TEXT) AS id, CAST(@now AS BIGINT) AS now, CAST(@minute AS BIGINT) AS minute,
    CAST(@hour AS BIGINT) AS hour) AS g
) AS f
ON CONFLICT (id) DO UPDATE SET
  (minute_tokens, minute_capacity, minute_at_ms, hour_tokens, hour_capacity, hour_at_ms, admitted) = (
  SELECT r.minute - r.took, excluded.minute_capacity, GREATEST(b.minute_at_ms, excluded.minute_at_ms),
    CASE WHEN excluded.hour_capacity IS NULL THEN b.hour_tokens ELSE r.hour - r.took END,
    COALESCE(excluded.hour_capacity, b.hour_capacity),
    CASE WHEN excluded.hour_capacity IS NULL THEN b.hour_at_ms
      ELSE GREATEST(COALESCE(b.hour_at_ms, excluded.minute_at_ms), excluded.minute_at_ms) END,
    r.took
  FROM (
    SELECT q.*, CASE WHEN q.minute >= 1 AND (excluded.hour_capacity IS NULL OR q.hour >= 1) THEN 1 ELSE 0 END AS took
    FROM (SELECT
      ${refilledSql("b.minute_tokens", "b.minute_capacity", "excluded.minute_capacity", "b.minute_at_ms", 60_000)}
        AS minute,
      CASE WHEN excluded.hour_capacity IS NULL THEN NULL
        WHEN b.hour_capacity IS NULL THEN ${capacity("excluded.hour_capacity")}
        ELSE ${refilledSql("b.hour_tokens", "b.hour_capacity", "excluded.hour_capacity", "b.hour_at_ms", 3_600_000)}
      END AS hour) AS q
  ) AS r)
RETURNING *`;

/** A statement prepared at its first run. */
function onFirstUse<P extends unknown[], R>(db: SqlConnection, sql: string): () => SqlStatement<P, R> {
  let statement: SqlStatement<P, R> | undefined;
  return () => {
    statement ??= db.prepare<P, R>(sql) as SqlStatement<P, R>;
    return statement;
  };
}

/**
 * Prepared rate-bucket statements of one connection, each at its first use: SQLite's server never runs them (its
 * limiter is in memory), and SQLite cannot compile the take.
 */
export function rateBucketQueries(db: SqlConnection) {
  const take = onFirstUse<[RateTake], RateBucketRow>(db, RATE_TAKE_SQL);
  const get = onFirstUse<[string], RateBucketRow>(db, "SELECT * FROM rate_buckets WHERE id = ?");
  const prune = onFirstUse<[number, number], unknown>(
    db,
    `DELETE FROM rate_buckets WHERE minute_at_ms <= CAST(? AS BIGINT) - 60000
       AND (hour_at_ms IS NULL OR hour_at_ms <= CAST(? AS BIGINT) - 3600000)`,
  );
  return {
    /**
     * PostgreSQL only: takes a token from every bucket of `t.id`, or from none when one is empty, and returns the row
     * as it left it (`admitted` says which).
     */
    take: (t: RateTake): RateBucketRow => take().get(t) as RateBucketRow,
    /** An identity's buckets as stored, undefined when it has none (a full bucket is the same as none). */
    get: (id: string): RateBucketRow | undefined => get().get(id),
    /** Forgets the rows whose buckets are full again at `now` (each untouched for a whole window); how many. */
    prune: (now: number): number => prune().run(now, now).changes,
  };
}
