/** Command-line device authorization and the OAuth callback (spec §4.11): never available to API keys. */
import * as v from "valibot";
import { userView } from "../db/users.js";
import { DEVICE_POLL_SECONDS } from "../domain/device-auth.js";
import type { Ctx } from "../http/context.js";
import { ApiError } from "../http/errors.js";
import { publicUrlOf } from "../http/public-url.js";
import { route } from "../http/route.js";
import { Integer, maxChars } from "../http/schemas.js";
import { LoginResponse } from "./auth.js";
import { AUTH_ERRORS, INPUT_ERRORS, NOT_FOUND } from "./common.js";

const DeviceCode = v.object({
  device_code: v.string(),
  user_code: v.string(),
  verification_uri: v.string(),
  expires_in: Integer,
  interval: Integer,
});

const UserCode = v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z]{4}-?[A-Za-z]{4}$/, "must be a code like BCDF-GHJK"));

/** `bcdfghjk` or `BCDF-GHJK` → `BCDF-GHJK`. */
function canonicalUserCode(code: string): string {
  const raw = code.toUpperCase().replace("-", "");
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
}

export const deviceAuthRoutes = [
  route({
    method: "POST",
    path: "/api/v1/auth/device/code",
    operationId: "startDeviceAuthorization",
    summary: "Command-line sign-in, step 1: get a device code and a user code (not available to API keys)",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    body: v.object({ client_name: v.optional(v.pipe(v.string(), maxChars(100))) }),
    responses: {
      200: {
        description: "Show user_code to the person; poll /auth/device/token with device_code.",
        schema: DeviceCode,
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx) {
      const { deviceCode, userCode, expiresIn } = ctx.services.deviceAuth.start();
      return {
        body: {
          device_code: deviceCode,
          user_code: userCode,
          // Joined as upgrade_action is: a public URL given with a trailing slash had made `…//api/v1/…`.
          verification_uri: publicUrlOf(ctx.services.config.publicUrl, "/api/v1/auth/device/approve"),
          expires_in: expiresIn,
          interval: DEVICE_POLL_SECONDS,
        },
      };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/auth/device/approve",
    operationId: "approveDeviceAuthorization",
    summary: "Command-line sign-in, step 2: the signed-in user approves the user code (web session only)",
    tag: "Auth",
    stability: "beta",
    access: "session",
    planExempt: true,
    body: v.object({ user_code: UserCode }),
    responses: {
      200: { description: "Approved.", schema: v.object({ approved: v.literal(true) }) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("User code"),
    },
    handler(ctx: Ctx<Record<string, string>, unknown, { user_code: string }>) {
      const p = ctx.principal;
      if (p.kind !== "session" || !ctx.services.deviceAuth.approve(canonicalUserCode(ctx.body.user_code), p.userId))
        throw new ApiError(
          "device_code_not_found",
          "No pending sign-in has that code; start again from the command line.",
        );
      return { body: { approved: true } };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/auth/device/token",
    operationId: "pollDeviceAuthorization",
    summary: "Command-line sign-in, step 3: exchange an approved device code for a session token (not for API keys)",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    body: v.object({ device_code: v.pipe(v.string(), maxChars(100)) }),
    responses: { 200: { description: "Signed in.", schema: LoginResponse }, ...AUTH_ERRORS, ...INPUT_ERRORS },
    async handler(ctx: Ctx<Record<string, string>, unknown, { device_code: string }>) {
      const poll = ctx.services.deviceAuth.poll(ctx.body.device_code);
      if (poll.state === "pending")
        throw new ApiError("authorization_pending", "Not approved yet; poll again.", { interval: DEVICE_POLL_SECONDS });
      const user = poll.state === "approved" ? ctx.services.store.users.byId(poll.userId) : undefined;
      if (!user)
        throw new ApiError("device_code_expired", "This device code is unknown, used or expired; start again.");
      const { token, exp } = await ctx.services.sessions.issue(user);
      return { body: { token, expires_at: new Date(exp * 1000).toISOString(), user: userView(user) } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/auth/oauth/callback",
    operationId: "oauthCallback",
    summary: "OAuth sign-in callback (not available to API keys); no OAuth provider is configured on this server",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    query: v.object({ code: v.optional(v.string()), state: v.optional(v.string()) }),
    responses: { ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler() {
      throw new ApiError(
        "oauth_not_configured",
        "This server signs users in with email and password or device authorization; no OAuth provider is configured.",
      );
    },
  }),
];
