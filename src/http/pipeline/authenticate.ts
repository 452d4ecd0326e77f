/** The authenticate stage (DESIGN §3, spec §5): who is calling, and the 401 of credentials that do not hold. */
import { authenticate, bearerToken, isApiKey, unauthorized } from "../auth.js";
import type { Services } from "../context.js";
import type { RequestState, RoutedState, Stage } from "./state.js";

/** The 401 message of an operation reserved to web sessions (spec §4.11) called with an API key. */
export const SESSION_ONLY_MESSAGE = "This operation is not available to API keys; sign in with a web session.";

/**
 * The authenticate stage: settles the caller, or why its credentials were refused. Public routes ignore credentials
 * (those that refuse API keys note the key) and those outside the API (the health probes) read none. A refusal waits for
 * the rate limit (refuseUnauthenticated), so that it is counted and carries X-RateLimit-* like every answer; a
 * request to no route is limited as its credentials allow, and answered 404 or 405.
 */
export function authenticateCaller(services: Services): Stage {
  return function authenticateCaller(state) {
    const route = state.route;
    if (route?.access === "public") {
      if (route.rejectsApiKeys) {
        const token = bearerToken(state.request);
        if (token && isApiKey(token)) state.authFailure = SESSION_ONLY_MESSAGE;
      }
      return;
    }
    if (route?.stability === "outside") return;
    // Synchronous for API keys (the hot path); a session token's signature is checked asynchronously.
    const authenticated = authenticate(state.request, services);
    if (authenticated instanceof Promise) return authenticated.then((auth) => settleCaller(state, auth));
    settleCaller(state, authenticated);
  };
}

function settleCaller(state: RequestState, auth: Awaited<ReturnType<typeof authenticate>>): void {
  if (auth.principal) state.principal = auth.principal;
  else if (state.route) state.authFailure = auth.reason;
}

/** The authenticate stage's 401, answered after the route's 404 and 405 (DESIGN §3). */
export function refuseUnauthenticated(state: RoutedState): void {
  if (state.authFailure !== undefined) throw unauthorized(state.authFailure);
}
