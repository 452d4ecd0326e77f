/**
 * Usage counters per account, API key and UTC day. They are counted in memory and written in batches (never a
 * database write per request); a report merges what is stored with what is still in memory, so a caller sees its
 * own requests at once.
 */
import type { Store } from "../db/store.js";
import { USAGE_FIELDS, type UsageCounts, type UsageField, type UsageRow } from "../db/usage.js";
import type { Clock } from "./clock.js";
import type { StoreWriter } from "./writer.js";

export { USAGE_FIELDS, type UsageCounts, type UsageField };

/** The longest range a usage report covers, in days (a leap year). */
export const MAX_USAGE_DAYS = 366;

/** The days a report covers when none are named: the last 30, ending today. */
export const DEFAULT_USAGE_DAYS = 30;

const DAY_MS = 86_400_000;

/** The day utcDay last answered, with the instant it starts. */
let lastDay = { start: Number.NaN, day: "" };

/** Who did something worth counting: an account and, for an API key, the key (a request's Principal fits). */
export interface UsageCaller {
  accountId: number;
  kind: string;
  key?: { id: string };
}

/** Counters at zero. */
export function zeroCounts(): UsageCounts {
  return Object.fromEntries(USAGE_FIELDS.map((f) => [f, 0])) as UsageCounts;
}

/** The UTC calendar day (YYYY-MM-DD) of an instant. */
export function utcDay(ms: number): string {
  // Asked on every request for nearly the same instant: the last day is kept with its bounds.
  if (ms >= lastDay.start && ms < lastDay.start + DAY_MS) return lastDay.day;
  const day = new Date(ms).toISOString().slice(0, 10);
  lastDay = { start: Date.parse(`${day}T00:00:00Z`), day };
  return day;
}

/** The first day written YYYY-MM-DD; an earlier one is written -000001-12-31. */
export const FIRST_DAY = "0000-01-01";

/** The day `n` days after (or before, when negative) a YYYY-MM-DD day. */
export function addDays(day: string, n: number): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);
}

/** How many days a range covers, both ends included (0 or less when reversed). */
export function daysInRange(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** An account's usage over a range of days. */
export interface UsageReport {
  from: string;
  to: string;
  totals: UsageCounts;
  /** Every day of the range, oldest first, zeros included. */
  days: ({ day: string } & UsageCounts)[];
  /** The API keys with any usage in the range, busiest first; name is null for a key no longer stored. */
  keys: ({ key_id: string; name: string | null } & UsageCounts)[];
}

function addInto(target: UsageCounts, source: UsageCounts): void {
  for (const f of USAGE_FIELDS) target[f] += source[f];
}

/** The counters kept under `id` in a map, created at zero. */
function bucket(map: Map<string, UsageCounts>, id: string): UsageCounts {
  let counts = map.get(id);
  if (!counts) {
    counts = zeroCounts();
    map.set(id, counts);
  }
  return counts;
}

/** The in-memory counters of a server, flushed by its timer and at shutdown. */
export class UsageCounter {
  /** Increments not yet written, by account, key and day. */
  private pending = new Map<string, UsageRow>();

  constructor(
    private store: Store,
    private clock: Clock,
  ) {}

  /** Adds n (default 1) to one counter of an account and key (null: no key) for today (UTC). */
  count(accountId: number, keyId: string | null, field: UsageField, n = 1): void {
    if (!Number.isSafeInteger(n) || n <= 0) return;
    const day = utcDay(this.clock.now());
    const id = `${accountId}\u0000${keyId ?? ""}\u0000${day}`;
    let row = this.pending.get(id);
    if (!row) {
      row = { account_id: accountId, key_id: keyId ?? "", day, ...zeroCounts() };
      this.pending.set(id, row);
    }
    row[field] += n;
  }

  /** Counts for a request's caller: its account and, for an API key, the key. */
  countFor(caller: UsageCaller, counts: Partial<UsageCounts>): void {
    const keyId = caller.kind === "key" && caller.key ? caller.key.id : null;
    for (const f of USAGE_FIELDS) {
      const n = counts[f];
      if (n) this.count(caller.accountId, keyId, f, n);
    }
  }

  /** How many (account, key, day) rows wait to be written. */
  get pendingRows(): number {
    return this.pending.size;
  }

  /** Writes every pending increment in one transaction; returns the rows written. On failure nothing is lost. */
  flush(): number {
    const rows = this.take();
    if (rows.length === 0) return 0;
    try {
      this.store.usage.addMany(rows);
    } catch (e) {
      this.restore(rows);
      throw e;
    }
    return rows.length;
  }

  /** The flush through the writer in progress: its rows are neither in memory nor readable until it ends. */
  private flushing: Promise<unknown> = Promise.resolve();

  /** flush() through a writer (the server's writer thread: see writer.ts). */
  flushVia(writer: StoreWriter): Promise<number> {
    const rows = this.take();
    if (rows.length === 0) return Promise.resolve(0);
    const done = writer.run("usageAdd", rows).then(
      () => rows.length,
      (e) => {
        this.restore(rows);
        throw e;
      },
    );
    this.flushing = done.catch(() => {});
    return done;
  }

  /** Resolves when no flush is in progress (a report waits for it: see report). */
  settled(): Promise<unknown> {
    return this.flushing;
  }

  private take(): UsageRow[] {
    const rows = [...this.pending.values()];
    this.pending.clear();
    return rows;
  }

  /** The transaction rolled back: keep the increments for the next flush. */
  private restore(rows: UsageRow[]): void {
    for (const row of rows) {
      const id = `${row.account_id}\u0000${row.key_id}\u0000${row.day}`;
      const newer = this.pending.get(id);
      if (newer) addInto(newer, row);
      else this.pending.set(id, row);
    }
  }

  /** An account's usage between two days (inclusive), stored and still in memory (await settled() first). */
  report(accountId: number, from: string, to: string): UsageReport {
    const rows: UsageRow[] = this.store.usage.range(accountId, from, to);
    for (const row of this.pending.values())
      if (row.account_id === accountId && row.day >= from && row.day <= to) rows.push(row);

    const totals = zeroCounts();
    const byDay = new Map<string, UsageCounts>();
    const byKey = new Map<string, UsageCounts>();
    for (const row of rows) {
      addInto(totals, row);
      addInto(bucket(byDay, row.day), row);
      if (row.key_id !== "") addInto(bucket(byKey, row.key_id), row);
    }

    // Counted, not compared: the day after 9999-12-31 is written +010000-01-01, which sorts before it.
    const days: UsageReport["days"] = [];
    const span = daysInRange(from, to);
    for (let i = 0; i < span; i++) {
      const day = addDays(from, i);
      days.push({ day, ...(byDay.get(day) ?? zeroCounts()) });
    }
    const keys = [...byKey.entries()]
      .map(([keyId, counts]) => ({
        key_id: keyId,
        name: this.store.apiKeys.byId(keyId)?.name ?? null,
        ...counts,
      }))
      .sort((a, b) => b.requests - a.requests || (a.key_id < b.key_id ? -1 : a.key_id > b.key_id ? 1 : 0));
    return { from, to, totals, days, keys };
  }
}
