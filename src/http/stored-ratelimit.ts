/**
 * The rate limiter of servers sharing one PostgreSQL database (issue 34): every identity's buckets are one row there
 * (db/rate-buckets.ts), taken from by one atomic statement per request, so that the limits hold across the servers
 * as on one, and the X-RateLimit-* agree whichever server answers (test/db/pg/servers-ratelimit.test.ts).
 */

import { PgUnavailableError } from "../db/pg/errors.js";
import type { RateBucketRow } from "../db/rate-buckets.js";
import type { Store } from "../db/store.js";
import type { Clock } from "../domain/clock.js";
import {
  type Bucket,
  decisionOf,
  type Limiter,
  type Limits,
  type RateDecision,
  refilled,
  type Window,
  windowsOf,
} from "./ratelimit.js";

/** How often (ms of the clock) a server forgets the full buckets; every server does, a few deletes each. */
const PRUNE_EVERY_MS = 60_000;

/** The stored bucket of window `w`, undefined when the row has none for it. */
function storedBucket(row: RateBucketRow, w: Window): Bucket | undefined {
  if (w.name === "minute") return { tokens: row.minute_tokens, capacity: row.minute_capacity, at: row.minute_at_ms };
  if (row.hour_tokens === null || row.hour_capacity === null || row.hour_at_ms === null) return undefined;
  return { tokens: row.hour_tokens, capacity: row.hour_capacity, at: row.hour_at_ms };
}

/** Token buckets in the database, shared by every server on it. A refused request takes from no bucket. */
export class StoredRateLimiter implements Limiter {
  private lastPrune: number;

  constructor(
    private store: Pick<Store, "rateBuckets">,
    private clock: Clock,
  ) {
    this.lastPrune = clock.now();
  }

  /** Admits one request against every window of an identity, or refuses it taking nothing (Limiter.take). */
  take(id: string, limits: Limits, peek?: false): RateDecision;
  take(id: string, limits: Limits, peek?: boolean): RateDecision | undefined;
  take(id: string, limits: Limits, peek = false): RateDecision | undefined {
    const now = this.clock.now();
    const windows = windowsOf(limits);
    if (peek) return this.peek(id, windows, now);
    this.maybePrune(now);
    const row = this.store.rateBuckets.take({ id, now, minute: limits.perMinute, hour: limits.perHour ?? null });
    // Each bucket as the statement left it: its time is the latest any server's clock gave it, so that Reset is
    // the same whichever server reports it.
    const buckets = windows.map((w) => storedBucket(row, w) as Bucket);
    return decisionOf(windows, buckets, row.admitted === 1, false);
  }

  /**
   * What the buckets hold now, taking nothing and writing nothing: the stored row refilled to this server's clock
   * (never back). A database that does not answer leaves nothing to report: the answer goes without X-RateLimit-*
   * rather than failing (it is often the 503 of that very outage).
   */
  private peek(id: string, windows: Window[], now: number): RateDecision | undefined {
    let row: RateBucketRow | undefined;
    try {
      row = this.store.rateBuckets.get(id);
    } catch (e) {
      if (e instanceof PgUnavailableError) return undefined;
      throw e;
    }
    const buckets = windows.map((w): Bucket => {
      const b = row && storedBucket(row, w);
      if (!b) return { tokens: w.capacity, capacity: w.capacity, at: now };
      return { tokens: refilled(b, w, now), capacity: w.capacity, at: Math.max(b.at, now) };
    });
    return decisionOf(windows, buckets, true, true);
  }

  /** Forgets the rows that have refilled completely, once a minute: they are the same as absent ones. */
  private maybePrune(now: number): void {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.store.rateBuckets.prune(now);
  }
}
