/** The rate-limit stage (DESIGN §5): two buckets per key or session user, one per client address without one. */
import type { AccountRow } from "../../db/accounts.js";
import { addressKey } from "../../domain/address-key.js";
import { ApiError } from "../../domain/errors.js";
import { effectiveRateLimits, sessionRateLimits } from "../../domain/plans.js";
import { unauthorized } from "../auth.js";
import type { Principal, Services } from "../context.js";
import { ANONYMOUS_PER_MINUTE, type RateDecision } from "../ratelimit.js";
import type { RoutedState, Stage } from "./state.js";

/** The X-RateLimit-* headers of a decision (DESIGN §5), none without one. */
export function rateHeaders(d: RateDecision | undefined): Record<string, string> {
  if (!d) return {};
  return {
    "x-ratelimit-limit": String(d.limit),
    "x-ratelimit-remaining": String(d.remaining),
    "x-ratelimit-reset": String(d.reset),
  };
}

/** The 429 of a refused decision, with Retry-After (DESIGN §4). */
export function rateLimited(d: RateDecision): ApiError {
  return new ApiError(
    "rate_limit_exceeded",
    `Rate limit exceeded for this ${d.window === "hour" ? "hour" : "minute"}; retry in ${d.retryAfterSeconds} s.`,
    { window: d.window, limit: d.limit, retry_after_seconds: d.retryAfterSeconds },
    { "retry-after": String(d.retryAfterSeconds) },
  );
}

/**
 * Admits a request without valid credentials against its client address's bucket (an IPv6 client's /64's,
 * domain/address-key.ts); `peek` takes nothing, and may find nothing to report (Limiter.take).
 */
export function takeByAddress(services: Services, address: string | undefined, peek = false): RateDecision | undefined {
  return services.limiter.take(`addr:${addressKey(address)}`, { perMinute: ANONYMOUS_PER_MINUTE }, peek);
}

/** The account of a caller, through the row cache; 401 when it was deleted since the credentials were issued. */
function accountOf(services: Services, principal: Principal): AccountRow {
  const accountId = principal.accountId;
  const account = services.rows.get(`account:${accountId}`, () => services.store.accounts.byId(accountId));
  if (!account) throw unauthorized("The account of these credentials no longer exists.");
  return account;
}

/**
 * The rate-limit stage: 429 rate_limit_exceeded when the caller's buckets (per key or session user, else per client
 * address) hold no token. A covered request (RequestEnv.enclosing) takes none. The health probes are never refused
 * (a monitor polling them must not be), but they answer like every response (spec §8, DESIGN §3) with the
 * X-RateLimit-* of their client's address, which they do not use.
 */
export function limitRate(services: Services): Stage {
  return function limitRate(state) {
    if (state.route?.stability === "outside") {
      state.decision = takeByAddress(services, state.clientAddress, true);
      return;
    }
    const principal = state.principal;
    if (principal) {
      const account = accountOf(services, principal);
      state.account = account;
      const id = principal.kind === "key" ? principal.key.id : `user:${principal.userId}`;
      // Plans without API access: their sessions get the business limits (see effectiveRateLimits); sessions never
      // get less than the plan's, whatever the account's own limits (sessionRateLimits).
      const limits = principal.kind === "key" ? effectiveRateLimits(account) : sessionRateLimits(account);
      state.bucket = { id, limits };
      if (!state.covered) state.decision = services.limiter.take(id, state.bucket.limits);
    } else if (!state.covered) state.decision = takeByAddress(services, state.clientAddress);
    if (state.decision && !state.decision.allowed) throw rateLimited(state.decision);
  };
}

/** Reads the caller's bucket again after an operation that took tokens of its own (RouteDef.spendsTokens). */
export function rereadBucket(services: Services, state: RoutedState): void {
  // An MCP batch's further tool calls took tokens of their own: its answer says what they left.
  const { bucket, decision } = state;
  if (state.route.spendsTokens && bucket !== undefined && decision)
    state.decision = services.limiter.take(bucket.id, bucket.limits, true);
}
