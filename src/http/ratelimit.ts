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
  /** When refused: the window that refused (the longest wait) and how long until every window has a token again. */
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
    // How long each bucket needs to hold a token again (0 when it holds one).
    const waits = buckets.map((b, i) =>
      b.tokens >= 1
        ? 0
        : windows[i].capacity === 0
          ? windows[i].windowMs
          : ((1 - b.tokens) * windows[i].windowMs) / windows[i].capacity,
    );
    const refused = waits.some((w) => w > 0);
    const allowed = peek || !refused;
    if (allowed && !peek) for (const b of buckets) b.tokens -= 1;
    // A refusal reports the bucket that keeps the caller waiting longest: with both spent, the minute's token came
    // back first and a client retrying when told was refused again by the hour (ties: the longer window). Otherwise
    // the bucket with fewer whole tokens left (ties: the longer window).
    let report = 0;
    buckets.forEach((b, i) => {
      if (refused && !peek ? waits[i] >= waits[report] : Math.floor(b.tokens) <= Math.floor(buckets[report].tokens))
        report = i;
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
      decision.window = rw.name;
      decision.retryAfterSeconds = Math.max(1, Math.ceil(waits[report] / 1000));
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
