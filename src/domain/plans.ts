/** Plans, their API access, rate limits, monthly analysis quota, key cap and storage quota (DESIGN §5). */

import { PLANS, type Plan } from "../db/accounts.js";

/** What a plan allows. */
export interface PlanLimits {
  apiAccess: boolean;
  perMinute: number;
  perHour: number;
  analysesPerMonth: number;
  /** API keys the account may have active (not revoked, not expired) at once: the per-key limits are not multiplied at will. */
  maxActiveKeys: number;
  /** Bytes the account's records may hold (texts, references, images, conversions). */
  storageBytes: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** What each plan allows: API access, rate limits per minute and hour, analyses a month, active keys, storage. */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: {
    apiAccess: false,
    perMinute: 0,
    perHour: 0,
    analysesPerMonth: 0,
    maxActiveKeys: 5,
    storageBytes: 256 * MiB,
  },
  pro: { apiAccess: false, perMinute: 0, perHour: 0, analysesPerMonth: 0, maxActiveKeys: 10, storageBytes: 2 * GiB },
  business: {
    apiAccess: true,
    perMinute: 100,
    perHour: 1000,
    analysesPerMonth: 500,
    maxActiveKeys: 50,
    storageBytes: 10 * GiB,
  },
  agency: {
    apiAccess: true,
    perMinute: 300,
    perHour: 5000,
    analysesPerMonth: 2000,
    maxActiveKeys: 200,
    storageBytes: 50 * GiB,
  },
};

/** Plans that have API access, for the upgrade prompt. */
export const API_PLANS: Plan[] = PLANS.filter((p) => PLAN_LIMITS[p].apiAccess);

/** Whether a string names one of the plans. */
export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/**
 * The rate limits in force for an account, each window on its own: its override when set, else its plan's. Plans
 * without API access have no limits of their own (DESIGN §5: their keys are refused, 403): their web sessions are
 * limited as business accounts are. What the buckets use, the entitlements report and the CLI prints.
 */
export function effectiveRateLimits(account: {
  plan: Plan;
  rate_per_minute: number | null;
  rate_per_hour: number | null;
}): { perMinute: number; perHour: number } {
  const plan = PLAN_LIMITS[account.plan].apiAccess ? PLAN_LIMITS[account.plan] : PLAN_LIMITS.business;
  return {
    perMinute: account.rate_per_minute ?? plan.perMinute,
    perHour: account.rate_per_hour ?? plan.perHour,
  };
}

/**
 * The rate limits of an account's web sessions: its keys' (effectiveRateLimits), but never below its plan's, so
 * that an admin who sets their own account's limits to 1 an hour cannot lock their own session out of undoing it
 * (issue 31). Tests: test/routes/session-limits.test.ts.
 */
export function sessionRateLimits(account: {
  plan: Plan;
  rate_per_minute: number | null;
  rate_per_hour: number | null;
}): { perMinute: number; perHour: number } {
  const own = effectiveRateLimits(account);
  const plan = effectiveRateLimits({ plan: account.plan, rate_per_minute: null, rate_per_hour: null });
  return { perMinute: Math.max(own.perMinute, plan.perMinute), perHour: Math.max(own.perHour, plan.perHour) };
}

/** The quotas in force for an account, each on its own: its override when set, else its plan's. */
export function effectiveQuotas(account: {
  plan: Plan;
  max_active_keys: number | null;
  storage_bytes: number | null;
}): { maxActiveKeys: number; storageBytes: number } {
  const plan = PLAN_LIMITS[account.plan];
  return {
    maxActiveKeys: account.max_active_keys ?? plan.maxActiveKeys,
    storageBytes: account.storage_bytes ?? plan.storageBytes,
  };
}
