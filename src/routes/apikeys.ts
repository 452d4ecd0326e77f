/** API keys: introspection of the calling key (spec §4.9) and session-side management (spec §4.11). */
import * as v from "valibot";
import { apiKeyView } from "../db/apikeys.js";
import { findKey, issueKey, renameKey, revokeKey } from "../domain/admin.js";
import { RecordName } from "../domain/admin-rules.js";
import { EXPIRY_CHOICES, KEY_ID_PATTERN, normaliseScopes } from "../domain/apikeys.js";
import type { Ctx } from "../http/context.js";
import { ApiError, invalidInput } from "../http/errors.js";
import { route } from "../http/route.js";
import { Integer, maxChars, PageQuery, pageOf, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, CONFLICT, err, INPUT_ERRORS, NOT_FOUND, pageList } from "./common.js";

const Scopes = v.array(v.picklist(["read", "write"]));

/** The calling key as GET /api-keys/current shows it. */
const CurrentKey = v.object({
  id: v.string(),
  name: v.string(),
  scopes: Scopes,
  workspace_id: v.nullable(v.string()),
  expires_at: v.nullable(Timestamp),
  last_used_at: v.nullable(Timestamp),
  created_at: Timestamp,
});

const KeyRecord = v.object({
  id: v.string(),
  account_id: Integer,
  name: v.string(),
  prefix: v.string(),
  scopes: Scopes,
  workspace_id: v.nullable(v.string()),
  expires_at: v.nullable(Timestamp),
  last_used_at: v.nullable(Timestamp),
  revoked_at: v.nullable(Timestamp),
  created_at: Timestamp,
});

const CreatedKey = v.object({
  ...KeyRecord.entries,
  key: v.pipe(
    v.nullable(v.pipe(v.string(), v.startsWith("svc_live_"))),
    v.description(
      "The secret, shown in this response only; null in a replay of it under Idempotency-Key (the secret is not kept).",
    ),
  ),
});

const CreateKeyBody = v.object({
  name: RecordName,
  // Listed so that a refused scope (admin is reserved, spec §2) is a validation issue with its path.
  scopes: v.optional(
    v.array(
      v.picklist(["read", "write"], 'Expected "read" or "write"; the admin scope is reserved and not issued in v1.'),
    ),
  ),
  workspace_id: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        maxChars(64),
        v.description(
          "The workspace the key is bound to. null: no binding (all the account's workspaces). Left out or an empty " +
            "string: bound to the account's workspace when it has one, else no binding.",
        ),
      ),
    ),
  ),
  expires: v.optional(v.picklist(EXPIRY_CHOICES)),
});

/**
 * A rename. Scopes and the workspace binding are fixed at creation (spec §2): a body that sends them as they are (a
 * client writing back the record it read) is a rename, one that would change them is refused (400), where it had
 * been answered 200 with the change ignored, which read as a downgrade that had not happened.
 */
const RenameKeyBody = v.object({
  name: RecordName,
  scopes: v.optional(v.pipe(Scopes, v.description("Fixed at creation: accepted only as the key has them (spec §2)."))),
  workspace_id: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.string(), maxChars(64))),
      v.description("Fixed at creation: accepted only as the key has it (spec §2)."),
    ),
  ),
});

/** 400 when a rename would change what is fixed at creation. */
function refuseFixedChanges(
  key: { scopes: string[]; workspace_id: string | null },
  body: v.InferOutput<typeof RenameKeyBody>,
) {
  const issue = (what: string) =>
    `${what} fixed at creation: issue a new key (POST /api-keys) and revoke this one (DELETE /api-keys/{id}).`;
  // Compared as issued: write implies read, an empty list is read (domain/apikeys.ts).
  if (body.scopes !== undefined && normaliseScopes(body.scopes).join() !== key.scopes.join())
    throw invalidInput("body.scopes", `${issue("Scopes are")} This key has ${key.scopes.join(", ")}.`);
  if (body.workspace_id !== undefined && body.workspace_id !== key.workspace_id)
    throw invalidInput(
      "body.workspace_id",
      `${issue("The workspace binding is")} This key is ${key.workspace_id ? `bound to ${key.workspace_id}` : "unbound"}.`,
    );
}

const KeyIdParams = v.object({ id: v.pipe(v.string(), v.regex(KEY_ID_PATTERN, "Expected a key id.")) });

function actorOf(ctx: Ctx): string {
  return ctx.principal.kind === "session" ? `user:${ctx.principal.userId}` : `key:${ctx.principal.key.id}`;
}

export const apiKeyRoutes = [
  route({
    method: "GET",
    path: "/api/v1/api-keys/current",
    operationId: "getCurrentApiKey",
    summary: "Introspect the calling API key",
    tag: "API keys",
    stability: "beta",
    access: "any",
    responses: {
      200: { description: "The calling key.", schema: CurrentKey },
      ...AUTH_ERRORS,
      404: err(
        "Authenticated by a web session, not an API key (api_key_not_found): GET /api/v1/users/me describes it.",
      ),
    },
    handler(ctx) {
      // Spec §4.9: it introspects the calling key. A web session has none; it was answered a record made up for it
      // (id "session", its dates "now"), which a client could not tell from a key's.
      if (ctx.principal.kind !== "key")
        throw new ApiError(
          "api_key_not_found",
          "This request was authenticated by a web session, not an API key: GET /api/v1/users/me describes the caller.",
        );
      const k = ctx.principal.key;
      const view = apiKeyView(k, ctx.services.keyUsage.lastUsed(k.id, k.last_used_at));
      return {
        body: {
          id: view.id,
          name: view.name,
          scopes: view.scopes,
          workspace_id: view.workspace_id,
          expires_at: view.expires_at,
          last_used_at: view.last_used_at,
          created_at: view.created_at,
        },
      };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/api-keys",
    operationId: "listApiKeys",
    summary: "List the account's API keys, oldest first (web session only)",
    tag: "API keys",
    stability: "beta",
    access: "session",
    planExempt: true,
    query: v.object(PageQuery),
    responses: {
      200: { description: "The keys, oldest first, never their secrets.", schema: pageOf(KeyRecord) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<unknown, { limit: number; cursor?: string }>) {
      const rows = ctx.services.store.apiKeys.list(ctx.principal.accountId);
      const views = rows.map((k) => apiKeyView(k, ctx.services.keyUsage.lastUsed(k.id, k.last_used_at)));
      return { body: pageList(views, ctx.query, (k) => `${k.created_at}|${k.id}`) };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/api-keys",
    operationId: "createApiKey",
    summary: "Issue an API key; the secret is in this response only (web session only)",
    tag: "API keys",
    stability: "beta",
    access: "session",
    body: CreateKeyBody,
    shownOnce: ["key"],
    responses: {
      201: { description: "The new key with its secret.", schema: CreatedKey },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
    },
    handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof CreateKeyBody>>) {
      const { row, secret } = issueKey(
        ctx.services.store,
        actorOf(ctx),
        {
          accountId: ctx.principal.accountId,
          name: ctx.body.name,
          scopes: ctx.body.scopes,
          // null ("all workspaces") is a choice only accounts with several workspaces have (spec §2, §5):
          // for them it is what automatic binding gives anyway; a one-workspace account's key is bound.
          workspaceId: ctx.body.workspace_id ?? undefined,
          expires: ctx.body.expires,
        },
        ctx.services.clock.now(),
      );
      return { status: 201, body: { ...apiKeyView(row), key: secret } };
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/api-keys/{id}",
    operationId: "renameApiKey",
    summary: "Rename an API key; scopes and binding are fixed (web session only)",
    tag: "API keys",
    stability: "beta",
    access: "session",
    params: KeyIdParams,
    body: RenameKeyBody,
    responses: {
      200: { description: "The renamed key.", schema: KeyRecord },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("API key"),
      ...CONFLICT(
        "The key is revoked or expired (invalid_status): a key out of use is not renamed (its own name, sent back, " +
          "changes nothing and is answered 200).",
      ),
    },
    handler(ctx: Ctx<{ id: string }, unknown, v.InferOutput<typeof RenameKeyBody>>) {
      const row = findKey(ctx.services.store, ctx.params.id, ctx.principal.accountId);
      refuseFixedChanges(apiKeyView(row, null), ctx.body);
      const renamed = renameKey(ctx.services.store, actorOf(ctx), row, ctx.body.name, ctx.services.clock.now());
      return { body: apiKeyView(renamed, ctx.services.keyUsage.lastUsed(row.id, renamed.last_used_at)) };
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/api-keys/{id}",
    operationId: "revokeApiKey",
    summary: "Revoke an API key (web session only)",
    tag: "API keys",
    stability: "beta",
    access: "session",
    planExempt: true,
    params: KeyIdParams,
    responses: {
      200: {
        description: "The revoked key (a key revoked before: as it is, its first revoked_at).",
        schema: KeyRecord,
      },
      ...AUTH_ERRORS,
      ...NOT_FOUND("API key"),
    },
    handler(ctx: Ctx<{ id: string }>) {
      const row = findKey(ctx.services.store, ctx.params.id, ctx.principal.accountId);
      const revoked = revokeKey(ctx.services.store, actorOf(ctx), row, ctx.services.clock.now());
      // The last use not yet flushed (every 5 s, http/key-usage.ts) too, as the list shows it.
      return { body: apiKeyView(revoked, ctx.services.keyUsage.lastUsed(row.id, revoked.last_used_at)) };
    },
  }),
];

export { actorOf };
