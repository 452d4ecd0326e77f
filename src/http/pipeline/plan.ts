/** The plan stage (DESIGN §5): API access needs a Business or Agency plan. */
import type { AccountRow } from "../../db/accounts.js";
import { ApiError } from "../../domain/errors.js";
import { API_PLANS, PLAN_LIMITS } from "../../domain/plans.js";
import type { Services } from "../context.js";
import { PLAN_PAGE } from "../dashboard-paths.js";
import { publicUrlOf } from "../public-url.js";
import type { RoutedState, Stage } from "./state.js";

/**
 * The 403 plan_upgrade_required of an account whose plan has no API access. Its upgrade_action is an absolute URL
 * under the server's public address (spec §7), so that a client can follow it as given: the dashboard's plan page.
 */
export function planForbidden(services: Services, account: AccountRow): ApiError {
  return new ApiError(
    "plan_upgrade_required",
    `API access needs a Business or Agency plan; this account is on ${account.plan}.`,
    {
      current_plan: account.plan,
      required_plans: API_PLANS,
      upgrade_action: publicUrlOf(services.config.publicUrl, PLAN_PAGE),
    },
  );
}

/**
 * The plan stage: 403 plan_upgrade_required for a plan without API access. API keys always need one; web sessions
 * only outside the routes exempt from it (RouteDef.planExempt: account reads, settings, billing).
 */
export function requirePlan(services: Services): Stage<RoutedState> {
  return function requirePlan(state) {
    const { principal, account } = state;
    if (!principal || !account || PLAN_LIMITS[account.plan].apiAccess) return;
    if (principal.kind === "key" || !state.route.planExempt) throw planForbidden(services, account);
  };
}
