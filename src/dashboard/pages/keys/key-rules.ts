/**
 * What the key pages derive from a key record: its status, the workspace it is bound to in words, and the expiry
 * choice it was issued with (so that a rotation issues the replacement with the same choices, spec §5).
 */
import type { components } from "../../api/schema.js";

/** A key as GET /api-keys lists it. */
export type ApiKey = components["schemas"]["ApiKey"];
/** The body of POST /api-keys. */
export type CreateKeyRequest = components["schemas"]["CreateApiKeyRequest"];
/** One of the expiration choices POST /api-keys takes. */
export type ExpiryChoice = NonNullable<CreateKeyRequest["expires"]>;

/** The expiration choices of the specification, in its order; 90 days is the default (preselected). */
export const EXPIRY_CHOICES: { value: ExpiryChoice; label: string; days: number | null }[] = [
  { value: "30d", label: "30 days", days: 30 },
  { value: "90d", label: "90 days", days: 90 },
  { value: "365d", label: "365 days", days: 365 },
  { value: "never", label: "Never", days: null },
];
/** The expiry preselected on the form (spec §5: 90 days by default). */
export const DEFAULT_EXPIRY: ExpiryChoice = "90d";

const DAY_MS = 86_400_000;

/** A key is revoked once revoked_at is set, expired once expires_at has passed, else active. */
export function keyStatus(key: ApiKey, now = Date.now()): "active" | "revoked" | "expired" {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= now) return "expired";
  return "active";
}

/** The choice a key was issued with: its lifetime in days, rounded to the nearest choice; never for no expiry. */
export function expiryChoiceOf(key: ApiKey): ExpiryChoice {
  if (!key.expires_at) return "never";
  const days = (Date.parse(key.expires_at) - Date.parse(key.created_at)) / DAY_MS;
  const timed = EXPIRY_CHOICES.filter((c) => c.days !== null);
  timed.sort((a, b) => Math.abs((a.days ?? 0) - days) - Math.abs((b.days ?? 0) - days));
  return timed[0].value;
}

/** The binding in words: the workspace's name (its id when it is gone from the list), or "All workspaces". */
export function bindingName(workspaceId: string | null, workspaces: { id: string; name: string }[]): string {
  if (!workspaceId) return "All workspaces";
  return workspaces.find((w) => w.id === workspaceId)?.name ?? workspaceId;
}

/** The scopes in words: write always comes with read. */
export function scopesText(scopes: string[]): string {
  return scopes.includes("write") ? "read, write" : "read";
}

/**
 * The body that issues a replacement of a key with its name, scopes, binding and expiry choice, naming the key it
 * replaces: the server then gives it the old key's place under the account's cap, so a rotation at the cap works.
 */
export function replacementOf(key: ApiKey): CreateKeyRequest {
  return {
    name: key.name,
    scopes: key.scopes.includes("write") ? ["read", "write"] : ["read"],
    workspace_id: key.workspace_id,
    expires: expiryChoiceOf(key),
    replaces_key_id: key.id,
  };
}

/**
 * Whether the signed-in person may rotate or revoke a key (DESIGN §10, as the server decides it): admins every key
 * of the account, members those their own session issued.
 */
export function mayManage(key: ApiKey, user: { id: number; role: "admin" | "member" } | undefined): boolean {
  if (!user) return false;
  return user.role === "admin" || key.created_by?.user_id === user.id;
}

/** Who issued a key, in words: a user's email, or the account's (the command line issued it). */
export function issuerName(key: ApiKey): string {
  return key.created_by ? (key.created_by.email ?? `user ${key.created_by.user_id}`) : "Account (command line)";
}

/** The account's cap on active keys when the listed keys reach it, else null (no more can be issued until one goes). */
export function reachedLimit(keys: ApiKey[], limit: number | undefined, now = Date.now()): number | null {
  if (limit === undefined) return null;
  return keys.filter((k) => keyStatus(k, now) === "active").length >= limit ? limit : null;
}
