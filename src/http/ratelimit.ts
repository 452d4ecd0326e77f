/** Two token buckets per key (minute and hour) checked together, and one per client address (DESIGN §5). */
import type { Clock } from "../domain/clock.js";

/** A limit: `capacity` tokens refilled evenly over `windowMs`. */
interface Window {
  name: "minute" | "hour";
  capacity: number;
  windowMs: number;
}

interface Bucket {
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
  /** When refused: which window refused and how long until one token is back. */
  window?: "minute" | "hour";
  retryAfterSeconds?: number;
}

/** Requests per minute allowed to a client address without valid credentials. */
export const ANONYMOUS_PER_MINUTE = 60;

/** In-memory token buckets. A refused request takes from no bucket. */
export class RateLimiter {
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
    if (b.capacity !== w.capacity) {
      // A changed limit (set-limits, plan change) takes effect at once, keeping what was used.
      b.tokens = Math.max(0, Math.min(w.capacity, b.tokens + (w.capacity - b.capacity)));
      b.capacity = w.capacity;
    }
    const elapsed = Math.max(0, now - b.at);
    b.tokens = Math.min(w.capacity, b.tokens + (elapsed * w.capacity) / w.windowMs);
    b.at = now;
    return b;
  }

  /**
   * Admits one request against every window of an identity, or refuses it taking nothing. `peek` takes nothing
   * either way: what a request the limit does not cover (the health probes) reports of its client's buckets, and
   * what an MCP batch, whose further tool calls took tokens, reports when it answers (route spendsTokens).
   */
  take(id: string, limits: { perMinute: number; perHour?: number }, peek = false): RateDecision {
    const now = this.clock.now();
    this.maybePrune(now);
    const windows: Window[] = [{ name: "minute", capacity: limits.perMinute, windowMs: 60_000 }];
    if (limits.perHour !== undefined) windows.push({ name: "hour", capacity: limits.perHour, windowMs: 3_600_000 });
    const buckets = windows.map((w) => this.bucket(id, w, now));
    const refusedAt = buckets.findIndex((b) => b.tokens < 1);
    const allowed = peek || refusedAt === -1;
    if (allowed && !peek) for (const b of buckets) b.tokens -= 1;
    // Report the bucket with fewer whole tokens left (ties: the longer window).
    let report = 0;
    buckets.forEach((b, i) => {
      if (Math.floor(b.tokens) <= Math.floor(buckets[report].tokens)) report = i;
    });
    const rb = buckets[report];
    const rw = windows[report];
    const msToFull = ((rb.capacity - rb.tokens) * rw.windowMs) / Math.max(rb.capacity, 1);
    const decision: RateDecision = {
      allowed,
      limit: rb.capacity,
      remaining: Math.max(0, Math.floor(rb.tokens)),
      reset: Math.ceil((now + msToFull) / 1000),
    };
    if (!allowed) {
      const b = buckets[refusedAt];
      const w = windows[refusedAt];
      decision.window = w.name;
      decision.retryAfterSeconds = Math.max(
        1,
        Math.ceil(((1 - b.tokens) * w.windowMs) / Math.max(w.capacity, 1) / 1000),
      );
      if (w.capacity === 0) decision.retryAfterSeconds = Math.ceil(w.windowMs / 1000);
    }
    return decision;
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
