/** Web-session sign-in and sign-out (DESIGN §3); password checks run on the password pool. */
import * as v from "valibot";
import { userView } from "../db/users.js";
import { LoginEmail } from "../domain/admin-rules.js";
import { unauthorized } from "../http/auth.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { Integer, maxChars, minChars, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, INPUT_ERRORS } from "./common.js";

const LoginBody = v.object({
  email: LoginEmail,
  password: v.pipe(v.string(), minChars(1), maxChars(1024)),
});

/** What a successful sign-in returns. */
export const LoginResponse = v.object({
  token: v.string(),
  expires_at: Timestamp,
  user: v.object({
    id: Integer,
    account_id: Integer,
    email: v.string(),
    role: v.string(),
    created_at: Timestamp,
  }),
});

/** A hash that never matches, verified when the email is unknown so both paths cost the same. */
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export const authRoutes = [
  route({
    method: "POST",
    path: "/api/v1/auth/login",
    operationId: "login",
    summary: "Sign in with email and password; returns a session token (not available to API keys)",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    body: LoginBody,
    responses: {
      200: {
        description: "Signed in.",
        schema: LoginResponse,
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof LoginBody>>) {
      const user = ctx.services.store.users.byEmail(ctx.body.email);
      const ok = await ctx.services.passwords.run("verifyPassword", {
        password: ctx.body.password,
        hash: user?.password_hash ?? DUMMY_HASH,
      });
      if (!user || !ok) throw unauthorized("Wrong email or password.");
      const { token, exp } = await ctx.services.sessions.issue(user);
      return { body: { token, expires_at: new Date(exp * 1000).toISOString(), user: userView(user) } };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/auth/logout",
    operationId: "logout",
    summary: "End the calling web session",
    tag: "Auth",
    stability: "beta",
    access: "session",
    planExempt: true,
    idempotencyPerSession: true,
    responses: {
      200: { description: "Signed out.", schema: v.object({ signed_out: v.literal(true) }) },
      ...AUTH_ERRORS,
    },
    handler(ctx: Ctx) {
      if (ctx.principal.kind === "session") ctx.services.sessions.revoke(ctx.principal.claims);
      return { body: { signed_out: true } };
    },
  }),
];
