/** The scope stage (DESIGN §3): every method other than GET and HEAD needs the write scope. */

import { ApiError } from "../../domain/errors.js";
import type { Principal, Services } from "../context.js";
import { REISSUE_KEY_PAGE } from "../dashboard-paths.js";
import { publicUrlOf } from "../public-url.js";
import type { RoutedState, Stage } from "./state.js";

/**
 * The 403 insufficient_scope of a read-only key's write. Its upgrade_action is an absolute URL under the server's
 * public address (spec §7): the dashboard's key-creation page, filled in for a read+write key.
 */
export function scopeForbidden(services: Services, principal: Principal): ApiError {
  return new ApiError(
    "insufficient_scope",
    "This operation needs the write scope; this API key is read-only. Sign in to the dashboard at upgrade_action to create a read+write key.",
    {
      required_scope: "write",
      current_scopes: principal.scopes,
      upgrade_action: publicUrlOf(services.config.publicUrl, REISSUE_KEY_PAGE),
    },
  );
}

/** The scope stage: 403 insufficient_scope for a write by a caller without the write scope. */
export function requireScope(services: Services): Stage<RoutedState> {
  return function requireScope(state) {
    const principal = state.principal;
    if (principal && state.writes && !principal.scopes.includes("write")) throw scopeForbidden(services, principal);
  };
}
