/** Workspaces: reads for keys and sessions (spec §4.5), create/update/delete for administrators' web sessions. */
import * as v from "valibot";
import type { WorkspaceRow } from "../db/workspaces.js";
import { createWorkspace, updateWorkspace } from "../domain/admin.js";
import { workspaceNotFound } from "../domain/errors.js";
import { workspaceView } from "../domain/views/workspaces.js";
import { RecordName } from "../http/admin-rules.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { maxChars, named, PageQuery, pageOf, Timestamp, WorkspaceQuery } from "../http/schemas.js";
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
  SESSION_ONLY,
} from "./common.js";

/**
 * Who changes workspaces (DESIGN §10): an account's administrators; members list and read them. Held by the route
 * matrix (g) and test/routes/workspaces.test.ts "members".
 */
const ADMINS_ONLY =
  " Administrators only: a member's session gets 403 admin_required; members list and read workspaces.";

const Workspace = named(
  "Workspace",
  v.pipe(
    v.object({
      id: v.pipe(v.string(), v.description("The workspace's id (ws_…), its workspace_id in every other operation.")),
      name: v.pipe(v.string(), v.description("The workspace's name.")),
      is_default: v.pipe(
        v.boolean(),
        v.description("Whether this is the account's default workspace, used when a request names none."),
      ),
      created_at: v.pipe(Timestamp, v.description("When the workspace was created.")),
    }),
    v.description(
      "A workspace: it holds its own reference materials, memories, contents, conversions and knowledge graph.",
    ),
  ),
);
const WORKSPACE_EXAMPLE = {
  id: "ws_NTwCOH7ZnxOG70kT",
  name: "Newsletter",
  is_default: true,
  created_at: "2026-12-01T09:00:00.000Z",
};
const WorkspaceParams = v.object({
  workspaceId: v.pipe(v.string(), maxChars(64), v.description("The workspace's id (ws_…).")),
});
const WorkspaceName = v.pipe(RecordName, v.description("The workspace's name (1 to 100 characters, trimmed)."));
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

/** The workspace routes: create, list, read, change and delete workspaces. */
export const workspaceRoutes = [
  route({
    method: "GET",
    path: "/api/v1/workspaces",
    operationId: "listWorkspaces",
    summary:
      "List workspaces, in id order: ids are random, so not the order they were made (a bound key sees only its own)",
    description:
      "Lists the account's workspaces a page at a time (pass next_cursor as cursor for the next page). Use it to " +
      "find the workspace_id the workspace-aware operations take, and which workspace is the default, used when a " +
      "request names none. A key bound to a workspace sees only that one; a workspace_id in the query lists only " +
      "that one. It changes nothing.",
    tag: "Workspaces",
    stability: "beta",
    access: "any",
    workspace: "optional",
    query: ListQuery,
    responses: {
      200: {
        description: "A page of workspaces.",
        schema: pageOf(Workspace),
        example: { data: [WORKSPACE_EXAMPLE], has_more: false, next_cursor: null },
      },
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
    description:
      "Reads one workspace of the account by its id. A key bound to another workspace gets 403 workspace_mismatch; " +
      "a workspace of another account is 404. It changes nothing.",
    tag: "Workspaces",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: WorkspaceParams,
    responses: {
      200: { description: "The workspace.", schema: Workspace, example: WORKSPACE_EXAMPLE },
      ...AUTH_ERRORS,
      ...NOT_FOUND("Workspace"),
    },
    handler(ctx: Ctx<{ workspaceId: string }>) {
      return { body: workspaceView(findWorkspace(ctx)) };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/workspaces",
    operationId: "createWorkspace",
    created: (body: { id: string }) => `/api/v1/workspaces/${body.id}`,
    summary: "Create a workspace (web session of an admin)",
    description:
      "Creates an empty workspace in the account, for a client, a brand or a project whose references, memories and " +
      "contents stay apart from the others'. With `is_default: true` it becomes the default workspace (the one " +
      "that was stops being it). The Location header names the new workspace. The creation is written to the audit " +
      "log. " +
      SESSION_ONLY +
      ADMINS_ONLY,
    tag: "Workspaces",
    stability: "beta",
    access: "admin",
    body: named(
      "CreateWorkspaceRequest",
      v.pipe(
        v.object({
          name: WorkspaceName,
          is_default: v.optional(
            v.pipe(v.boolean(), v.description("true: make it the account's default workspace. Default: false.")),
          ),
        }),
        v.description("The new workspace's name, and whether it becomes the default."),
      ),
    ),
    bodyExamples: { workspace: { name: "Client: Acme" }, default: { name: "Newsletter", is_default: true } },
    responses: {
      201: {
        description: "The new workspace.",
        schema: Workspace,
        example: { ...WORKSPACE_EXAMPLE, id: "ws_q3Vd8LkP0aZt2XyB", name: "Client: Acme", is_default: false },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
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
    summary: "Rename a workspace or make it the default (web session of an admin)",
    description:
      "Renames a workspace, or with `is_default: true` makes it the account's default (the one that was stops being " +
      "it). An account always keeps a default: `is_default: false` on the default workspace is 409 and nothing of " +
      "the body is applied; on another workspace it changes nothing. The change is written to the audit log. " +
      SESSION_ONLY +
      ADMINS_ONLY,
    tag: "Workspaces",
    stability: "beta",
    access: "admin",
    params: WorkspaceParams,
    body: named(
      "UpdateWorkspaceRequest",
      v.pipe(
        v.object({
          name: v.optional(WorkspaceName),
          is_default: v.optional(
            v.pipe(
              v.boolean(),
              v.description("true: make it the default; false is accepted only where it is not the default."),
            ),
          ),
        }),
        v.description("What to change; a field left out keeps its value."),
      ),
    ),
    bodyExamples: { rename: { name: "Newsletter (weekly)" } },
    responses: {
      200: {
        description: "The workspace.",
        schema: Workspace,
        example: { ...WORKSPACE_EXAMPLE, name: "Newsletter (weekly)" },
      },
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
    summary: "Delete a workspace, its records and the keys bound to it (web session of an admin)",
    description:
      "Deletes a workspace and everything in it, for good: its reference materials, memories, contents and their " +
      "versions, conversions, images and knowledge graph, and the API keys bound to it (their requests get 401 " +
      "from then on). The default workspace cannot be deleted (409 workspace_not_empty): make another the default " +
      "first; nor can the account's only workspace (409 last_workspace). The deletion is written to the audit log. " +
      SESSION_ONLY +
      ADMINS_ONLY,
    tag: "Workspaces",
    stability: "beta",
    access: "admin",
    params: WorkspaceParams,
    responses: {
      200: {
        description: "Deleted.",
        schema: v.object({
          id: v.pipe(v.string(), v.description("The deleted workspace's id.")),
          deleted: v.pipe(v.literal(true), v.description("Always true.")),
        }),
        example: { id: "ws_q3Vd8LkP0aZt2XyB", deleted: true },
      },
      ...AUTH_ERRORS,
      ...NOT_FOUND("Workspace"),
      ...CONFLICT("The default workspace (workspace_not_empty), or the account's only one (last_workspace)."),
    },
    async handler(ctx: Ctx<{ workspaceId: string }>) {
      const ws = findWorkspace(ctx);
      // On the writer thread: the cascade deletes every record of the workspace, texts and images included.
      try {
        await ctx.services.writer.run("workspaceRemove", {
          actor: actorOf(ctx),
          id: ws.id,
          nowMs: ctx.services.clock.now(),
        });
      } finally {
        // Its keys, and the workspace itself, were kept in memory (the writer's connection is another one).
        ctx.services.rows.clear();
      }
      return { body: { id: ws.id, deleted: true } };
    },
  }),
];
