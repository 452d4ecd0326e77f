/** API key secrets, scopes and expiry: the rules of spec §2 and DESIGN §2–§3. */
import crypto, { createHash } from "node:crypto";
import type { Scope } from "../db/apikeys.js";
import { base62 } from "../runtime/ids.js";
import { ApiError } from "./errors.js";

/** What every API key secret begins with, so that a leaked one is recognised by scanners and by the server. */
export const KEY_PREFIX = "svc_live_";

/** What a key's id looks like (`key_` and up to 64 base62 characters). */
export const KEY_ID_PATTERN = /^key_[0-9A-Za-z]{1,64}$/;
/** The lifetimes a new key can be given, as the specification lists them: 30, 90 or 365 days, or never. */
export const EXPIRY_CHOICES = ["30d", "90d", "365d", "never"] as const;
/** One of EXPIRY_CHOICES. */
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];
/** The lifetime of a key created without one: 90 days, as the specification preselects. */
export const DEFAULT_EXPIRY: ExpiryChoice = "90d";

/** A new secret: the prefix and 32 base62 characters from the CSPRNG. */
export function newKeySecret(): string {
  return KEY_PREFIX + base62(32);
}

/** The stored form of a secret. */
export function hashKey(secret: string): string {
  // crypto.hash (Node 21.7+, the executable's Node) is the one-shot form: no Hash object per request.
  return oneShot ? oneShot("sha256", secret, "hex") : createHash("sha256").update(secret).digest("hex");
}

const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** The part of a secret that may be shown again (prefix and first 4 characters). */
export function displayPrefix(secret: string): string {
  return secret.slice(0, KEY_PREFIX.length + 4);
}

/** Thrown for a scope list the API does not issue. */
export class ScopeError extends Error {}

/**
 * Normalises requested scopes: none asked for is the default, read and write; read is always included (an empty
 * list asks for no more than read), write implies read, admin is refused. Returns the canonical ordered list.
 */
export function normaliseScopes(requested: readonly string[] | undefined): Scope[] {
  if (!requested) return ["read", "write"];
  for (const s of requested) {
    if (s === "admin") throw new ScopeError("the admin scope is reserved and not issued in v1");
    if (s !== "read" && s !== "write") throw new ScopeError(`unknown scope "${s}" (allowed: read, write)`);
  }
  return requested.includes("write") ? ["read", "write"] : ["read"];
}

/** The expiry instant of a choice, or null for never. */
export function expiryFrom(choice: ExpiryChoice, nowMs: number): number | null {
  if (choice === "never") return null;
  const days = Number(choice.slice(0, -1));
  return nowMs + days * 86_400_000;
}

/** Expiry instants read lately (every request reads its key's): at most 1,000, then it starts over. */
const expiries = new Map<string, number>();

/** Date.parse of a stored expiry, remembered. */
function expiryMs(iso: string): number {
  let ms = expiries.get(iso);
  if (ms === undefined) {
    ms = Date.parse(iso);
    if (expiries.size >= 1000) expiries.clear();
    expiries.set(iso, ms);
  }
  return ms;
}

/** A stored key's state: revoked (for good) wins over expired, which wins over active. */
export type KeyStatus = "active" | "revoked" | "expired";

/**
 * The state of a stored key at an instant: one rule for whether it authenticates (keyRefusal) and for the
 * changes a key out of use refuses (a rename: 409 invalid_status naming this state).
 */
export function keyStatus(key: { revoked_at: string | null; expires_at: string | null }, nowMs: number): KeyStatus {
  if (key.revoked_at !== null) return "revoked";
  if (key.expires_at !== null && expiryMs(key.expires_at) <= nowMs) return "expired";
  return "active";
}

/**
 * Why a stored key no longer authenticates (revoked, expired), or undefined while it does: one rule for the request
 * pipeline, its re-check after a write's body, and the command line's count of live keys.
 */
export function keyRefusal(
  key: { revoked_at: string | null; expires_at: string | null },
  nowMs: number,
): string | undefined {
  const status = keyStatus(key, nowMs);
  if (status === "revoked") return "This API key has been revoked.";
  if (status === "expired") return "This API key has expired.";
  return undefined;
}

/** A web session's user asking to change a key (the command line changes every key without asking). */
export type KeyManager = { userId: number; role: "admin" | "member" };

/**
 * Whether a user may rename, revoke or rotate a key of its account (DESIGN §10): admins every key; a member only
 * those its own session issued. A key of the command line (created_by_user_id null) belongs to the account, so to
 * its admins. Held by test/routes/apikeys.roles.test.ts and the route matrix (g).
 */
export function mayManageKey(manager: KeyManager, key: { created_by_user_id: number | null }): boolean {
  return manager.role === "admin" || key.created_by_user_id === manager.userId;
}

/** 403 admin_required for a member changing a key it did not issue. */
export function keyNotManageable(key: { id: string }): ApiError {
  return new ApiError(
    "admin_required",
    `API key ${key.id} was not issued by you: members change only the keys they issued, administrators every key of ` +
      "the account.",
    { required_role: "admin", api_key_id: key.id },
  );
}

/**
 * 409 api_key_limit_reached: the account has as many active keys as its cap (domain/plans.ts effectiveQuotas), so
 * that the per-key rate limits of spec §8 are not multiplied at will. Names the cap and the ways to room.
 */
export function keyLimitReached(account: { id: number; plan: string }, limit: number, active: number): ApiError {
  return new ApiError(
    "api_key_limit_reached",
    `The account has ${active} active API keys, its limit of ${limit}: revoke one it no longer needs (DELETE ` +
      "/api/v1/api-keys/{id}), or have the server operator raise the limit (content-service accounts set-limits " +
      `--account ${account.id} --max-keys N) or the plan (${account.plan}).`,
    { limit, active, account_id: account.id },
  );
}
