/**
 * An account's learning settings: its preferences (learning on and its voice applied to generation unless the
 * account turned them off) and its monthly quota of analyses (the plan's, counted per calendar month in UTC).
 */
import type { AccountRow } from "../db/accounts.js";
import type { Store } from "../db/store.js";
import { PLAN_LIMITS } from "./plans.js";

/** The learning preferences of an account: both on until the account sets them. */
export function learningPreferences(store: Pick<Store, "misc">, accountId: number) {
  const row = store.misc.learningPreferences(accountId);
  return row
    ? { enabled: row.enabled === 1, apply_to_generation: row.apply_to_generation === 1, updated_at: row.updated_at }
    : { enabled: true, apply_to_generation: true, updated_at: null };
}

/** The current calendar month (UTC) as the analysis quota's period. */
export function quotaPeriod(nowMs: number): { start: string; end: string } {
  const d = new Date(nowMs);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/** Learning analyses used by an account in the quota period starting at `periodStart`. */
export function analysesUsed(store: Pick<Store, "learning">, accountId: number, periodStart: string): number {
  return store.learning.quotaUsed(accountId, periodStart.slice(0, 7));
}

/** An account's analysis quota of the current month: its period, the plan's limit, what is used and what is left. */
export function analysisQuota(store: Pick<Store, "learning">, account: AccountRow, nowMs: number) {
  const period = quotaPeriod(nowMs);
  const limit = PLAN_LIMITS[account.plan].analysesPerMonth;
  const used = analysesUsed(store, account.id, period.start);
  return { period_start: period.start, period_end: period.end, limit, used, remaining: Math.max(0, limit - used) };
}
