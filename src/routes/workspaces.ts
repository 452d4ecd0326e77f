/** Workspaces: reads for keys and sessions (spec §4.5), create/update/delete for web sessions only. */
import * as v from "valibot";
import { type WorkspaceRow, workspaceView } from "../db/workspaces.js";
import { createWorkspace, updateWorkspace } from "../domain/admin.js";
import { RecordName } from "../domain/admin-rules.js";
import type { Ctx } from "../http/context.js";
import { workspaceNotFound } from "../http/errors.js";
import { route } from "../http/route.js";
import { maxChars, PageQuery, pageOf, Timestamp, WorkspaceQuery } from "../http/schemas.js";
import { actorOf } from "./apikeys.js";
import {
  AUTH_ERRORS,
  CONFLICT,
  checkRecordPlace,
  decodeCursor,
  encodeCursor,
  INPUT_ERRORS,
  NOT_FOUND,
  page,
} from "./common.js";

const Workspace = v.object({ id: v.string(), name: v.string(), is_default: v.boolean(), created_at: Timestamp });
const WorkspaceParams = v.object({ workspaceId: v.pipe(v.string(), maxChars(64)) });
const ListQuery = v.object({ ...PageQuery, ...WorkspaceQuery });

/**
 * Finds a workspace of the caller's account by id (404 otherwise), checks the key's binding, and answers 404 when
 * the request explicitly names another workspace_id (as for every record reached by id).
 */
function findWorkspace(ctx: Ctx<{ workspaceId: string }>): WorkspaceRow {
  const ws = ctx.services.store.workspaces.byId(ctx.params.workspaceId);
  if (!ws || ws.account_id !== ctx.principal.accountId) throw workspaceNotFound(ctx.params.workspaceId);
  checkRecordPlace(ctx, ws.id, (named) => workspaceNotFound(ws.id, named));
  return ws;
}

export const workspaceRoutes = [
  route({
    method: "GET",
    path: "/api/v1/workspaces",
    operationId: "listWorkspaces",
    summary:
      "List workspaces, in id order: ids are random, so not the order they were made (a bound key sees only its own)",
    tag: "Workspaces",
    stability: "beta",
    access: "any",
    workspace: "optional",
    query: ListQuery,
    responses: {
      200: { description: "A page of workspaces.", schema: pageOf(Workspace) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<Record<string, string>, v.InferOutput<typeof ListQuery>>) {
      const after = decodeCursor<string>(ctx.query.cursor, "string") ?? "";
      if (ctx.principal.boundWorkspaceId !== null || ctx.query.workspace_id !== undefined) {
        // A list of one: a cursor (which can only come after it) leaves it out, as on any list.
        const only = ctx.services.store.workspaces.byId(ctx.principal.boundWorkspaceId ?? ctx.query.workspace_id!);
        const shown = only && only.id > after ? [workspaceView(only)] : [];
        return { body: { data: shown, has_more: false, next_cursor: null } };
      }
      const rows = ctx.services.store.workspaces.page(ctx.principal.accountId, after, ctx.query.limit + 1);
      const p = page(rows, ctx.query.limit, (w) => encodeCursor(w.id));
      return { body: { ...p, data: p.data.map(workspaceView) } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/workspaces/{workspaceId}",
    operationId: "getWorkspace",
    summary: "Read one workspace",
    tag: "Workspaces",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: WorkspaceParams,
    responses: { 200: { description: "The workspace.", schema: Workspace }, ...AUTH_ERRORS, ...NOT_FOUND("Workspace") },
    handler(ctx: Ctx<{ workspaceId: string }>) {
      return { body: workspaceView(findWorkspace(ctx)) };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/workspaces",
    operationId: "createWorkspace",
    created: (body: { id: string }) => `/api/v1/workspaces/${body.id}`,
    summary: "Create a workspace (web session only)",
    tag: "Workspaces",
    stability: "beta",
    access: "session",
    body: v.object({ name: RecordName, is_default: v.optional(v.boolean()) }),
    responses: { 201: { description: "The new workspace.", schema: Workspace }, ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler(ctx: Ctx<Record<string, string>, unknown, { name: string; is_default?: boolean }>) {
      const ws = createWorkspace(
        ctx.services.store,
        actorOf(ctx),
        ctx.principal.accountId,
        ctx.body.name,
        ctx.body.is_default ?? false,
        ctx.services.clock.now(),
      );
      return { status: 201, body: workspaceView(ws) };
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/workspaces/{workspaceId}",
    operationId: "updateWorkspace",
    summary: "Rename a workspace or make it the default (web session only)",
    tag: "Workspaces",
    stability: "beta",
    access: "session",
    params: WorkspaceParams,
    body: v.object({ name: v.optional(RecordName), is_default: v.optional(v.boolean()) }),
    responses: {
      200: { description: "The workspace.", schema: Workspace },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
      ...CONFLICT(
        "is_default false on the default workspace: an account keeps a default, changed by is_default true on another " +
          "(invalid_status, current_status default). On a workspace that is not the default, false changes nothing.",
      ),
    },
    handler(ctx: Ctx<{ workspaceId: string }, unknown, { name?: string; is_default?: boolean }>) {
      const ws = findWorkspace(ctx);
      return { body: workspaceView(updateWorkspace(ctx.services.store, actorOf(ctx), ws, ctx.body)) };
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/workspaces/{workspaceId}",
    operationId: "deleteWorkspace",
    summary: "Delete a workspace, its records and the keys bound to it (web session only)",
    tag: "Workspaces",
    stability: "beta",
    access: "session",
    params: WorkspaceParams,
    responses: {
      200: { description: "Deleted.", schema: v.object({ id: v.string(), deleted: v.literal(true) }) },
      ...AUTH_ERRORS,
      ...NOT_FOUND("Workspace"),
      ...CONFLICT("The default workspace cannot be deleted while others exist."),
    },
    async handler(ctx: Ctx<{ workspaceId: string }>) {
      const ws = findWorkspace(ctx);
      // On the writer thread: the cascade deletes every record of the workspace, texts and images included.
      try {
        await ctx.services.writer.run("workspaceRemove", { actor: actorOf(ctx), id: ws.id });
      } finally {
        // Its keys, and the workspace itself, were kept in memory (the writer's connection is another one).
        ctx.services.rows.clear();
      }
      return { body: { id: ws.id, deleted: true } };
    },
  }),
];
