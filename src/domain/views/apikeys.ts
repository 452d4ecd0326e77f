/** The view of an API key: the JSON shape of its record in an answer. */
import type { ApiKeyRow } from "../../db/apikeys.js";
import { storedScopes } from "../../db/apikeys.js";

/**
 * A key as listings show it: never the secret nor its hash. created_by: the user whose session issued it (null: the
 * command line's, the account's key, DESIGN §10); replaces_key_id: the key a rotation issued it for.
 */
export function apiKeyView(
  k: ApiKeyRow & { created_by_email?: string | null },
  lastUsedAt: string | null = k.last_used_at,
) {
  return {
    id: k.id,
    account_id: k.account_id,
    name: k.name,
    prefix: k.display_prefix,
    scopes: storedScopes(k.scopes),
    workspace_id: k.workspace_id,
    expires_at: k.expires_at,
    last_used_at: lastUsedAt,
    revoked_at: k.revoked_at,
    created_at: k.created_at,
    created_by:
      k.created_by_user_id === null ? null : { user_id: k.created_by_user_id, email: k.created_by_email ?? null },
    replaces_key_id: k.replaces_key_id,
  };
}

/**
 * The calling key as its introspection shows it (spec §4.9): the listing's fields without the account, the prefix
 * and the revocation.
 */
export function callerKeyView(k: ApiKeyRow, lastUsedAt: string | null) {
  const view = apiKeyView(k, lastUsedAt);
  return {
    id: view.id,
    name: view.name,
    scopes: view.scopes,
    workspace_id: view.workspace_id,
    expires_at: view.expires_at,
    last_used_at: view.last_used_at,
    created_at: view.created_at,
  };
}
