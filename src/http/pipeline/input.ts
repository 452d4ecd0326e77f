/**
 * The input stages (DESIGN §3): the body read off the wire and parsed (413, 415, invalid_json), then the request's
 * path, query and body validated against the route's schemas (400 validation_failed) into the handler's context.
 */
import type { AccountRow } from "../../db/accounts.js";
import type { WorkspaceRow } from "../../db/workspaces.js";
import { workspaceMismatch } from "../../domain/errors.js";
import { parseBody, readBody } from "../body.js";
import type { Ctx, Principal, Services } from "../context.js";
import { type CursorScope, unbindCursor } from "../cursors.js";
import { parseBodyInput, parseInput, queryObjectOf } from "../validate.js";
import type { RoutedState, Stage } from "./state.js";

const BODY_METHODS = ["POST", "PUT", "PATCH"];

/**
 * The body stage: reads and parses the body of a route that takes one. A write waits for its turn (turns.ts) once
 * its body is in, before the parsing and the work that hold the thread. A read without a body finishes at once.
 */
export function receiveBody(services: Services): Stage<RoutedState> {
  return function receiveBody(state) {
    state.hasBody = state.route.body !== undefined && BODY_METHODS.includes(state.request.method);
    if (state.hasBody || state.writes) return receive(services, state);
  };
}

async function receive(services: Services, state: RoutedState): Promise<void> {
  const raw = state.hasBody ? await readBody(state.request, state.route.upload) : undefined;
  if (state.writes) await services.turns.next();
  // Awaited: parseBody answers a multipart body with a promise (Response.formData() parses it).
  if (raw) state.body = await parseBody(raw, state.route.bodyRequired);
}

/**
 * The input stage: validates the path, the query and the body against the route's schemas (400 validation_failed)
 * and builds the handler's context. A list's cursor is bound to the list that issued it (cursors.ts): it is checked
 * here, and the handler sees its own.
 */
export function validateInput(services: Services): Stage<RoutedState> {
  return function validateInput(state) {
    const { route, principal, workspace } = state;
    const queryObject = queryObjectOf(state.url.searchParams, route.query);
    const ctx: Ctx = {
      request: state.request,
      traceId: state.traceId,
      clientAddress: state.clientAddress,
      services,
      principal: principal as Principal,
      account: state.account as AccountRow,
      workspace: workspace as WorkspaceRow,
      checkRecordWorkspace(recordWs: string) {
        if (principal && principal.boundWorkspaceId !== null && principal.boundWorkspaceId !== recordWs)
          throw workspaceMismatch(principal.boundWorkspaceId, recordWs);
      },
      params: route.params ? parseInput(route.params, state.match.params, "path") : state.match.params,
      query: route.query ? parseInput(route.query, queryObject, "query") : queryObject,
      body: route.body ? parseBodyInput(route.body, state.body) : undefined,
    };
    state.ctx = ctx;
    const query = ctx.query as Record<string, unknown>;
    const cursorScope: CursorScope | undefined = route.lists
      ? {
          operationId: route.operationId,
          params: ctx.params,
          query,
          accountId: principal?.accountId,
          workspaceId: workspace?.id,
        }
      : undefined;
    state.cursorScope = cursorScope;
    if (cursorScope && typeof query.cursor === "string") query.cursor = unbindCursor(query.cursor, cursorScope);
  };
}
