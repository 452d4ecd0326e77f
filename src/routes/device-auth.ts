/** Command-line device authorization and the OAuth callback (spec §4.11): never available to API keys. */
import * as v from "valibot";
import { DEVICE_POLL_SECONDS } from "../domain/device-auth.js";
import { ApiError } from "../domain/errors.js";
import { userView } from "../domain/views/users.js";
import type { Ctx } from "../http/context.js";
import { DEVICE_PAGE } from "../http/dashboard-paths.js";
import { publicUrlOf } from "../http/public-url.js";
import { route } from "../http/route.js";
import { Integer, maxChars, named } from "../http/schemas.js";
import { LOGIN_EXAMPLE, LoginResponse } from "./auth.js";
import { AUTH_ERRORS, INPUT_ERRORS, NOT_FOUND, SESSION_ONLY } from "./common.js";

const DeviceCode = named(
  "DeviceAuthorization",
  v.pipe(
    v.object({
      device_code: v.pipe(
        v.string(),
        v.description("The program's secret for this sign-in: send it to POST /api/v1/auth/device/token."),
      ),
      user_code: v.pipe(
        v.string(),
        v.description("The code to show the person, who approves it from a web session (BCDF-GHJK)."),
      ),
      verification_uri: v.pipe(
        v.string(),
        v.description("The dashboard's page where the person, signed in, types the user code and approves it."),
      ),
      verification_uri_complete: v.pipe(
        v.string(),
        v.description("The same page with the user code filled in (RFC 8628 §3.3.1), for a link or a QR code."),
      ),
      expires_in: v.pipe(Integer, v.description("Seconds the codes stay valid (600).")),
      interval: v.pipe(Integer, v.description("Seconds to wait between two polls of the token operation.")),
    }),
    v.description("A command-line sign-in under way: show user_code to the person, poll with device_code."),
  ),
);

const UserCode = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^[A-Za-z]{4}-?[A-Za-z]{4}$/, "must be a code like BCDF-GHJK"),
  v.description("The user code the command line shows: eight letters, with or without the dash, in any case."),
);

/** `bcdfghjk` or `BCDF-GHJK` → `BCDF-GHJK`. */
function canonicalUserCode(code: string): string {
  const raw = code.toUpperCase().replace("-", "");
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
}

/** The device-authorization routes: a CLI or device signs in through a browser session. */
export const deviceAuthRoutes = [
  route({
    method: "POST",
    path: "/api/v1/auth/device/code",
    operationId: "startDeviceAuthorization",
    secret: true,
    summary: "Command-line sign-in, step 1: get a device code and a user code (not available to API keys)",
    description:
      "Starts a sign-in for a program that cannot ask for a password (a command line, a build job): it answers a " +
      "device code, which the program keeps, and a user code, which it shows to the person. The person approves the " +
      "user code at verification_uri, the dashboard's page, which calls step 2 (POST /api/v1/auth/device/approve); meanwhile the program polls step 3 " +
      "(POST /api/v1/auth/device/token) every `interval` seconds until it answers a session token. The codes expire " +
      "after 10 minutes. Needs no credentials; a request carrying an API key gets 401.",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    body: named(
      "StartDeviceAuthorizationRequest",
      v.pipe(
        v.object({
          client_name: v.optional(
            v.pipe(v.string(), maxChars(100), v.description("The name of the program signing in, for the person.")),
          ),
        }),
        v.description("Optional details of the program signing in; an empty object is enough."),
      ),
    ),
    bodyExamples: { cli: { client_name: "content-service CLI" }, empty: {} },
    responses: {
      200: {
        description: "Show user_code to the person; poll /auth/device/token with device_code.",
        schema: DeviceCode,
        example: {
          device_code: "Zk3lq7VxT0wqYw1rG9mB2nP4sA8dE6fHq2Lr9XcN",
          user_code: "BCDF-GHJK",
          verification_uri: "http://127.0.0.1:8080/device",
          verification_uri_complete: "http://127.0.0.1:8080/device?user_code=BCDF-GHJK",
          expires_in: 600,
          interval: 5,
        },
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
          // Joined as upgrade_action is, so that a public URL with a trailing slash makes no `//`.
          verification_uri: publicUrlOf(ctx.services.config.publicUrl, DEVICE_PAGE),
          verification_uri_complete: publicUrlOf(
            ctx.services.config.publicUrl,
            `${DEVICE_PAGE}?${new URLSearchParams({ user_code: userCode })}`,
          ),
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
    description:
      "Approves a pending command-line sign-in by the user code the program showed: the program's next poll of " +
      "POST /api/v1/auth/device/token then answers a session token for the approving user. A code that is unknown, " +
      "expired or approved by another user is 404 device_code_not_found: start again from the program. " +
      SESSION_ONLY,
    tag: "Auth",
    stability: "beta",
    access: "session",
    planExempt: true,
    body: named(
      "ApproveDeviceAuthorizationRequest",
      v.pipe(v.object({ user_code: UserCode }), v.description("The user code to approve.")),
    ),
    bodyExamples: { approve: { user_code: "BCDF-GHJK" } },
    responses: {
      200: {
        description: "Approved.",
        schema: v.object({
          approved: v.pipe(v.literal(true), v.description("Always true: the program's next poll signs it in.")),
        }),
        example: { approved: true },
      },
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
    secret: true,
    summary: "Command-line sign-in, step 3: exchange an approved device code for a session token (not for API keys)",
    description:
      "Polled by the program with its device code: until the person approves, it answers 400 authorization_pending " +
      "(wait `interval` seconds and poll again); once approved, it answers a session token for the approving user, " +
      "as POST /api/v1/auth/login does, and the device code is used up. A code that is unknown, used or expired is " +
      "400 device_code_expired: start again at step 1. Needs no credentials; a request carrying an API key gets 401.",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    body: named(
      "PollDeviceAuthorizationRequest",
      v.pipe(
        v.object({
          device_code: v.pipe(
            v.string(),
            maxChars(100),
            v.description("The device_code step 1 answered (not the user code)."),
          ),
        }),
        v.description("The device code of the sign-in to complete."),
      ),
    ),
    bodyExamples: { poll: { device_code: "Zk3lq7VxT0wqYw1rG9mB2nP4sA8dE6fHq2Lr9XcN" } },
    responses: {
      200: { description: "Signed in.", schema: LoginResponse, example: LOGIN_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
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
    description:
      "Where an OAuth provider would send a browser back after sign-in. This server signs users in with email and " +
      "password (POST /api/v1/auth/login) or device authorization, and configures no OAuth provider: every call is " +
      "answered 400 oauth_not_configured. A request carrying an API key gets 401.",
    tag: "Auth",
    stability: "beta",
    access: "public",
    rejectsApiKeys: true,
    query: v.object({
      code: v.optional(v.pipe(v.string(), v.description("The authorization code an OAuth provider would send."))),
      state: v.optional(v.pipe(v.string(), v.description("The state value the sign-in began with."))),
    }),
    responses: { ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler() {
      throw new ApiError(
        "oauth_not_configured",
        "This server signs users in with email and password or device authorization; no OAuth provider is configured.",
      );
    },
  }),
];
