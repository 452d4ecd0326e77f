/**
 * The cases of a rate limiter's arithmetic (DESIGN §5), for both limiters: the in-memory one
 * (test/http/ratelimit.test.ts) and the one whose buckets are in PostgreSQL (test/db/pg/rate-buckets.test.ts), so that
 * both count alike. `make` gives a limiter over the clock whose identities no other limiter it gave shares.
 */
import { expect, it } from "vitest";
import { type Clock, ManualClock } from "../../src/domain/clock.js";
import type { Limiter } from "../../src/http/ratelimit.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const seconds = (ms: number) => ms / 1000;

/** Declares the cases, each with limiters of `make`. */
export function limiterCases(make: (clock: Clock) => Limiter): void {
  it("admits up to the minute capacity, then refuses with window minute and a retry time", () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    for (let i = 0; i < 3; i++) {
      const d = limiter.take("k", { perMinute: 3, perHour: 100 });
      expect(d).toMatchObject({ allowed: true, limit: 3, remaining: 2 - i });
    }
    const refused = limiter.take("k", { perMinute: 3, perHour: 100 });
    expect(refused).toMatchObject({ allowed: false, window: "minute", limit: 3, remaining: 0 });
    // One token comes back every 20 s.
    expect(refused.retryAfterSeconds).toBe(20);
    clock.advance(19_999);
    expect(limiter.take("k", { perMinute: 3, perHour: 100 }).allowed).toBe(false);
    clock.advance(1);
    expect(limiter.take("k", { perMinute: 3, perHour: 100 }).allowed).toBe(true);
  });

  it("refuses on the hour bucket while the minute bucket still has tokens", () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    for (let i = 0; i < 5; i++) expect(limiter.take("k", { perMinute: 1000, perHour: 5 }).allowed).toBe(true);
    const refused = limiter.take("k", { perMinute: 1000, perHour: 5 });
    expect(refused).toMatchObject({ allowed: false, window: "hour", limit: 5, remaining: 0 });
    expect(refused.retryAfterSeconds).toBe(seconds(HOUR / 5));
    clock.advance(MINUTE);
    expect(limiter.take("k", { perMinute: 1000, perHour: 5 }).allowed).toBe(false);
    clock.advance(HOUR / 5 - MINUTE);
    expect(limiter.take("k", { perMinute: 1000, perHour: 5 }).allowed).toBe(true);
  });

  it("with both buckets spent, names the one that keeps the caller waiting longest, in the body and the headers", () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    const limits = { perMinute: 10, perHour: 12 };
    for (let i = 0; i < 10; i++) expect(limiter.take("k", limits).allowed).toBe(true);
    clock.advance(12_500);
    // The minute bucket has 2 tokens back; the hour bucket had 2 left: both admit, then both are spent.
    for (let i = 0; i < 2; i++) expect(limiter.take("k", limits).allowed).toBe(true);
    const refused = limiter.take("k", limits);
    // The minute's next token is 6 s away, the hour's 5 min: a client retrying after 6 s had been refused again.
    expect(refused).toMatchObject({ allowed: false, window: "hour", limit: 12, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThan(250);
    clock.advance((refused.retryAfterSeconds as number) * 1000);
    expect(limiter.take("k", limits).allowed).toBe(true);

    // The other way round: the minute bucket waits longer, and is named, with its own limit.
    const other = make(clock);
    const tight = { perMinute: 2, perHour: 1000 };
    for (let i = 0; i < 2; i++) other.take("m", tight);
    expect(other.take("m", tight)).toMatchObject({ allowed: false, window: "minute", limit: 2, retryAfterSeconds: 30 });
  });

  it("a refused request takes from neither bucket", () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    const limits = { perMinute: 3, perHour: 4 };
    for (let i = 0; i < 3; i++) expect(limiter.take("k", limits).allowed).toBe(true);
    // Refused by the minute bucket: had these taken from the hour bucket its last token would be gone.
    for (let i = 0; i < 10; i++) expect(limiter.take("k", limits)).toMatchObject({ allowed: false, window: "minute" });
    clock.advance(MINUTE);
    expect(limiter.take("k", limits).allowed).toBe(true);
    expect(limiter.take("k", limits)).toMatchObject({ allowed: false, window: "hour" });
  });

  it("a refusal by the hour bucket does not spend the minute bucket either", () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    limiter.take("k", { perMinute: 3, perHour: 1 });
    for (let i = 0; i < 5; i++) expect(limiter.take("k", { perMinute: 3, perHour: 1 }).window).toBe("hour");
    // Raising the hour limit shows the minute bucket still holds its two tokens.
    expect(limiter.take("k", { perMinute: 3, perHour: 100 })).toMatchObject({ allowed: true });
    expect(limiter.take("k", { perMinute: 3, perHour: 100 })).toMatchObject({ allowed: true });
    expect(limiter.take("k", { perMinute: 3, perHour: 100 })).toMatchObject({ allowed: false, window: "minute" });
  });

  it("reports the bucket with fewer tokens, and Reset is when that bucket is full again (Unix seconds)", () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
    const limiter = make(clock);
    const now = seconds(clock.now());
    // Minute bucket 99/100 left, hour 999/1000: the minute bucket is reported; full again in 0.6 s.
    expect(limiter.take("a", { perMinute: 100, perHour: 1000 })).toMatchObject({
      limit: 100,
      remaining: 99,
      reset: Math.ceil(now + 0.6),
    });
    // Minute 999/1000 left, hour 4/5: the hour bucket is reported; full again in 720 s.
    expect(limiter.take("b", { perMinute: 1000, perHour: 5 })).toMatchObject({
      limit: 5,
      remaining: 4,
      reset: now + 720,
    });
    // A bucket of a single window (the per-address one).
    expect(limiter.take("c", { perMinute: 60 })).toMatchObject({ limit: 60, remaining: 59, reset: now + 1 });
  });

  it("refills evenly and never above capacity", () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    for (let i = 0; i < 10; i++) limiter.take("k", { perMinute: 10 });
    clock.advance(30_000);
    expect(limiter.take("k", { perMinute: 10 }).remaining).toBe(4);
    clock.advance(10 * HOUR);
    expect(limiter.take("k", { perMinute: 10 }).remaining).toBe(9);
  });

  it("a changed capacity applies at once and keeps what was used", () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    for (let i = 0; i < 10; i++) limiter.take("k", { perMinute: 100 });
    expect(limiter.take("k", { perMinute: 20 })).toMatchObject({ allowed: true, limit: 20, remaining: 9 });
    expect(limiter.take("k", { perMinute: 5 })).toMatchObject({ allowed: false, limit: 5 });
    expect(limiter.take("k", { perMinute: 100 })).toMatchObject({ allowed: true, limit: 100 });
  });

  it("identities do not share buckets", () => {
    const limiter = make(new ManualClock());
    expect(limiter.take("x", { perMinute: 1 }).allowed).toBe(true);
    expect(limiter.take("x", { perMinute: 1 }).allowed).toBe(false);
    expect(limiter.take("y", { perMinute: 1 }).allowed).toBe(true);
  });

  it("a window of capacity 0 refuses with a retry of the whole window", () => {
    const limiter = make(new ManualClock());
    expect(limiter.take("k", { perMinute: 0 })).toMatchObject({
      allowed: false,
      window: "minute",
      retryAfterSeconds: 60,
    });
  });
}
