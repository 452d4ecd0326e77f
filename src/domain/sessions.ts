/** Web-session tokens: HS256 JWTs signed with the secret created at init (jose does the JWT work). */
import { errors, jwtVerify, SignJWT } from "jose";
import type { Store } from "../db/store.js";
import type { Role } from "../db/users.js";
import { base62 } from "../runtime/ids.js";
import { randomBytes } from "../runtime/random.js";

/** How long a session token lives. */
export const SESSION_TTL_SECONDS = 12 * 3600;
const ISSUER = "content-service";
const SECRET_SETTING = "jwt_secret";

/** The claims a session carries. */
export interface SessionClaims {
  userId: number;
  accountId: number;
  role: Role;
  jti: string;
  exp: number;
}

/** Creates the signing secret once (at init); later calls return the same secret. */
export function ensureJwtSecret(store: Store): string {
  return store.misc.settingOnce(SECRET_SETTING, randomBytes(32).toString("base64url"));
}

/** Issues and verifies session tokens. */
export class SessionTokens {
  private key: Uint8Array;

  constructor(
    private store: Store,
    private nowMs: () => number,
  ) {
    this.key = Buffer.from(ensureJwtSecret(store), "base64url");
  }

  /** A signed token for a user, with its expiry as seconds since the epoch. */
  async issue(user: {
    id: number;
    account_id: number;
    role: Role;
    session_generation: number;
  }): Promise<{ token: string; exp: number }> {
    const iat = Math.floor(this.nowMs() / 1000);
    const exp = iat + SESSION_TTL_SECONDS;
    const token = await new SignJWT({ acc: user.account_id, role: user.role, gen: user.session_generation })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(ISSUER)
      .setSubject(String(user.id))
      .setJti(base62(20))
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, exp };
  }

  /**
   * The claims of a valid, unrevoked token whose user still exists with the session generation the token was issued
   * at (a token from before generations has none: 0); null otherwise. A password change moves the generation, and so
   * ends every session of its user (test/cli/user-passwords.test.ts).
   */
  async verify(token: string): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: ISSUER,
        currentDate: new Date(this.nowMs()),
      });
      const userId = Number(payload.sub);
      const jti = payload.jti;
      if (!Number.isInteger(userId) || typeof jti !== "string" || typeof payload.exp !== "number") return null;
      if (this.store.misc.isSessionRevoked(jti)) return null;
      const user = this.store.users.byId(userId);
      if (!user || (payload.gen ?? 0) !== user.session_generation) return null;
      return { userId, accountId: user.account_id, role: user.role, jti, exp: payload.exp };
    } catch (e) {
      if (e instanceof errors.JOSEError || e instanceof TypeError) return null;
      throw e;
    }
  }

  /** Revokes a session until its natural expiry. */
  revoke(claims: SessionClaims): void {
    this.store.misc.revokeSession(claims.jti, new Date(claims.exp * 1000).toISOString());
  }
}
