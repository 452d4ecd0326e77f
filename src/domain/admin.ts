/** Administrative operations shared by the CLI and the session/admin routes: accounts, workspaces, users, keys. */

import { PLANS, type Plan } from "../db/accounts.js";
import type { ApiKeyRow } from "../db/apikeys.js";
import { storedScopes } from "../db/apikeys.js";
import type { Store } from "../db/store.js";
import type { Role, UserRow } from "../db/users.js";
import type { WorkspaceHoldings, WorkspaceRow } from "../db/workspaces.js";
import { prefixedId } from "../runtime/ids.js";
import {
  DEFAULT_EXPIRY,
  displayPrefix,
  type ExpiryChoice,
  expiryFrom,
  hashKey,
  keyLimitReached,
  keyStatus,
  newKeySecret,
  normaliseScopes,
  ScopeError,
} from "./apikeys.js";
import { iso } from "./clock.js";
import { ApiError, invalidInput, invalidStatus, workspaceNotFound } from "./errors.js";
import { effectiveQuotas, isPlan } from "./plans.js";
import { oneOf } from "./wording.js";

/** Who did an administrative change, for the audit log. */
export type Actor = string;

/** An account by id, or 404 account_not_found ("No account N."). */
export function requireAccount(store: Store, accountId: number) {
  const account = store.accounts.byId(accountId);
  if (!account) throw new ApiError("account_not_found", `No account ${accountId}.`, { account_id: accountId });
  return account;
}

const OPERATOR_SETTING = "operator_account_id";

/** The account whose admins administer the whole server: the first one, made by `init`. */
export function operatorAccountId(store: Store): number | undefined {
  const set = store.misc.setting(OPERATOR_SETTING);
  if (set !== undefined) return Number(set);
  return store.accounts.list()[0]?.id;
}

/** Records the operator account (once; `init` calls it for the account it creates). */
export function setOperatorAccount(store: Store, accountId: number): void {
  store.misc.settingOnce(OPERATOR_SETTING, String(accountId));
}

/** Creates an account with its default workspace. */
export function createAccount(store: Store, actor: Actor, name: string, plan: Plan, nowMs = Date.now()) {
  return store.transaction(() => {
    const account = store.accounts.create(name, plan, iso(nowMs));
    const workspace = store.workspaces.create(account.id, "Default", true, iso(nowMs));
    store.misc.audit(account.id, actor, "account.create", String(account.id), { name, plan });
    return { account, workspace };
  });
}

/** Changes an account's plan. */
export function setPlan(store: Store, actor: Actor, accountId: number, plan: string) {
  if (!isPlan(plan)) throw invalidInput("body.plan", oneOf("plan", PLANS, plan));
  const before = requireAccount(store, accountId);
  store.accounts.setPlan(accountId, plan);
  store.misc.audit(accountId, actor, "account.set_plan", String(accountId), { from: before.plan, to: plan });
  return store.accounts.byId(accountId)!;
}

/** Overrides (or, with nulls, resets) an account's rate limits. */
export function setLimits(
  store: Store,
  actor: Actor,
  accountId: number,
  perMinute: number | null,
  perHour: number | null,
) {
  requireAccount(store, accountId);
  store.accounts.setLimits(accountId, perMinute, perHour);
  store.misc.audit(accountId, actor, "account.set_limits", String(accountId), { perMinute, perHour });
  return store.accounts.byId(accountId)!;
}

/** Overrides (or, with nulls, resets) an account's quotas: active keys and storage bytes. */
export function setQuotas(
  store: Store,
  actor: Actor,
  accountId: number,
  maxActiveKeys: number | null,
  storageBytes: number | null,
) {
  requireAccount(store, accountId);
  store.accounts.setQuotas(accountId, maxActiveKeys, storageBytes);
  store.misc.audit(accountId, actor, "account.set_quotas", String(accountId), {
    max_active_keys: maxActiveKeys,
    storage_bytes: storageBytes,
  });
  return store.accounts.byId(accountId)!;
}

/** Creates a workspace in an account. */
export function createWorkspace(
  store: Store,
  actor: Actor,
  accountId: number,
  name: string,
  isDefault = false,
  nowMs = Date.now(),
): WorkspaceRow {
  requireAccount(store, accountId);
  const ws = store.workspaces.create(accountId, name, isDefault, iso(nowMs));
  store.misc.audit(accountId, actor, "workspace.create", ws.id, { name, is_default: ws.is_default === 1 });
  return ws;
}

/** Updates a workspace's name and/or makes it the default. */
export function updateWorkspace(
  store: Store,
  actor: Actor,
  ws: WorkspaceRow,
  change: { name?: string; is_default?: boolean },
): WorkspaceRow {
  // is_default false is what a workspace that is not the default has (a record read and written back): no change. The
  // default cannot stop being it this way, which would leave the account without one.
  if (change.is_default === false && ws.is_default === 1) {
    throw invalidStatus(
      `Workspace ${ws.id} is the account's default, and an account keeps one: make another workspace the default ` +
        "(is_default: true on it), and this one stops being it.",
      "default",
      ["not_default"],
      { workspace_id: ws.id },
    );
  }
  store.transaction(() => {
    if (change.name !== undefined) store.workspaces.rename(ws.id, change.name);
    if (change.is_default === true) store.workspaces.setDefault(ws.account_id, ws.id);
    store.misc.audit(ws.account_id, actor, "workspace.update", ws.id, change);
  });
  return store.workspaces.byId(ws.id)!;
}

/**
 * Refuses to delete an account's last workspace (409 last_workspace: an account keeps one, where its unbound keys and
 * sessions work) and its default one (409 workspace_not_empty: make another the default first). One rule for the API
 * and the command line (test/routes/workspaces.test.ts "last", test/cli/admin-delete.test.ts).
 */
export function checkWorkspaceDeletable(store: Store, ws: WorkspaceRow): void {
  if (store.workspaces.count(ws.account_id) <= 1)
    throw new ApiError(
      "last_workspace",
      "An account's only workspace cannot be deleted: an account keeps one. Delete the account instead.",
      { workspace_id: ws.id },
    );
  if (ws.is_default === 1)
    throw new ApiError(
      "workspace_not_empty",
      "The default workspace cannot be deleted; make another the default first.",
      { workspace_id: ws.id },
    );
}

/**
 * Deletes a workspace with everything in it and the keys bound to it (the cascade: a bound key is removed, never made
 * unbound, which would widen it), after checkWorkspaceDeletable. Answers what it held, counted in the same transaction.
 */
export function deleteWorkspace(store: Store, actor: Actor, ws: WorkspaceRow, nowMs?: number): WorkspaceHoldings {
  return store.transaction(() => {
    checkWorkspaceDeletable(store, ws);
    const held = store.workspaces.holdings(ws.id);
    store.workspaces.remove(ws.id);
    store.misc.audit(ws.account_id, actor, "workspace.delete", ws.id, held, nowMs);
    return held;
  });
}

/** Fails as createUser would before it makes anything: no such account, or a user with that email exists. */
export function checkNewUser(store: Store, accountId: number, email: string): void {
  requireAccount(store, accountId);
  if (store.users.byEmail(email)) throw invalidInput("body.email", `A user with email ${email} exists.`);
}

/** Creates a web-session user with an already hashed password. */
export function createUser(
  store: Store,
  actor: Actor,
  accountId: number,
  email: string,
  passwordHash: string,
  role: Role,
  nowMs = Date.now(),
): UserRow {
  checkNewUser(store, accountId, email);
  const user = store.users.create(accountId, email, passwordHash, role, iso(nowMs));
  store.misc.audit(accountId, actor, "user.create", String(user.id), { email, role });
  return user;
}

/** What issuing a key asks for. */
export interface KeyRequest {
  accountId: number;
  name: string;
  scopes?: readonly string[];
  /** undefined: automatic (bound when the account has exactly one workspace); null: unbound. */
  workspaceId?: string | null;
  expires?: ExpiryChoice;
  /** The user whose web session issues it; left out or null: the command line's, the account's (DESIGN §10). */
  createdByUserId?: number | null;
  /** The key it replaces (a rotation): its place under the cap is the new key's (replacedKeyPlace). */
  replacesKeyId?: string | null;
  /**
   * The secret, when the caller names it (a sandbox fixture's, checked to be of newKeySecret's form: see
   * sandbox/fixtures-schema.ts); left out: a new one from the CSPRNG.
   */
  secret?: string;
}

/**
 * How long a key replaced at the account's cap of active keys still works beside its replacement, unless revoked
 * sooner: long enough to deploy the new key, short enough that the cap holds again after it.
 */
export const REPLACED_KEY_GRACE_MS = 24 * 3600_000;

/** A freshly issued key: the row and the secret, which is never available again. */
export interface IssuedKey {
  row: ApiKeyRow;
  secret: string;
}

/**
 * Issues a key following spec §2: read always included, admin refused, auto-binding for one-workspace accounts; and
 * refused at the account's cap of active keys (409 api_key_limit_reached), counted in the insert's transaction, which
 * takes the write lock as it begins (db/open.ts), so that two issues at the cap's last place admit one
 * (test/routes/apikeys.roles.test.ts "cap"). A replacement takes the place of the active key it replaces
 * (replacedKeyPlace).
 */
export function issueKey(store: Store, actor: Actor, req: KeyRequest, nowMs = Date.now()): IssuedKey {
  requireAccount(store, req.accountId);
  let scopes: string[];
  try {
    scopes = normaliseScopes(req.scopes);
  } catch (e) {
    if (e instanceof ScopeError) throw invalidInput("body.scopes", e.message);
    throw e;
  }
  let workspaceId: string | null;
  const workspaces = store.workspaces.listByAccount(req.accountId);
  if (req.workspaceId) {
    const ws = store.workspaces.byId(req.workspaceId);
    if (!ws || ws.account_id !== req.accountId) throw workspaceNotFound(req.workspaceId, `account ${req.accountId}`);
    workspaceId = ws.id;
  } else if (req.workspaceId === null) {
    workspaceId = null;
  } else {
    // Keys of accounts with exactly one workspace are bound to it (spec §5).
    workspaceId = workspaces.length === 1 ? workspaces[0].id : null;
  }
  const expiresMs = expiryFrom(req.expires ?? DEFAULT_EXPIRY, nowMs);
  const secret = req.secret ?? newKeySecret();
  const row = store.transaction(() => {
    const replaced = req.replacesKeyId ? activeKey(store, req.replacesKeyId, req.accountId, nowMs) : undefined;
    refuseAtKeyCap(store, req.accountId, nowMs, replaced ? 1 : 0);
    const created = store.apiKeys.create({
      id: prefixedId("key"),
      accountId: req.accountId,
      name: req.name,
      keyHash: hashKey(secret),
      displayPrefix: displayPrefix(secret),
      scopes,
      workspaceId,
      expiresAt: expiresMs === null ? null : iso(expiresMs),
      createdAt: iso(nowMs),
      createdByUserId: req.createdByUserId ?? null,
      replacesKeyId: req.replacesKeyId ?? null,
    });
    store.misc.audit(req.accountId, actor, "api_key.create", created.id, {
      name: req.name,
      scopes,
      workspace_id: workspaceId,
      expires_at: created.expires_at,
      ...(created.replaces_key_id ? { replaces_key_id: created.replaces_key_id } : {}),
    });
    if (replaced) replacedKeyPlace(store, actor, replaced, nowMs);
    return created;
  });
  return { row, secret };
}

/** The key of the account by this id when it is active (a replacement takes its place), else undefined. */
function activeKey(store: Store, keyId: string, accountId: number, nowMs: number): ApiKeyRow | undefined {
  const row = findKey(store, keyId, accountId);
  return keyStatus(row, nowMs) === "active" ? row : undefined;
}

/**
 * 409 api_key_limit_reached when the account already has its cap of active keys, `leaving` of them about to be
 * replaced: a rotation replaces a key, so at the cap it is not refused, while a plain create is.
 */
function refuseAtKeyCap(store: Store, accountId: number, nowMs: number, leaving = 0): void {
  const account = requireAccount(store, accountId);
  const limit = effectiveQuotas(account).maxActiveKeys;
  const active = store.apiKeys.countActive(accountId, iso(nowMs));
  if (active - leaving >= limit) throw keyLimitReached(account, limit, active);
}

/**
 * The replaced key gives its place to its replacement: when the two together are past the account's cap, the old
 * one stops working REPLACED_KEY_GRACE_MS later (never later than it would have), so that the cap is passed by one
 * key for a day at most; meanwhile nothing more is issued or rotated (test/routes/apikeys.roles.test.ts "rotation").
 */
function replacedKeyPlace(store: Store, actor: Actor, replaced: ApiKeyRow, nowMs: number): void {
  const account = requireAccount(store, replaced.account_id);
  if (store.apiKeys.countActive(account.id, iso(nowMs)) > effectiveQuotas(account).maxActiveKeys)
    scheduleRevocation(store, actor, replaced, nowMs + REPLACED_KEY_GRACE_MS);
}

/** The account's cap of active keys and how many it has, as the entitlements report them. */
export function keyAllowance(
  store: Store,
  account: Parameters<typeof effectiveQuotas>[0] & { id: number },
  nowMs: number,
) {
  return { limit: effectiveQuotas(account).maxActiveKeys, active: store.apiKeys.countActive(account.id, iso(nowMs)) };
}

/** Looks a key up by id within an account (or any account when accountId is undefined). */
export function findKey(store: Store, keyId: string, accountId?: number): ApiKeyRow {
  const row = store.apiKeys.byId(keyId);
  if (!row || (accountId !== undefined && row.account_id !== accountId))
    throw new ApiError("api_key_not_found", `No API key ${keyId}.`, { api_key_id: keyId });
  return row;
}

/** Revokes a key; revoking twice is harmless. */
export function revokeKey(store: Store, actor: Actor, row: ApiKeyRow, nowMs = Date.now()): ApiKeyRow {
  if (store.apiKeys.revoke(row.id, iso(nowMs))) store.misc.audit(row.account_id, actor, "api_key.revoke", row.id);
  return store.apiKeys.byId(row.id)!;
}

/**
 * Renames a key (its scopes and binding are fixed at issue). A revoked or expired key is out of use for good (an
 * expiry is not extended): 409 invalid_status, as a record whose status forbids the change, where the rename had
 * been answered 200 as if the key were still one to keep.
 */
export function renameKey(store: Store, actor: Actor, row: ApiKeyRow, name: string, nowMs = Date.now()): ApiKeyRow {
  // The name it has (a record read and written back) is no rename, whatever the key's status: nothing to refuse.
  if (name === row.name) return row;
  const status = keyStatus(row, nowMs);
  if (status !== "active") {
    const when = status === "revoked" ? `was revoked at ${row.revoked_at}` : `expired at ${row.expires_at}`;
    throw invalidStatus(`Cannot rename API key ${row.id}: it ${when}.`, status, ["active"]);
  }
  store.apiKeys.rename(row.id, name);
  store.misc.audit(row.account_id, actor, "api_key.rename", row.id, { from: row.name, to: name });
  return store.apiKeys.byId(row.id)!;
}

/** When a rotation takes the old key out of use: at once (0) or after this many milliseconds; undefined: never. */
export interface RotateOptions {
  revokeOldAfterMs?: number;
}

/**
 * Issues a replacement with the same name, scopes and binding, recording the key it replaces, which gives it its
 * place under the cap (issueKey). The old key stays valid until revoked (a day at most when the rotation was at the
 * cap), unless `revokeOldAfterMs`: 0 revokes it in the same transaction; more brings its expiry forward to the end of
 * that grace (never later than it was), so that it stops working then without a job to run.
 * Held by test/routes/apikeys.roles.test.ts and test/cli/keys.test.ts.
 */
export function rotateKey(
  store: Store,
  actor: Actor,
  row: ApiKeyRow,
  nowMs = Date.now(),
  options: RotateOptions = {},
): IssuedKey {
  let expires: ExpiryChoice = "never";
  if (row.expires_at !== null) {
    const days = Math.round((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 86_400_000);
    expires = days <= 30 ? "30d" : days <= 90 ? "90d" : "365d";
  }
  const after = options.revokeOldAfterMs;
  return store.transaction(() => {
    if (after === 0) revokeKey(store, actor, row, nowMs);
    const issued = issueKey(
      store,
      actor,
      {
        accountId: row.account_id,
        name: row.name,
        scopes: storedScopes(row.scopes),
        workspaceId: row.workspace_id ?? null,
        expires,
        createdByUserId: row.created_by_user_id,
        replacesKeyId: row.id,
      },
      nowMs,
    );
    if (after !== undefined && after > 0) scheduleRevocation(store, actor, row, nowMs + after);
    return issued;
  });
}

/** Makes a key stop working at `atMs` (its expiry brought forward), audited as a scheduled revocation. */
function scheduleRevocation(store: Store, actor: Actor, row: ApiKeyRow, atMs: number): void {
  if (store.apiKeys.expireBy(row.id, iso(atMs)))
    store.misc.audit(row.account_id, actor, "api_key.revoke_scheduled", row.id, { expires_at: iso(atMs) });
}
