/** API keys: introspection of the calling key (spec §4.9) and session-side management (spec §4.11). */
import * as v from "valibot";
import { findKey, issueKey, renameKey, revokeKey } from "../domain/admin.js";
import { EXPIRY_CHOICES, KEY_ID_PATTERN, keyNotManageable, mayManageKey, normaliseScopes } from "../domain/apikeys.js";
import { ApiError, invalidInput } from "../domain/errors.js";
import { apiKeyView, callerKeyView } from "../domain/views/apikeys.js";
import { RecordName } from "../http/admin-rules.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { Integer, maxChars, named, PageQuery, pageOf, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, CONFLICT, err, INPUT_ERRORS, NOT_FOUND, pageList, SESSION_ONLY } from "./common.js";

const Scopes = v.array(v.picklist(["read", "write"]));

/** The fields a key shows both to itself (GET /api-keys/current) and in the account's list. */
const KeyFields = {
  id: v.pipe(v.string(), v.description("The key's id (key_…), used in the paths of these operations; not the secret.")),
  name: v.pipe(v.string(), v.description("The name given at creation or by a rename.")),
  scopes: v.pipe(
    Scopes,
    v.description("read: every GET; write: every other method too (always with read). Fixed at creation."),
  ),
  workspace_id: v.pipe(
    v.nullable(v.string()),
    v.description("The workspace the key is bound to; null: unbound (every workspace of the account)."),
  ),
  expires_at: v.pipe(v.nullable(Timestamp), v.description("When the key stops working; null: never.")),
  last_used_at: v.pipe(
    v.nullable(Timestamp),
    v.description("When the key last authenticated a request (kept to within a few seconds); null: never."),
  ),
  created_at: v.pipe(Timestamp, v.description("When the key was issued.")),
};

/** The calling key as GET /api-keys/current shows it. */
const CurrentKey = named(
  "CurrentApiKey",
  v.pipe(v.object(KeyFields), v.description("The API key that authenticated this request.")),
);

const KeyRecord = named(
  "ApiKey",
  v.pipe(
    v.object({
      id: KeyFields.id,
      account_id: v.pipe(Integer, v.description("The account the key belongs to.")),
      name: KeyFields.name,
      prefix: v.pipe(
        v.string(),
        v.description(
          "The secret's first characters (svc_live_ and 4 more), to tell keys apart; the rest is not kept.",
        ),
      ),
      scopes: KeyFields.scopes,
      workspace_id: KeyFields.workspace_id,
      expires_at: KeyFields.expires_at,
      last_used_at: KeyFields.last_used_at,
      revoked_at: v.pipe(v.nullable(Timestamp), v.description("When the key was revoked; null: not revoked.")),
      created_at: KeyFields.created_at,
      created_by: v.pipe(
        v.nullable(
          v.object({
            user_id: v.pipe(Integer, v.description("The user's id.")),
            email: v.pipe(v.nullable(v.string()), v.description("The user's email.")),
          }),
        ),
        v.description(
          "The user whose web session issued the key: members change only theirs, administrators every key. null: " +
            "issued by the command line, the account's key (its administrators manage it).",
        ),
      ),
      replaces_key_id: v.pipe(
        v.nullable(v.string()),
        v.description(
          "The key this one was issued to replace (a rotation: POST /api-keys with replaces_key_id, or " +
            "content-service keys rotate); null: none.",
        ),
      ),
    }),
    v.description("An API key of the account, as listed: never its secret."),
  ),
);

/** An ApiKey's example, as the list and the other operations answer it. */
const KEY_EXAMPLE = {
  id: "key_H8C9kEL74gkCnvXw",
  account_id: 1,
  name: "CI publisher",
  prefix: "svc_live_3f9K",
  scopes: ["read", "write"],
  workspace_id: "ws_NTwCOH7ZnxOG70kT",
  expires_at: "2027-03-01T09:00:00.000Z",
  last_used_at: "2026-12-01T10:02:13.000Z",
  revoked_at: null,
  created_at: "2026-12-01T09:00:00.000Z",
  created_by: { user_id: 2, email: "editor@example.com" },
  replaces_key_id: null,
};

const CreatedKey = named(
  "ApiKeyCreated",
  v.pipe(
    v.object({
      ...KeyRecord.entries,
      key: v.pipe(
        v.nullable(v.pipe(v.string(), v.startsWith("svc_live_"))),
        v.description(
          "The secret, shown in this response only; null in a replay of it under Idempotency-Key (the secret is not kept).",
        ),
      ),
    }),
    v.description("A key just issued, with its secret: store the secret now, it is never shown again."),
  ),
);

const KeyName = v.pipe(RecordName, v.description("A name to tell the key by (1 to 100 characters, trimmed)."));

const CreateKeyFields = v.object({
  name: KeyName,
  // Listed so that a refused scope (admin is reserved, spec §2) is a validation issue with its path.
  scopes: v.pipe(
    v.optional(
      v.array(v.picklist(["read", "write"], "must be read or write; the admin scope is reserved and not issued in v1")),
    ),
    v.description("read, write, or both; read is always included, so [] issues a read-only key. Default: both."),
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
  expires: v.pipe(
    v.optional(v.picklist(EXPIRY_CHOICES)),
    v.description("How long the key works: 30, 90 or 365 days, or never. Default: 90d."),
  ),
  replaces_key_id: v.optional(
    v.pipe(
      v.string(),
      v.regex(KEY_ID_PATTERN, "must be a key id"),
      v.description(
        "A rotation: the key (key_…) this one replaces, which the caller may manage. An active key gives its place " +
          "under the account's limit of active keys to its replacement, so a rotation at the limit is not refused; " +
          "when the two together are past it, the old key stops working 24 hours later unless revoked sooner. " +
          "Recorded as the new key's replaces_key_id.",
      ),
    ),
  ),
});
const CreateKeyBody = named(
  "CreateApiKeyRequest",
  v.pipe(
    CreateKeyFields,
    v.description("The new key's name, scopes, workspace binding and lifetime; only the name is required."),
  ),
);

/**
 * A rename. Scopes and the workspace binding are fixed at creation (spec §2): a body that sends them as they are (a
 * client writing back the record it read) is a rename, one that would change them is refused (400), where it had
 * been answered 200 with the change ignored, which read as a downgrade that had not happened.
 */
const RenameKeyFields = v.object({
  name: KeyName,
  scopes: v.optional(
    v.pipe(Scopes, v.description("Fixed at creation: accepted only as the key has them, as in a key read back.")),
  ),
  workspace_id: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.string(), maxChars(64))),
      v.description("Fixed at creation: accepted only as the key has it, as in a key read back."),
    ),
  ),
});
const RenameKeyBody = named(
  "RenameApiKeyRequest",
  v.pipe(RenameKeyFields, v.description("The key's new name; a key read from the list may be sent back with it.")),
);

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

const KeyIdParams = v.object({
  id: v.pipe(
    v.string(),
    v.regex(KEY_ID_PATTERN, "must be a key id"),
    v.description("The key's id (key_…, as listed), not its secret."),
  ),
});

function actorOf(ctx: Ctx): string {
  return ctx.principal.kind === "session" ? `user:${ctx.principal.userId}` : `key:${ctx.principal.key.id}`;
}

/**
 * A key of the caller's account that the caller may change (DESIGN §10): 404 when it is not the account's, 403
 * admin_required when a member did not issue it. These routes are session-only, so the caller is a user.
 */
function manageableKey(ctx: Ctx, keyId: string) {
  const row = findKey(ctx.services.store, keyId, ctx.principal.accountId);
  const p = ctx.principal;
  if (p.kind === "session" && !mayManageKey({ userId: p.userId, role: p.role }, row)) throw keyNotManageable(row);
  return row;
}

/** The user issuing a key from a web session, recorded as its owner. */
function issuerOf(ctx: Ctx): number | null {
  return ctx.principal.kind === "session" ? ctx.principal.userId : null;
}

/** The 403 a member gets for another's key, with the pipeline's. */
const MEMBER_REFUSED = {
  403: err(
    "Plan without API access, or (admin_required) a member changing a key it did not issue: members change only " +
      "their own keys, administrators every key of the account.",
  ),
};

/** The API key routes: issue, list, read, rename and revoke keys, and introspect the calling key. */
export const apiKeyRoutes = [
  route({
    method: "GET",
    path: "/api/v1/api-keys/current",
    operationId: "getCurrentApiKey",
    summary: "Introspect the calling API key",
    description:
      "Shows the API key that authenticated this request: its name, scopes, workspace binding, expiry and last use. " +
      "Use it to check what a deployed key may do before relying on it. It changes nothing. A web session has no key " +
      "and gets 404 api_key_not_found: GET /api/v1/users/me describes any caller.",
    tag: "API keys",
    stability: "beta",
    access: "any",
    responses: {
      200: {
        description: "The calling key.",
        schema: CurrentKey,
        example: {
          id: "key_H8C9kEL74gkCnvXw",
          name: "CI publisher",
          scopes: ["read", "write"],
          workspace_id: "ws_NTwCOH7ZnxOG70kT",
          expires_at: "2027-03-01T09:00:00.000Z",
          last_used_at: "2026-12-01T10:02:13.000Z",
          created_at: "2026-12-01T09:00:00.000Z",
        },
      },
      ...AUTH_ERRORS,
      404: err(
        "Authenticated by a web session, not an API key (api_key_not_found): GET /api/v1/users/me describes it.",
      ),
    },
    handler(ctx) {
      // Spec §4.9: it introspects the calling key. A web session has none, and a record made up for it could not be
      // told from a key's: 404.
      if (ctx.principal.kind !== "key")
        throw new ApiError(
          "api_key_not_found",
          "This request was authenticated by a web session, not an API key: GET /api/v1/users/me describes the caller.",
        );
      const k = ctx.principal.key;
      return { body: callerKeyView(k, ctx.services.keyUsage.lastUsed(k.id, k.last_used_at)) };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/api-keys",
    operationId: "listApiKeys",
    summary: "List the account's API keys, oldest first (web session only)",
    description:
      "Lists every API key of the account, revoked and expired ones included (see revoked_at and expires_at), oldest " +
      "first, a page at a time: pass next_cursor as cursor for the next page. Secrets are never shown; prefix tells " +
      "keys apart; created_by names the user who issued each (null: the account's, issued by the command line). Members " +
      "see every key of the account too, and change only those they issued. It changes nothing. " +
      SESSION_ONLY,
    tag: "API keys",
    stability: "beta",
    access: "session",
    planExempt: true,
    query: v.object(PageQuery),
    responses: {
      200: {
        description: "The keys, oldest first, never their secrets.",
        schema: pageOf(KeyRecord),
        example: { data: [KEY_EXAMPLE], has_more: false, next_cursor: null },
      },
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
    description:
      "Issues a new API key and answers its secret (svc_live_…) once: store it then, as only its hash is kept. " +
      "Choose its scopes (default read and write), its workspace (a workspace_id binds it to that workspace; null or " +
      "none leaves it unbound on an account with several workspaces, while an account with one binds it to that one) " +
      "and its lifetime (default 90 days). Scopes and binding cannot change later: to change them, issue a new key, " +
      "deploy it, then revoke the old one. A workspace_id of no workspace of the account is 404. The key is the calling " +
      "user's (created_by). An account has at most its limit of active keys (GET /api/v1/users/me/entitlements " +
      "api_keys): past it, 409 api_key_limit_reached, except for a rotation (replaces_key_id), whose old key gives " +
      "the new one its place. The issue is written to the audit log. " +
      SESSION_ONLY,
    tag: "API keys",
    stability: "beta",
    access: "session",
    body: CreateKeyBody,
    bodyExamples: {
      readWrite: { name: "CI publisher" },
      readOnly: { name: "Dashboard reader", scopes: ["read"], expires: "365d" },
      rotation: { name: "CI publisher", replaces_key_id: "key_H8C9kEL74gkCnvXw" },
    },
    shownOnce: ["key"],
    responses: {
      201: {
        description: "The new key with its secret.",
        schema: CreatedKey,
        example: { ...KEY_EXAMPLE, last_used_at: null, key: "svc_live_3f9KxQ2mZ7aLpR8tVw1yB4nC6dE0gH5j" },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...MEMBER_REFUSED,
      ...NOT_FOUND("Workspace or replaced API key"),
      ...CONFLICT(
        "The account has as many active keys as its limit (api_key_limit_reached: limit, active): revoke one, or " +
          "have the operator raise the limit. GET /api/v1/users/me/entitlements shows both (api_keys).",
      ),
    },
    handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof CreateKeyBody>>) {
      // A member replaces only a key it may change (403 admin_required), as it would revoke it.
      const replaced = ctx.body.replaces_key_id ? manageableKey(ctx, ctx.body.replaces_key_id) : undefined;
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
          createdByUserId: issuerOf(ctx),
          replacesKeyId: replaced?.id,
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
    description:
      "Gives a key a new name; the key keeps working as before. A key read from the list may be sent back with its " +
      "new name: scopes and workspace_id are accepted only as the key has them, and a body that would change them is " +
      "refused (400), as they are fixed at creation. A revoked or expired key is not renamed (409 invalid_status). A " +
      "member renames only the keys it issued (403 admin_required for another's). " +
      "The rename is written to the audit log. " +
      SESSION_ONLY,
    tag: "API keys",
    stability: "beta",
    access: "session",
    params: KeyIdParams,
    body: RenameKeyBody,
    bodyExamples: { rename: { name: "CI publisher (staging)" } },
    responses: {
      200: {
        description: "The renamed key.",
        schema: KeyRecord,
        example: { ...KEY_EXAMPLE, name: "CI publisher (staging)" },
      },
      ...AUTH_ERRORS,
      ...MEMBER_REFUSED,
      ...INPUT_ERRORS,
      ...NOT_FOUND("API key"),
      ...CONFLICT(
        "The key is revoked or expired (invalid_status): a key out of use is not renamed (its own name, sent back, " +
          "changes nothing and is answered 200).",
      ),
    },
    handler(ctx: Ctx<{ id: string }, unknown, v.InferOutput<typeof RenameKeyBody>>) {
      const row = manageableKey(ctx, ctx.params.id);
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
    description:
      "Revokes a key: from this moment every request with it gets 401. The key stays in the list with its " +
      "revoked_at; revoking it again changes nothing and answers it as it is. To rotate a key, issue the new one " +
      "first (POST /api-keys with replaces_key_id), deploy it, then revoke the old one. A member revokes only the keys it issued (403 admin_required for " +
      "another's). The revocation is written to the audit log. " +
      SESSION_ONLY,
    tag: "API keys",
    stability: "beta",
    access: "session",
    planExempt: true,
    params: KeyIdParams,
    responses: {
      200: {
        description: "The revoked key (a key revoked before: as it is, its first revoked_at).",
        schema: KeyRecord,
        example: { ...KEY_EXAMPLE, revoked_at: "2026-12-01T11:00:00.000Z" },
      },
      ...AUTH_ERRORS,
      ...MEMBER_REFUSED,
      ...NOT_FOUND("API key"),
    },
    handler(ctx: Ctx<{ id: string }>) {
      const row = manageableKey(ctx, ctx.params.id);
      const revoked = revokeKey(ctx.services.store, actorOf(ctx), row, ctx.services.clock.now());
      // The last use not yet flushed (every 5 s, http/key-usage.ts) too, as the list shows it.
      return { body: apiKeyView(revoked, ctx.services.keyUsage.lastUsed(row.id, revoked.last_used_at)) };
    },
  }),
];

export { actorOf };
