/** Two token buckets per key (minute and hour) checked together, and one per client address (DESIGN §5). */
import type { Clock } from "../domain/clock.js";

/** A limit: `capacity` tokens refilled evenly over `windowMs`. */
export interface Window {
  name: "minute" | "hour";
  capacity: number;
  windowMs: number;
}

/** One bucket: its tokens (fractional: the refill is even), its capacity, and the time its tokens were counted at. */
export interface Bucket {
  tokens: number;
  capacity: number;
  at: number;
}

/** The outcome of one admission, with what the X-RateLimit-* headers report. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the reported bucket is full again. */
  reset: number;
  /** When refused: the window that refused (the longest wait) and how long until every window has a token again. */
  window?: "minute" | "hour";
  retryAfterSeconds?: number;
}

/** The limits of one identity: requests per minute, and per hour where it has an hour bucket. */
export interface Limits {
  perMinute: number;
  perHour?: number;
}

/**
 * What the rate-limit stage admits requests through: the in-memory RateLimiter (one server, SQLite), or the
 * StoredRateLimiter whose buckets every server on one PostgreSQL database shares (http/stored-ratelimit.ts).
 */
export interface Limiter {
  /**
   * Admits one request against every window of an identity, or refuses it taking nothing. `peek` takes nothing
   * either way: what a request the limit does not cover (the health probes) reports of its client's buckets, and
   * what an MCP batch, whose further tool calls took tokens, reports when it answers (route spendsTokens). A peek
   * may find nothing to report (undefined: the shared buckets' database did not answer).
   */
  take(id: string, limits: Limits, peek?: false): RateDecision;
  take(id: string, limits: Limits, peek?: boolean): RateDecision | undefined;
}

/** Requests per minute allowed to a client address without valid credentials. */
export const ANONYMOUS_PER_MINUTE = 60;

/** The windows of an identity's limits: the minute's, then the hour's where there is one. */
export function windowsOf(limits: Limits): Window[] {
  const windows: Window[] = [{ name: "minute", capacity: limits.perMinute, windowMs: 60_000 }];
  if (limits.perHour !== undefined) windows.push({ name: "hour", capacity: limits.perHour, windowMs: 3_600_000 });
  return windows;
}

/**
 * The tokens of a bucket at `now` under window `w`: a changed limit (set-limits, plan change) takes effect at once,
 * keeping what was used, then the refill since `b.at` (none for a `now` before it), never above capacity. The
 * PostgreSQL statement of db/rate-buckets.ts does the same arithmetic in SQL; test/helpers/ratelimit-cases.ts holds
 * both alike.
 */
export function refilled(b: Bucket, w: Window, now: number): number {
  const kept = Math.max(0, Math.min(w.capacity, b.tokens + (w.capacity - b.capacity)));
  return Math.min(w.capacity, kept + (Math.max(0, now - b.at) * w.capacity) / w.windowMs);
}

/** How long a bucket needs to hold a token again (0 when it holds one). */
function waitOf(b: Bucket, w: Window): number {
  if (b.tokens >= 1) return 0;
  return w.capacity === 0 ? w.windowMs : ((1 - b.tokens) * w.windowMs) / w.capacity;
}

/**
 * The decision on buckets as an admission left them (`allowed`: it took a token from each; refused: it took none),
 * or as a peek found them (`allowed` true, `peek`).
 */
export function decisionOf(windows: Window[], buckets: Bucket[], allowed: boolean, peek: boolean): RateDecision {
  const refused = !allowed && !peek;
  const waits = refused ? buckets.map((b, i) => waitOf(b, windows[i])) : [];
  // A refusal reports the bucket that keeps the caller waiting longest: with both spent, the minute's token came
  // back first and a client retrying when told was refused again by the hour (ties: the longer window). Otherwise
  // the bucket with fewer whole tokens left (ties: the longer window).
  let report = 0;
  buckets.forEach((b, i) => {
    if (refused ? waits[i] >= waits[report] : Math.floor(b.tokens) <= Math.floor(buckets[report].tokens)) report = i;
  });
  const rb = buckets[report];
  const rw = windows[report];
  const msToFull = ((rb.capacity - rb.tokens) * rw.windowMs) / Math.max(rb.capacity, 1);
  const decision: RateDecision = {
    allowed: !refused,
    limit: rb.capacity,
    remaining: Math.max(0, Math.floor(rb.tokens)),
    reset: Math.ceil((rb.at + msToFull) / 1000),
  };
  if (refused) {
    decision.window = rw.name;
    decision.retryAfterSeconds = Math.max(1, Math.ceil(waits[report] / 1000));
  }
  return decision;
}

/** In-memory token buckets, of one server. A refused request takes from no bucket. */
export class RateLimiter implements Limiter {
  private buckets = new Map<string, Bucket>();
  private lastPrune: number;

  constructor(private clock: Clock) {
    this.lastPrune = clock.now();
  }

  private bucket(id: string, w: Window, now: number): Bucket {
    const key = `${id}|${w.name}`;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: w.capacity, capacity: w.capacity, at: now };
      this.buckets.set(key, b);
      return b;
    }
    b.tokens = refilled(b, w, now);
    b.capacity = w.capacity;
    b.at = now;
    return b;
  }

  /** Admits one request against every window of an identity, or refuses it taking nothing (Limiter.take). */
  take(id: string, limits: Limits, peek?: false): RateDecision;
  take(id: string, limits: Limits, peek?: boolean): RateDecision;
  take(id: string, limits: Limits, peek = false): RateDecision {
    const now = this.clock.now();
    this.maybePrune(now);
    const windows = windowsOf(limits);
    const buckets = windows.map((w) => this.bucket(id, w, now));
    const allowed = buckets.every((b) => b.tokens >= 1);
    if (allowed && !peek) for (const b of buckets) b.tokens -= 1;
    return decisionOf(windows, buckets, allowed, peek);
  }

  /** Forgets buckets that have refilled completely: they are the same as absent ones. */
  private maybePrune(now: number): void {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    for (const [key, b] of this.buckets) {
      const windowMs = key.endsWith("|hour") ? 3_600_000 : 60_000;
      if (b.tokens + ((now - b.at) * b.capacity) / windowMs >= b.capacity) this.buckets.delete(key);
    }
  }

  /** Number of buckets held, for tests of pruning. */
  get size(): number {
    return this.buckets.size;
  }
}
