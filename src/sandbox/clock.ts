/**
 * The sandbox's test clock (GET|POST /_sandbox/clock, docs/sandbox.md "The test clock"): the services' Clock in
 * sandbox mode, so that everything that reads the time (expiry, rate windows, quotas, retention, usage days, stamps)
 * reads this one. It runs on from where it was set, as real time does, unless frozen. It never moves backward:
 * rows already stamped (idempotency expiries, revoked sessions, usage days, created_at order) would lie in its
 * future. Held by test/sandbox/clock.test.ts.
 */
import type { Clock } from "../domain/clock.js";

/** A clock's offset from real time, or its frozen instant (SandboxClock.mark). */
export interface ClockMark {
  offsetMs: number;
  frozenAt: number | undefined;
}

/** Real time (the base clock) plus an offset, or a frozen instant. */
export class SandboxClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.frozenAt ?? this.base.now() + this.offsetMs;
  }

  /** How far the clock is ahead of real time, in milliseconds. */
  offset(): number {
    return this.now() - this.base.now();
  }

  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  /** Moves the clock to `ms`, never backward (the caller has checked: see the module's comment). */
  set(ms: number): void {
    if (ms < this.now()) throw new RangeError("the test clock does not move backward");
    if (this.frozenAt !== undefined) this.frozenAt = ms;
    else this.offsetMs = ms - this.base.now();
  }

  /** Where the clock stands (its offset, or its frozen instant), to come back to with returnTo. */
  mark(): ClockMark {
    return { offsetMs: this.offsetMs, frozenAt: this.frozenAt };
  }

  /**
   * Back to a mark: the one way the clock moves backward, taken only by a reset together with the data of that time
   * (states.ts), so that no stamp lies in its future. Held by test/sandbox/reset.test.ts.
   */
  returnTo(mark: ClockMark): void {
    this.offsetMs = mark.offsetMs;
    this.frozenAt = mark.frozenAt;
  }

  /** Stops the clock where it is, or lets it run on from there. */
  freeze(frozen: boolean): void {
    if (frozen && this.frozenAt === undefined) this.frozenAt = this.now();
    if (!frozen && this.frozenAt !== undefined) {
      this.offsetMs = this.frozenAt - this.base.now();
      this.frozenAt = undefined;
    }
  }
}

const DURATION =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/;

/** Whether `text` is an ISO 8601 duration the clock takes (`P31D`, `PT61S`, `P1Y2M`, `PT0.5S`; no negative one). */
export function isDuration(text: string): boolean {
  return DURATION.test(text);
}

/**
 * The instant `duration` after `fromMs`. Years and months are calendar ones in UTC (P1M from January 31 is March 3 or
 * 2, as Date's month arithmetic gives); weeks, days and the time part are fixed lengths (a day is 24 h: UTC has no
 * DST).
 */
export function addDuration(fromMs: number, duration: string): number {
  const m = DURATION.exec(duration);
  if (!m) throw new RangeError(`not an ISO 8601 duration: ${duration}`);
  const [years, months, weeks, days, hours, minutes] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const seconds = Number(m[7] ?? 0);
  const date = new Date(fromMs);
  if (years || months) date.setUTCMonth(date.getUTCMonth() + months + 12 * years);
  return date.getTime() + ((((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000;
}
