/** The time source; tests replace it to drive rate limits and expiry without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to, for tests. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** ISO 8601 UTC with Z, the one timestamp format of the API. */
export function iso(ms: number): string {
  // Many requests share a millisecond (log lines, last-used times): the last answer is kept.
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

let lastIso = { ms: Number.NaN, text: "" };
