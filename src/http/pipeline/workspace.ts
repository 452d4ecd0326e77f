/**
 * The workspace stages (DESIGN §3, spec §5): the workspace a workspace-aware request operates on, from the key's
 * binding, the query's or the body's workspace_id, or the account's default. The query's is settled before the body
 * is read; the body's once it is parsed, before the input's validation.
 */
import type { WorkspaceRow } from "../../db/workspaces.js";
import { ApiError, invalidInput, workspaceMismatch, workspaceNotFound } from "../../domain/errors.js";
import { kindOf } from "../../domain/wording.js";
import type { Principal, Services } from "../context.js";
import type { RouteDef } from "../route.js";
import { EMPTY_WORKSPACE_ID } from "../schemas.js";
import { repeatedQuery } from "../validate.js";
import type { RoutedState, Stage } from "./state.js";

/** An empty workspace_id is a mistake in the request (400), not a workspace's name (test/http/spec-tables.test.ts). */
function emptyWorkspaceId(path: string): ApiError {
  return invalidInput(path, `workspace_id ${EMPTY_WORKSPACE_ID}`);
}

/** The workspace_id a request's JSON body names, if any (null is none). */
function bodyWorkspaceId(body: unknown): string | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body) || !("workspace_id" in body)) return undefined;
  const value = (body as Record<string, unknown>).workspace_id;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string")
    throw invalidInput("body.workspace_id", `workspace_id must be a string (got ${kindOf(value)})`);
  if (value === "") throw emptyWorkspaceId("body.workspace_id");
  return value;
}

/**
 * A body's workspace_id beside the query's (spec §5: never silently overridden): a bound key naming another workspace
 * in either is 403 workspace_mismatch (the query's was settled before the body was read); two different values are
 * 400 validation_failed, for any caller.
 */
function checkBodyWorkspace(principal: Principal, fromQuery: string, fromBody: string | undefined): void {
  if (fromBody === undefined) return;
  const bound = principal.boundWorkspaceId;
  if (bound !== null && fromBody !== bound) throw workspaceMismatch(bound, fromBody);
  if (fromBody !== fromQuery) {
    const message = `workspace_id names ${fromBody}, but the query's names ${fromQuery}: send one workspace_id`;
    throw new ApiError("validation_failed", message, {
      issues: [
        { path: "query.workspace_id", message: `workspace_id names ${fromQuery}, but the body's names ${fromBody}` },
        { path: "body.workspace_id", message },
      ],
    });
  }
}

/** A workspace by id, through the row cache (db/row-cache.ts). */
function workspaceRow(services: Services, id: string): WorkspaceRow | undefined {
  return services.rows.get(`workspace:${id}`, () => services.store.workspaces.byId(id));
}

/** A route's workspace mode for this body: `optional` when the body names the record that brings its own. */
function workspaceMode(def: RouteDef, body: unknown): "required" | "optional" {
  const field = def.workspaceUnless;
  if (field !== undefined && body && typeof body === "object" && !Array.isArray(body)) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined && value !== null) return "optional";
  }
  return def.workspace ?? "optional";
}

/** Resolves the workspace of a workspace-aware request per spec §5's table (test/http/spec-tables.test.ts). */
export function resolveWorkspace(
  services: Services,
  principal: Principal,
  requested: string | undefined,
  mode: "required" | "optional",
): WorkspaceRow | undefined {
  const bound = principal.boundWorkspaceId;
  if (bound !== null) {
    if (requested !== undefined && requested !== bound) throw workspaceMismatch(bound, requested);
    // The key's workspace can be gone while the request waited (its body, its turn): the key went with it.
    const ws = workspaceRow(services, bound);
    if (!ws) throw workspaceNotFound(bound);
    return ws;
  }
  if (requested !== undefined) {
    const ws = workspaceRow(services, requested);
    if (!ws || ws.account_id !== principal.accountId) throw workspaceNotFound(requested);
    return ws;
  }
  if (mode === "optional") return undefined;
  const accountId = principal.accountId;
  const fallback = services.rows.get(`default-workspace:${accountId}`, () =>
    services.store.workspaces.defaultOf(accountId),
  );
  if (!fallback) throw new ApiError("workspace_required", "This operation needs a workspace: pass workspace_id.", {});
  return fallback;
}

/**
 * The query's workspace stage: a workspace_id in the query of a workspace-aware request, settled before the body is
 * read. A repeated one is refused here, before the rest of the query: the rest is input validation, which comes
 * after the workspace and the body (DESIGN §3), and most workspace-aware operations read workspace_id without
 * listing it in their query schema.
 */
export function resolveQueryWorkspace(services: Services): Stage<RoutedState> {
  return function resolveQueryWorkspace(state) {
    const { principal, route, url } = state;
    if (!principal || !route.workspace) return;
    const fromQuery = url.searchParams.get("workspace_id");
    if (fromQuery === null) return;
    state.queryWorkspaceId = fromQuery;
    if (fromQuery === "") throw emptyWorkspaceId("query.workspace_id");
    const workspaceIds = url.searchParams.getAll("workspace_id").length;
    if (workspaceIds > 1) throw repeatedQuery(new Map([["workspace_id", workspaceIds]]));
    state.workspace = resolveWorkspace(services, principal, fromQuery, route.workspace);
  };
}

/**
 * The body's workspace stage: beside the query's, the body's workspace_id must agree with it (checkBodyWorkspace);
 * without one in the query, the body's (or none) resolves the workspace, in the mode the body gives the route.
 */
export function resolveBodyWorkspace(services: Services): Stage<RoutedState> {
  return function resolveBodyWorkspace(state) {
    const { principal, route, body } = state;
    if (!principal || !route.workspace) return;
    if (state.queryWorkspaceId !== null) checkBodyWorkspace(principal, state.queryWorkspaceId, bodyWorkspaceId(body));
    else state.workspace = resolveWorkspace(services, principal, bodyWorkspaceId(body), workspaceMode(route, body));
  };
}
