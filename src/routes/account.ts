/** Account-level reads (spec §4.6, §4.8) and the caller's settings; user-scoped, they ignore workspace binding. */
import * as v from "valibot";
import { keyAllowance } from "../domain/admin.js";
import { analysisQuota, learningPreferences } from "../domain/learning-settings.js";
import { effectiveRateLimits, PLAN_LIMITS } from "../domain/plans.js";
import { storageOf } from "../domain/storage.js";
import { accountView } from "../domain/views/accounts.js";
import { userView } from "../domain/views/users.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { IgnoredUpdatedAt, Integer, maxChars, named, Timestamp } from "../http/schemas.js";
import { ACCOUNT_LEVEL, AUTH_ERRORS, INPUT_ERRORS, SESSION_ONLY } from "./common.js";

const Plan = v.pipe(
  v.picklist(["starter", "pro", "business", "agency"]),
  v.description("The account's plan: business and agency have API access; starter and pro reach it by web session."),
);

const AccountView = named(
  "AccountSummary",
  v.pipe(
    v.object({
      id: v.pipe(Integer, v.description("The account's id.")),
      name: v.pipe(v.string(), v.description("The account's name.")),
      plan: Plan,
      created_at: v.pipe(Timestamp, v.description("When the account was created.")),
    }),
    v.description("The caller's account: its id, name and plan."),
  ),
);

/** A user who signs in with a web session, as every operation that shows one answers it. */
export const User = named(
  "User",
  v.pipe(
    v.object({
      id: v.pipe(Integer, v.description("The user's id.")),
      account_id: v.pipe(Integer, v.description("The account the user belongs to.")),
      email: v.pipe(v.string(), v.description("The user's email address, the login (trimmed, in Unicode NFC).")),
      role: v.pipe(
        v.picklist(["admin", "member"]),
        v.description("admin: may also use the /admin operations; member: everything else a web session may do."),
      ),
      created_at: v.pipe(Timestamp, v.description("When the user was created.")),
    }),
    v.description("A user of an account, who signs in with email and password for a web session."),
  ),
);

const Quota = named(
  "AnalysisQuota",
  v.pipe(
    v.object({
      period_start: v.pipe(Timestamp, v.description("The start of the current calendar month (UTC).")),
      period_end: v.pipe(Timestamp, v.description("The start of the next month, when the quota is full again.")),
      limit: v.pipe(Integer, v.description("Learning analyses the plan allows in a month (0 on starter and pro).")),
      used: v.pipe(
        Integer,
        v.description("Analyses this month's finalizations queued, whatever became of them (failed ones count)."),
      ),
      remaining: v.pipe(Integer, v.description("limit less used, never below 0.")),
    }),
    v.description(
      "The learning analyses of this month: each finalization with learning on uses one; when none remain, " +
        "finalizing still works but starts no analysis.",
    ),
  ),
);

const StorageQuota = v.pipe(
  v.object({
    limit_bytes: v.pipe(Integer, v.description("Bytes the account's records may hold (the plan's, or its own).")),
    used_bytes: v.pipe(
      Integer,
      v.description("Bytes they hold now: texts, references, images, conversions, memories."),
    ),
  }),
  v.description("The storage quota (beta, additive): a write past it is 507 storage_quota_exceeded."),
);

const Entitlements = named(
  "Entitlements",
  v.pipe(
    v.object({
      plan: Plan,
      api_access: v.pipe(v.boolean(), v.description("Whether the plan's API keys are accepted (business, agency).")),
      rate_limits: v.pipe(
        v.object({
          per_minute: v.pipe(Integer, v.description("Requests per key per minute.")),
          per_hour: v.pipe(Integer, v.description("Requests per key per hour.")),
          overridden: v.pipe(
            v.boolean(),
            v.description("Whether an administrator set these for the account instead of the plan's."),
          ),
        }),
        v.description("The limits in force for each API key of the account."),
      ),
      analysis_quota: Quota,
      api_keys: v.pipe(
        v.object({
          limit: v.pipe(Integer, v.description("Active keys the account may have at once (the plan's, or its own).")),
          active: v.pipe(Integer, v.description("Its keys active now: neither revoked nor expired.")),
        }),
        v.description("The cap on active API keys: at it, issuing another is 409 api_key_limit_reached."),
      ),
      storage: v.optional(StorageQuota),
      scopes_available: v.pipe(v.array(v.string()), v.description("The scopes a new API key may be given.")),
    }),
    v.description("What the account's plan allows: API access, rate limits, the analysis quota and key scopes."),
  ),
);

const Settings = v.object({
  display_name: v.optional(v.pipe(v.string(), maxChars(100), v.description("The name shown for the user."))),
  timezone: v.optional(
    v.pipe(v.string(), maxChars(64), v.description("The user's time zone, an IANA name (Europe/Paris).")),
  ),
  locale: v.optional(v.pipe(v.string(), maxChars(35), v.description("The user's language tag (BCP 47: en-GB)."))),
  email_notifications: v.optional(
    v.pipe(v.boolean(), v.description("Whether the user wants email notifications (kept; this server sends none).")),
  ),
});
// Unknown fields are refused (a misspelt setting would be lost), but the record's own updated_at, read and sent back,
// is taken and ignored.
const SettingsBody = named(
  "UpdateSettingsRequest",
  v.pipe(
    v.strictObject({ ...Settings.entries, updated_at: IgnoredUpdatedAt }),
    v.description("The settings to change; those left out keep their value. Unknown fields are refused."),
  ),
);
const SettingsView = named(
  "Settings",
  v.pipe(
    v.object({
      ...Settings.entries,
      updated_at: v.pipe(v.nullable(Timestamp), v.description("When the settings last changed; null: never set.")),
    }),
    v.description("The signed-in user's settings: only those ever set are present."),
  ),
);

/** The settings as GET and PUT /me/settings answer them, in the description. */
const SETTINGS_EXAMPLE = {
  display_name: "Ada Lovelace",
  timezone: "Europe/London",
  locale: "en-GB",
  email_notifications: false,
  updated_at: "2026-12-01T10:15:00.000Z",
};

const PREFERENCES = {
  enabled: "Whether finalizing a content record starts a learning analysis of its edits.",
  apply_to_generation: "Whether generation follows the voice profile that learning built.",
};
const Preferences = named(
  "LearningPreferences",
  v.pipe(
    v.object({
      enabled: v.pipe(v.boolean(), v.description(PREFERENCES.enabled)),
      apply_to_generation: v.pipe(v.boolean(), v.description(PREFERENCES.apply_to_generation)),
      updated_at: v.pipe(
        v.nullable(Timestamp),
        v.description("When they last changed; null: never changed (both are on by default)."),
      ),
    }),
    v.description("Whether the account learns from finalized edits, and whether generation uses what it learned."),
  ),
);
const PreferencesBody = named(
  "UpdateLearningPreferencesRequest",
  v.pipe(
    v.strictObject({
      enabled: v.optional(v.pipe(v.boolean(), v.description(PREFERENCES.enabled))),
      apply_to_generation: v.optional(v.pipe(v.boolean(), v.description(PREFERENCES.apply_to_generation))),
      updated_at: IgnoredUpdatedAt,
    }),
    v.description("The preferences to change; those left out keep their value."),
  ),
);

/** The account routes: the caller, its entitlements, quota, preferences and settings. */
export const accountRoutes = [
  route({
    method: "GET",
    path: "/api/v1/users/me",
    operationId: "getMe",
    summary: "The caller: its account, and its user for a web session",
    description:
      "Says who is calling: the account, and either the API key's id or, for a web session, the signed-in user and " +
      "when the session's token expires. Use it to check a credential, or to find the account and user ids the " +
      "admin operations take. It changes nothing and answers any plan, so a starter or pro web session reads it too. " +
      ACCOUNT_LEVEL,
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: {
      200: {
        description: "The caller.",
        schema: named(
          "Caller",
          v.pipe(
            v.object({
              kind: v.pipe(
                v.picklist(["api_key", "session"]),
                v.description("api_key: the request carried an API key; session: a web-session token."),
              ),
              account: AccountView,
              user: v.pipe(v.nullable(User), v.description("The signed-in user; null for an API key.")),
              api_key_id: v.pipe(
                v.nullable(v.string()),
                v.description("The calling key's id (GET /api/v1/api-keys/current shows it); null for a session."),
              ),
              session_expires_at: v.pipe(
                v.nullable(Timestamp),
                v.description("When the web session's token expires (log in again then); null for an API key."),
              ),
            }),
            v.description("Who is calling: the account, and the API key or the signed-in user."),
          ),
        ),
        example: {
          kind: "api_key",
          account: { id: 1, name: "Default account", plan: "business", created_at: "2026-12-01T09:00:00.000Z" },
          user: null,
          api_key_id: "key_H8C9kEL74gkCnvXw",
          session_expires_at: null,
        },
      },
      ...AUTH_ERRORS,
    },
    handler(ctx: Ctx) {
      const p = ctx.principal;
      const user = p.kind === "session" ? ctx.services.store.users.byId(p.userId) : undefined;
      return {
        body: {
          kind: p.kind === "key" ? "api_key" : "session",
          account: accountView(ctx.account),
          user: user ? userView(user) : null,
          api_key_id: p.kind === "key" ? p.key.id : null,
          session_expires_at: p.kind === "session" ? new Date(p.claims.exp * 1000).toISOString() : null,
        },
      };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/users/me/entitlements",
    operationId: "getEntitlements",
    summary: "Plan, API access, rate limits and analysis quota of the caller's account",
    description:
      "Reads what the account's plan allows: whether its API keys are accepted, the requests per minute and per hour " +
      "each key may send (the plan's, or an administrator's override), this month's learning-analysis quota and the " +
      "scopes a key may have. Use it to pace a client before it meets 429. It changes nothing; a starter or pro " +
      "web session reads it too. " +
      ACCOUNT_LEVEL,
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: {
      200: {
        description: "The entitlements.",
        schema: Entitlements,
        example: {
          plan: "business",
          api_access: true,
          rate_limits: { per_minute: 100, per_hour: 1000, overridden: false },
          analysis_quota: {
            period_start: "2026-12-01T00:00:00.000Z",
            period_end: "2027-01-01T00:00:00.000Z",
            limit: 500,
            used: 12,
            remaining: 488,
          },
          api_keys: { limit: 50, active: 3 },
          storage: { limit_bytes: 10737418240, used_bytes: 5242880 },
          scopes_available: ["read", "write"],
        },
      },
      ...AUTH_ERRORS,
    },
    handler(ctx: Ctx) {
      const limits = effectiveRateLimits(ctx.account);
      const plan = PLAN_LIMITS[ctx.account.plan];
      return {
        body: {
          plan: ctx.account.plan,
          api_access: plan.apiAccess,
          rate_limits: {
            per_minute: limits.perMinute,
            per_hour: limits.perHour,
            overridden: ctx.account.rate_per_minute !== null || ctx.account.rate_per_hour !== null,
          },
          analysis_quota: analysisQuota(ctx.services.store, ctx.account, ctx.services.clock.now()),
          api_keys: keyAllowance(ctx.services.store, ctx.account, ctx.services.clock.now()),
          storage: storageOf(ctx.services.store, ctx.account),
          scopes_available: ["read", "write"],
        },
      };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/analysis/quota",
    operationId: "getAnalysisQuota",
    summary: "The month's learning-analysis quota",
    description:
      "Reads how many learning analyses the account may still start this calendar month (UTC). Each finalization " +
      "with learning on uses one; when none remain, finalizing still saves the text but starts no analysis. The " +
      "same quota is part of GET /api/v1/users/me/entitlements. It changes nothing. " +
      ACCOUNT_LEVEL,
    tag: "Account",
    stability: "beta",
    access: "any",
    // As the entitlements, which carry the same quota: a starter or pro session reads it (a key is still 403).
    planExempt: true,
    responses: {
      200: {
        description: "The quota.",
        schema: Quota,
        example: {
          period_start: "2026-12-01T00:00:00.000Z",
          period_end: "2027-01-01T00:00:00.000Z",
          limit: 500,
          used: 12,
          remaining: 488,
        },
      },
      ...AUTH_ERRORS,
    },
    handler: (ctx: Ctx) => ({ body: analysisQuota(ctx.services.store, ctx.account, ctx.services.clock.now()) }),
  }),
  route({
    method: "GET",
    path: "/api/v1/me/settings",
    operationId: "getSettings",
    summary:
      "The signed-in user's settings; an API key (read scope) acts for no user and reads none: {updated_at: null}",
    description:
      "Reads the signed-in user's settings (display name, time zone, locale, email notifications): only those ever " +
      "set are present. Settings belong to a user, and an API key acts for the account, not a user: with a key the " +
      'answer is {"updated_at": null}. Change them with PUT /api/v1/me/settings. It changes nothing.',
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: {
      200: {
        description: "The settings.",
        schema: SettingsView,
        example: SETTINGS_EXAMPLE,
      },
      ...AUTH_ERRORS,
    },
    handler(ctx: Ctx) {
      // Settings belong to a user; a key belongs to the account, so it has none of its own (DESIGN §6: only PUT is
      // reserved to sessions).
      const p = ctx.principal;
      const row = p.kind === "session" ? ctx.services.store.misc.userSettings(p.userId) : undefined;
      return { body: row ? { ...JSON.parse(row.value), updated_at: row.updated_at } : { updated_at: null } };
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/me/settings",
    operationId: "updateSettings",
    summary: "Change the signed-in user's settings (web session only)",
    description:
      "Changes the signed-in user's settings: the fields sent are set, those left out keep their value, and an " +
      "unknown field is refused (400), so that a misspelt setting is not silently lost. The settings read by GET " +
      "may be sent back whole: their updated_at is accepted and ignored. Answers the settings as they now are. " +
      SESSION_ONLY,
    tag: "Account",
    stability: "beta",
    access: "session",
    planExempt: true,
    body: SettingsBody,
    bodyExamples: {
      all: { display_name: "Ada Lovelace", timezone: "Europe/London", locale: "en-GB", email_notifications: false },
      one: { timezone: "America/New_York" },
    },
    responses: {
      200: {
        description: "The settings.",
        schema: SettingsView,
        example: SETTINGS_EXAMPLE,
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof SettingsBody>>) {
      const p = ctx.principal;
      if (p.kind !== "session") throw new Error("unreachable: session-only route");
      const current = ctx.services.store.misc.userSettings(p.userId);
      const { updated_at: _ignored, ...changes } = ctx.body;
      const merged = { ...(current ? JSON.parse(current.value) : {}), ...changes };
      const now = new Date(ctx.services.clock.now()).toISOString();
      ctx.services.store.misc.putUserSettings(p.userId, merged, now);
      return { body: { ...merged, updated_at: now } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/learning-preferences",
    operationId: "getLearningPreferences",
    summary: "Whether finalizing starts learning analysis, and whether generation follows what was learned",
    description:
      "Reads the account's learning preferences: whether finalizing a content record starts a background analysis " +
      "of the edits (a learning job that updates the voice profile), and whether generation applies that profile. " +
      "Both are on until changed with PUT /api/v1/learning-preferences. It changes nothing.",
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: {
      200: {
        description: "The preferences.",
        schema: Preferences,
        example: { enabled: true, apply_to_generation: true, updated_at: null },
      },
      ...AUTH_ERRORS,
    },
    handler: (ctx: Ctx) => ({ body: learningPreferences(ctx.services.store, ctx.account.id) }),
  }),
  route({
    method: "PUT",
    path: "/api/v1/learning-preferences",
    operationId: "updateLearningPreferences",
    summary: "Switch learning on or off (web session only)",
    description:
      "Switches learning on or off for the whole account: `enabled: false` stops finalization from starting " +
      "learning analyses (finalizing still saves the text); `apply_to_generation: false` makes generation ignore " +
      "the voice profile already learned. A field left out keeps its value; the record read by GET may be sent " +
      "back whole (its updated_at is ignored). The change is written to the audit log. Administrators only: a " +
      "member's session gets 403 admin_required. " +
      SESSION_ONLY,
    tag: "Account",
    stability: "beta",
    access: "admin",
    planExempt: true,
    body: PreferencesBody,
    bodyExamples: {
      pauseLearning: { enabled: false },
      both: { enabled: true, apply_to_generation: false },
    },
    responses: {
      200: {
        description: "The preferences.",
        schema: Preferences,
        example: { enabled: false, apply_to_generation: true, updated_at: "2026-12-01T10:20:00.000Z" },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof PreferencesBody>>) {
      const current = learningPreferences(ctx.services.store, ctx.account.id);
      const enabled = ctx.body.enabled ?? current.enabled;
      const apply = ctx.body.apply_to_generation ?? current.apply_to_generation;
      ctx.services.store.misc.putLearningPreferences(
        ctx.account.id,
        enabled,
        apply,
        new Date(ctx.services.clock.now()).toISOString(),
      );
      ctx.services.store.misc.audit(
        ctx.account.id,
        `user:${ctx.principal.kind === "session" ? ctx.principal.userId : "?"}`,
        "learning_preferences.update",
        null,
        { enabled, apply_to_generation: apply },
      );
      return { body: learningPreferences(ctx.services.store, ctx.account.id) };
    },
  }),
];
