/** Web-session sign-in and sign-out (DESIGN §3); password checks run on the password pool. */
import * as v from "valibot";
import { checkSignInBackoff, recordSignInAttempt, recordSignInSuccess, subjectsOf } from "../domain/sign-in-backoff.js";
import { userView } from "../domain/views/users.js";
import { LoginEmail } from "../http/admin-rules.js";
import { unauthorized } from "../http/auth.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { maxChars, minChars, named, Timestamp } from "../http/schemas.js";
import { User } from "./account.js";
import { AUTH_ERRORS, err, INPUT_ERRORS, SESSION_ONLY } from "./common.js";

const LoginBody = named(
  "LoginRequest",
  v.pipe(
    v.object({
      email: v.pipe(LoginEmail, v.description("The user's email address, as an administrator created the user.")),
      password: v.pipe(v.string(), minChars(1), maxChars(1024), v.description("The user's password.")),
    }),
    v.description("A user's email and password."),
  ),
);

/** What a successful sign-in returns. */
export const LoginResponse = named(
  "LoginResponse",
  v.pipe(
    v.object({
      token: v.pipe(
        v.string(),
        v.description("The web-session token: send it as `Authorization: Bearer <token>` until expires_at."),
      ),
      expires_at: v.pipe(Timestamp, v.description("When the token stops working (12 hours after sign-in).")),
      user: User,
    }),
    v.description("A web session: its token, its expiry and the signed-in user."),
  ),
);

/** An example of LoginResponse, shown by the operations that sign in. */
export const LOGIN_EXAMPLE = {
  token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.vQcNj4cyv3IPqOHODjl5S8IqSmlHUZH-2Icl94ioke0",
  expires_at: "2026-12-01T21:00:00.000Z",
  user: { id: 1, account_id: 1, email: "admin@localhost", role: "admin", created_at: "2026-12-01T09:00:00.000Z" },
};

/** A hash that never matches, verified when the email is unknown so both paths cost the same. */
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/** The web-session routes: sign in and sign out. */
export const authRoutes = [
  route({
    method: "POST",
    path: "/api/v1/auth/login",
    operationId: "login",
    secret: true,
    summary: "Sign in with email and password; returns a session token (not available to API keys)",
    description:
      "Signs a user in and answers a web-session token, valid for 12 hours, to send as the Bearer credential. A web " +
      "session is the only way to reach the operations API keys may not use: issuing and revoking keys, creating, " +
      "changing and deleting workspaces, settings, learning preferences, billing and the /admin operations. It acts for its user with read " +
      "and write, unbound to any workspace. A wrong email or password is 401 (the same answer for both); a request " +
      "carrying an API key is 401 too. Failed sign-ins back off per email (known or not) and per client address: after " +
      "5 failures of an email (20 of an address) each further one makes it wait, 1 s doubling up to 15 minutes, and " +
      "an attempt meanwhile is 429 sign_in_backoff with Retry-After, its password unchecked; a right password " +
      "afterwards clears the email's failures. The first start of the server prints an administrator's email and password.",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    body: LoginBody,
    bodyExamples: { admin: { email: "admin@localhost", password: "Xe4mQ9rT2vK7pL1sN8bW5cYz" } },
    responses: {
      200: {
        description: "Signed in.",
        schema: LoginResponse,
        example: LOGIN_EXAMPLE,
      },
      ...AUTH_ERRORS,
      429: err("Rate limit exceeded (rate_limit_exceeded), or too many failed sign-ins (sign_in_backoff)."),
      ...INPUT_ERRORS,
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof LoginBody>>) {
      const { store, clock } = ctx.services;
      const subjects = subjectsOf(ctx.body.email, ctx.clientAddress);
      checkSignInBackoff(store, subjects, clock.now());
      recordSignInAttempt(store, subjects, clock.now());
      const user = store.users.byEmail(ctx.body.email);
      const ok = await ctx.services.passwords.run("verifyPassword", {
        password: ctx.body.password,
        hash: user?.password_hash ?? DUMMY_HASH,
      });
      if (!user || !ok) throw unauthorized("Wrong email or password.");
      recordSignInSuccess(store, subjects);
      const { token, exp } = await ctx.services.sessions.issue(user);
      return { body: { token, expires_at: new Date(exp * 1000).toISOString(), user: userView(user) } };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/auth/logout",
    operationId: "logout",
    summary: "End the calling web session",
    description:
      "Signs the calling web session out: its token gets 401 from now on, while the user's other sessions and the " +
      "account's API keys keep working. It takes no body. " +
      SESSION_ONLY,
    tag: "Auth",
    stability: "beta",
    access: "session",
    planExempt: true,
    idempotencyPerSession: true,
    responses: {
      200: {
        description: "Signed out.",
        schema: v.object({ signed_out: v.pipe(v.literal(true), v.description("Always true: the token is revoked.")) }),
        example: { signed_out: true },
      },
      ...AUTH_ERRORS,
    },
    handler(ctx: Ctx) {
      if (ctx.principal.kind === "session") ctx.services.sessions.revoke(ctx.principal.claims);
      return { body: { signed_out: true } };
    },
  }),
];
