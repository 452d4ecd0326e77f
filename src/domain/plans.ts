/** Plans, their API access, rate limits and monthly analysis quota (DESIGN §5). */

import { PLANS, type Plan } from "../db/accounts.js";

/** What a plan allows. */
export interface PlanLimits {
  apiAccess: boolean;
  perMinute: number;
  perHour: number;
  analysesPerMonth: number;
}

/** What each plan allows: API access, its rate limits per minute and hour, and its analyses a month. */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { apiAccess: false, perMinute: 0, perHour: 0, analysesPerMonth: 0 },
  pro: { apiAccess: false, perMinute: 0, perHour: 0, analysesPerMonth: 0 },
  business: { apiAccess: true, perMinute: 100, perHour: 1000, analysesPerMonth: 500 },
  agency: { apiAccess: true, perMinute: 300, perHour: 5000, analysesPerMonth: 2000 },
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
