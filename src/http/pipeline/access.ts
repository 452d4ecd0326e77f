/** The access stage (spec §4.11): operations reserved to web sessions, and to administrators. */

import { ApiError } from "../../domain/errors.js";
import { unauthorized } from "../auth.js";
import { SESSION_ONLY_MESSAGE } from "./authenticate.js";
import type { RoutedState } from "./state.js";

/**
 * The access stage: 401 for an operation reserved to web sessions (RouteDef.access `session` or `admin`) called
 * with an API key, 403 admin_required for an administrator's operation called by another user.
 */
export function requireAccess(state: RoutedState): void {
  const { principal, route } = state;
  if (!principal) return;
  if ((route.access === "session" || route.access === "admin") && principal.kind === "key")
    throw unauthorized(SESSION_ONLY_MESSAGE);
  if (route.access === "admin" && principal.kind === "session" && principal.role !== "admin")
    throw new ApiError("admin_required", "This operation needs an administrator.", { required_role: "admin" });
}
