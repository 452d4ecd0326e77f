/**
 * The recheck stage: what a write's body and turn waited for, read again from the database before the write. A key
 * revoked or a session signed out while the body arrived (as slowly as its sender likes) writes nothing once its
 * revocation was answered; a workspace deleted meanwhile, here or by another process within the row cache's check
 * interval, is 404, not a failed foreign key (test/http/pool-races.test.ts).
 */
import { requireWorkspaceStill } from "../../domain/contents.js";
import { requireCredentialsStill } from "../auth.js";
import type { Services } from "../context.js";
import type { RoutedState, Stage } from "./state.js";

/** The recheck stage: 401 for a write whose credentials went while its body arrived, 404 for its workspace gone. */
export function recheckWrite(services: Services): Stage<RoutedState> {
  return function recheckWrite(state) {
    if (!state.writes) return;
    if (state.hasBody && state.principal) requireCredentialsStill(state.principal, services);
    if (state.workspace) requireWorkspaceStill(services.store, state.workspace.id);
  };
}
