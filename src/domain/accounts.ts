/**
 * Deleting an account (`accounts delete`) with everything in it: its workspaces and their records, users, keys,
 * templates, images, usage (the schema's cascades, sql/). Never the operator account, whose admins administer the
 * server. Its active keys are revoked first, audited one by one, so that the log says which credentials stopped.
 * The audit log keeps the account's rows (ids are never given again: sql/0020_user_sessions_and_ids.sql).
 * Tests: test/cli/admin-delete.test.ts.
 */
import type { AccountRow } from "../db/accounts.js";
import type { ApiKeyRow } from "../db/apikeys.js";
import type { Store } from "../db/store.js";
import { type Actor, operatorAccountId, revokeKey } from "./admin.js";
import { keyStatus } from "./apikeys.js";

/** Why an account can never be deleted (it is the operator's); undefined otherwise. */
export function accountDeletionRefusal(store: Store, account: AccountRow): string | undefined {
  if (operatorAccountId(store) !== account.id) return undefined;
  return `account ${account.id} is the operator account, whose admins administer this server: it cannot be deleted`;
}

/** The account's keys still in use (neither revoked nor expired). */
export function activeKeysOf(store: Store, accountId: number, nowMs = Date.now()): ApiKeyRow[] {
  return store.apiKeys.list(accountId).filter((k) => keyStatus(k, nowMs) === "active");
}

/** What an account held when it was deleted. */
export interface AccountHoldings {
  workspaces: number;
  users: number;
  api_keys_revoked: number;
}

/** Revokes the account's active keys, then deletes it with everything in it, in one transaction. */
export function deleteAccount(store: Store, actor: Actor, account: AccountRow, nowMs = Date.now()): AccountHoldings {
  return store.transaction(() => {
    const active = activeKeysOf(store, account.id, nowMs);
    for (const key of active) revokeKey(store, actor, key, nowMs);
    const held = {
      workspaces: store.workspaces.count(account.id),
      users: store.users.list(account.id).length,
      api_keys_revoked: active.length,
    };
    store.accounts.remove(account.id);
    store.misc.audit(account.id, actor, "account.delete", String(account.id), { name: account.name, ...held });
    return held;
  });
}
