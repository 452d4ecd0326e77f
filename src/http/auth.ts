/** Authentication (spec §5): an API key (`svc_live_…`) or a web-session JWT as a bearer token. */

import { storedScopes } from "../db/apikeys.js";
import { hashKey, KEY_PREFIX, keyRefusal } from "../domain/apikeys.js";
import { ApiError } from "../domain/errors.js";
import type { Principal, Services } from "./context.js";
import type { Incoming } from "./exchange.js";

/** The bearer token of a request, or undefined when there is no Authorization header. */
export function bearerToken(request: Pick<Incoming, "headers">): string | undefined {
  const header = request.headers.get("authorization");
  if (header === null) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1] : "";
}

/** Whether a bearer value is an API key rather than a session token. */
export function isApiKey(token: string): boolean {
  return token.startsWith(KEY_PREFIX);
}

/** A 401 with the message; the renderer adds WWW-Authenticate. */
export function unauthorized(message: string): ApiError {
  return new ApiError("unauthorized", message);
}

type Authenticated = { principal: Principal } | { principal: null; reason: string };

/**
 * Resolves the caller, or null for absent or invalid credentials (with the reason). Synchronous for API keys (the
 * hot path); a session token's signature is checked asynchronously.
 */
export function authenticate(request: Incoming, services: Services): Authenticated | Promise<Authenticated> {
  const token = bearerToken(request);
  if (token === undefined)
    return { principal: null, reason: "Missing credentials: send Authorization: Bearer <API_KEY>." };
  if (token === "") return { principal: null, reason: "Malformed Authorization header: expected Bearer <token>." };
  const now = services.clock.now();
  if (isApiKey(token)) {
    // Kept by its secret in the row cache, so that the key's hash (hashKey, a SHA-256: 3% of an authenticated GET's
    // CPU) is computed only when the row is read. The cache keeps only rows found (guessed keys cannot fill it) and is
    // emptied when the database changes (db/row-cache.ts), so a key revoked or deleted since is refused all the same.
    // The secrets are in this process's memory as its requests' headers are, not on disk.
    const key = services.rows.get(`key:${token}`, () => services.store.apiKeys.byHash(hashKey(token)));
    if (!key) return { principal: null, reason: "Invalid API key." };
    const refusal = keyRefusal(key, now);
    if (refusal !== undefined) return { principal: null, reason: refusal };
    services.keyUsage.touch(key.id, now);
    return {
      principal: {
        kind: "key",
        accountId: key.account_id,
        scopes: storedScopes(key.scopes),
        boundWorkspaceId: key.workspace_id,
        key,
      },
    };
  }
  return sessionPrincipal(services, token);
}

async function sessionPrincipal(services: Services, token: string): Promise<Authenticated> {
  const claims = await services.sessions.verify(token);
  if (!claims) return { principal: null, reason: "Invalid or expired session token." };
  return {
    principal: {
      kind: "session",
      accountId: claims.accountId,
      scopes: ["read", "write"],
      boundWorkspaceId: null,
      userId: claims.userId,
      role: claims.role,
      claims,
    },
  };
}

/**
 * 401 when a write's credentials were revoked, expired or deleted while its body arrived. Read from the database, not
 * the row cache, so that a revocation by another process (the CLI) counts at once; synchronous, so that the write
 * keeps the turn it waited for (turns.ts).
 */
export function requireCredentialsStill(principal: Principal, services: Services): void {
  const now = services.clock.now();
  if (principal.kind === "key") {
    const key = services.store.apiKeys.byId(principal.key.id);
    if (!key) throw unauthorized("Invalid API key.");
    const refusal = keyRefusal(key, now);
    if (refusal !== undefined) throw unauthorized(refusal);
    return;
  }
  const { claims } = principal;
  if (
    claims.exp * 1000 <= now ||
    services.store.misc.isSessionRevoked(claims.jti) ||
    !services.store.users.byId(claims.userId)
  )
    throw unauthorized("Invalid or expired session token.");
}
