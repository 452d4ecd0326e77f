/** Account-level reads (spec §4.6, §4.8) and the caller's settings; user-scoped, they ignore workspace binding. */
import * as v from "valibot";
import { userView } from "../db/users.js";
import { analysesUsed } from "../domain/contents.js";
import { effectiveRateLimits, PLAN_LIMITS } from "../domain/plans.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { IgnoredUpdatedAt, Integer, maxChars, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, INPUT_ERRORS } from "./common.js";

const Plan = v.picklist(["starter", "pro", "business", "agency"]);

const AccountView = v.object({ id: Integer, name: v.string(), plan: Plan, created_at: Timestamp });
const UserView = v.object({
  id: Integer,
  account_id: Integer,
  email: v.string(),
  role: v.picklist(["admin", "member"]),
  created_at: Timestamp,
});

const Quota = v.object({
  period_start: Timestamp,
  period_end: Timestamp,
  limit: Integer,
  used: Integer,
  remaining: Integer,
});

const Entitlements = v.object({
  plan: Plan,
  api_access: v.boolean(),
  rate_limits: v.object({ per_minute: Integer, per_hour: Integer, overridden: v.boolean() }),
  analysis_quota: Quota,
  scopes_available: v.array(v.string()),
});

const Settings = v.object({
  display_name: v.optional(v.pipe(v.string(), maxChars(100))),
  timezone: v.optional(v.pipe(v.string(), maxChars(64))),
  locale: v.optional(v.pipe(v.string(), maxChars(35))),
  email_notifications: v.optional(v.boolean()),
});
// Unknown fields are refused (a misspelt setting would be lost), but the record's own updated_at, read and sent back,
// is taken and ignored.
const SettingsBody = v.strictObject({ ...Settings.entries, updated_at: IgnoredUpdatedAt });
const SettingsView = v.object({ ...Settings.entries, updated_at: v.nullable(Timestamp) });

const Preferences = v.object({
  enabled: v.boolean(),
  apply_to_generation: v.boolean(),
  updated_at: v.nullable(Timestamp),
});
const PreferencesBody = v.strictObject({
  enabled: v.optional(v.boolean()),
  apply_to_generation: v.optional(v.boolean()),
  updated_at: IgnoredUpdatedAt,
});

/** The current calendar month (UTC) as the analysis quota's period. */
export function quotaPeriod(nowMs: number): { start: string; end: string } {
  const d = new Date(nowMs);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

function quotaOf(ctx: Ctx) {
  const period = quotaPeriod(ctx.services.clock.now());
  const limit = PLAN_LIMITS[ctx.account.plan].analysesPerMonth;
  const used = analysesUsed(ctx.services.store, ctx.account.id, period.start);
  return { period_start: period.start, period_end: period.end, limit, used, remaining: Math.max(0, limit - used) };
}

function preferencesOf(ctx: Ctx) {
  const row = ctx.services.store.misc.learningPreferences(ctx.account.id);
  return row
    ? { enabled: row.enabled === 1, apply_to_generation: row.apply_to_generation === 1, updated_at: row.updated_at }
    : { enabled: true, apply_to_generation: true, updated_at: null };
}

export const accountRoutes = [
  route({
    method: "GET",
    path: "/api/v1/users/me",
    operationId: "getMe",
    summary: "The caller: its account, and its user for a web session",
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: {
      200: {
        description: "The caller.",
        schema: v.object({
          kind: v.picklist(["api_key", "session"]),
          account: AccountView,
          user: v.nullable(UserView),
          api_key_id: v.nullable(v.string()),
          session_expires_at: v.pipe(
            v.nullable(Timestamp),
            v.description("When the web session's token expires (log in again then); null for an API key."),
          ),
        }),
      },
      ...AUTH_ERRORS,
    },
    handler(ctx: Ctx) {
      const { id, name, plan, created_at } = ctx.account;
      const p = ctx.principal;
      const user = p.kind === "session" ? ctx.services.store.users.byId(p.userId) : undefined;
      return {
        body: {
          kind: p.kind === "key" ? "api_key" : "session",
          account: { id, name, plan, created_at },
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
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: { 200: { description: "The entitlements.", schema: Entitlements }, ...AUTH_ERRORS },
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
          analysis_quota: quotaOf(ctx),
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
    tag: "Account",
    stability: "beta",
    access: "any",
    // As the entitlements, which carry the same quota: a starter or pro session reads it (a key is still 403).
    planExempt: true,
    responses: { 200: { description: "The quota.", schema: Quota }, ...AUTH_ERRORS },
    handler: (ctx: Ctx) => ({ body: quotaOf(ctx) }),
  }),
  route({
    method: "GET",
    path: "/api/v1/me/settings",
    operationId: "getSettings",
    summary:
      "The signed-in user's settings; an API key (read scope) acts for no user and reads none: {updated_at: null}",
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: { 200: { description: "The settings.", schema: SettingsView }, ...AUTH_ERRORS },
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
    tag: "Account",
    stability: "beta",
    access: "session",
    planExempt: true,
    body: SettingsBody,
    responses: { 200: { description: "The settings.", schema: SettingsView }, ...AUTH_ERRORS, ...INPUT_ERRORS },
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
    tag: "Account",
    stability: "beta",
    access: "any",
    planExempt: true,
    responses: { 200: { description: "The preferences.", schema: Preferences }, ...AUTH_ERRORS },
    handler: (ctx: Ctx) => ({ body: preferencesOf(ctx) }),
  }),
  route({
    method: "PUT",
    path: "/api/v1/learning-preferences",
    operationId: "updateLearningPreferences",
    summary: "Switch learning on or off (web session only)",
    tag: "Account",
    stability: "beta",
    access: "session",
    planExempt: true,
    body: PreferencesBody,
    responses: { 200: { description: "The preferences.", schema: Preferences }, ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof PreferencesBody>>) {
      const current = preferencesOf(ctx);
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
      return { body: preferencesOf(ctx) };
    },
  }),
];
