/** /admin/*: accounts, users and the audit log, for web sessions of admin users (spec §4.11). */
import * as v from "valibot";
import { userView } from "../db/users.js";
import { createAccount, createUser, operatorAccountId, setLimits, setPlan } from "../domain/admin.js";
import { Email, MAX_NAME_LENGTH, Password, RateLimit, RecordName } from "../domain/admin-rules.js";
import { generatePassword } from "../domain/passwords.js";
import { PLANS } from "../domain/plans.js";
import type { Ctx } from "../http/context.js";
import { ApiError, invalidInput } from "../http/errors.js";
import { route } from "../http/route.js";
import { Integer, ignoredTimestamp, intString, maxChars, PageQuery, pageOf, Timestamp } from "../http/schemas.js";
import { actorOf } from "./apikeys.js";
import { AUTH_ERRORS, decodeCursor, encodeCursor, INPUT_ERRORS, NOT_FOUND, page, pageList } from "./common.js";

const Account = v.object({
  id: Integer,
  name: v.string(),
  plan: v.picklist(PLANS),
  rate_per_minute: v.nullable(Integer),
  rate_per_hour: v.nullable(Integer),
  created_at: Timestamp,
});
const User = v.object({
  id: Integer,
  account_id: Integer,
  email: v.string(),
  role: v.picklist(["admin", "member"]),
  created_at: Timestamp,
});
const Limit = v.nullable(RateLimit);
const AccountParams = v.object({ id: intString() });
const UpdateAccount = v.strictObject({
  plan: v.optional(v.picklist(PLANS)),
  rate_per_minute: v.optional(Limit),
  rate_per_hour: v.optional(Limit),
  // The record's other fields, as in an account read and written back: accepted only as the account has them.
  id: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.metadata({ readOnly: true, description: "The account's id: accepted only as it is." }),
    ),
  ),
  name: v.optional(
    v.pipe(
      v.string(),
      maxChars(MAX_NAME_LENGTH),
      v.metadata({ readOnly: true, description: "The account's name: accepted only as it is (not renamed here)." }),
    ),
  ),
  created_at: ignoredTimestamp("created_at"),
});
const CreateUser = v.object({
  account_id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  email: Email,
  role: v.optional(v.picklist(["admin", "member"]), "member"),
  password: v.optional(Password),
});
const ListQuery = v.object(PageQuery);
/** A sort key for integer ids that orders as numbers do. */
const idKey = (id: number) => String(id).padStart(16, "0");
const AuditQuery = v.object({ ...PageQuery, account_id: v.optional(intString()) });

/**
 * Whether the caller administers the server: an admin of the operator account (the one `init` created). Admins
 * of other accounts administer their own account only: another account's records are 404 to them, and plans and
 * limits, which are what customers pay for, are the operator's alone.
 */
function isOperator(ctx: Ctx): boolean {
  return ctx.principal.accountId === operatorAccountId(ctx.services.store);
}

function operatorOnly(ctx: Ctx, what: string): void {
  if (!isOperator(ctx))
    throw new ApiError("admin_required", `Only the server operator's administrators can ${what}.`, {
      required_role: "operator",
    });
}

/** Another account's id is not found for a non-operator. */
function ownAccount(ctx: Ctx, accountId: number): void {
  if (!isOperator(ctx) && accountId !== ctx.principal.accountId)
    throw new ApiError("account_not_found", `No account ${accountId}.`, { account_id: accountId });
}

export const adminRoutes = [
  route({
    method: "GET",
    path: "/api/v1/admin/accounts",
    operationId: "adminListAccounts",
    summary:
      "List accounts, oldest first: every account for the server operator's admins, else the admin's own (admin)",
    tag: "Admin",
    stability: "beta",
    access: "admin",
    planExempt: true,
    query: ListQuery,
    responses: { 200: { description: "Accounts.", schema: pageOf(Account) }, ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler: (ctx: Ctx<unknown, v.InferOutput<typeof ListQuery>>) => ({
      body: pageList(
        ctx.services.store.accounts.list().filter((a) => isOperator(ctx) || a.id === ctx.principal.accountId),
        ctx.query,
        (a) => idKey(a.id),
      ),
    }),
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/accounts",
    operationId: "adminCreateAccount",
    summary: "Create an account with its default workspace (admin)",
    tag: "Admin",
    stability: "beta",
    access: "admin",
    planExempt: true,
    body: v.object({ name: RecordName, plan: v.optional(v.picklist(PLANS), "business") }),
    responses: { 201: { description: "The account.", schema: Account }, ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler(ctx: Ctx<Record<string, string>, unknown, { name: string; plan: (typeof PLANS)[number] }>) {
      operatorOnly(ctx, "create accounts");
      const { account } = createAccount(
        ctx.services.store,
        actorOf(ctx),
        ctx.body.name,
        ctx.body.plan,
        ctx.services.clock.now(),
      );
      return { status: 201, body: account };
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/admin/accounts/{id}",
    operationId: "adminUpdateAccount",
    summary: "Change an account's plan or rate-limit override (null returns to the plan's) (admin)",
    tag: "Admin",
    stability: "beta",
    access: "admin",
    planExempt: true,
    params: AccountParams,
    body: UpdateAccount,
    responses: {
      200: { description: "The account.", schema: Account },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Account"),
    },
    handler(ctx: Ctx<{ id: number }, unknown, v.InferOutput<typeof UpdateAccount>>) {
      ownAccount(ctx, ctx.params.id);
      operatorOnly(ctx, "change plans and rate limits");
      const store = ctx.services.store;
      const account = store.accounts.byId(ctx.params.id);
      if (!account)
        throw new ApiError("account_not_found", `No account ${ctx.params.id}.`, { account_id: ctx.params.id });
      if (ctx.body.id !== undefined && ctx.body.id !== account.id)
        throw invalidInput("body.id", `This is account ${account.id}; an account's id does not change.`);
      if (ctx.body.name !== undefined && ctx.body.name !== account.name)
        throw invalidInput(
          "body.name",
          `An account is not renamed here; this one is named ${JSON.stringify(account.name)}.`,
        );
      // Only what changes is set, and audited: a record read and written back changes nothing and logs nothing.
      if (ctx.body.plan && ctx.body.plan !== account.plan) setPlan(store, actorOf(ctx), account.id, ctx.body.plan);
      const perMinute = ctx.body.rate_per_minute === undefined ? account.rate_per_minute : ctx.body.rate_per_minute;
      const perHour = ctx.body.rate_per_hour === undefined ? account.rate_per_hour : ctx.body.rate_per_hour;
      if (perMinute !== account.rate_per_minute || perHour !== account.rate_per_hour)
        setLimits(store, actorOf(ctx), account.id, perMinute, perHour);
      return { body: store.accounts.byId(account.id) };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/users",
    operationId: "adminListUsers",
    summary:
      "List users, oldest first: every user for the server operator's admins, else the admin's own account's (admin)",
    tag: "Admin",
    stability: "beta",
    access: "admin",
    planExempt: true,
    query: ListQuery,
    responses: { 200: { description: "Users.", schema: pageOf(User) }, ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler: (ctx: Ctx<unknown, v.InferOutput<typeof ListQuery>>) => ({
      body: pageList(
        ctx.services.store.users.list(isOperator(ctx) ? undefined : ctx.principal.accountId).map(userView),
        ctx.query,
        (u) => idKey(u.id),
      ),
    }),
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/users",
    operationId: "adminCreateUser",
    summary: "Create a user; a generated password is returned once when none is given (admin)",
    tag: "Admin",
    stability: "beta",
    access: "admin",
    planExempt: true,
    body: CreateUser,
    shownOnce: ["password"],
    responses: {
      201: {
        description: "The user.",
        schema: v.object({
          ...User.entries,
          password: v.pipe(
            v.optional(v.nullable(v.string())),
            v.description(
              "The generated password, when none was given, shown in this response only; null in a replay of it " +
                "under Idempotency-Key (the password is not kept).",
            ),
          ),
        }),
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Account"),
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof CreateUser>>) {
      ownAccount(ctx, ctx.body.account_id);
      // Checked here too so that the 400 lists its issue like every validation_failed (DESIGN §4).
      if (ctx.services.store.users.byEmail(ctx.body.email))
        throw new ApiError("validation_failed", `A user with email ${ctx.body.email} exists.`, {
          issues: [{ path: "body.email", message: "A user with this email exists." }],
        });
      const generated = ctx.body.password === undefined ? generatePassword() : undefined;
      const hash = await ctx.services.passwords.run("hashPassword", { password: ctx.body.password ?? generated! });
      const user = createUser(
        ctx.services.store,
        actorOf(ctx),
        ctx.body.account_id,
        ctx.body.email,
        hash,
        ctx.body.role,
        ctx.services.clock.now(),
      );
      return { status: 201, body: { ...userView(user), ...(generated ? { password: generated } : {}) } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/audit-log",
    operationId: "adminAuditLog",
    summary: "Key, workspace, user and plan changes, newest first (admin)",
    tag: "Admin",
    stability: "beta",
    access: "admin",
    planExempt: true,
    query: AuditQuery,
    responses: {
      200: {
        description: "A page of audit entries.",
        schema: v.object({
          data: v.array(
            v.object({
              id: Integer,
              account_id: v.nullable(Integer),
              actor: v.string(),
              action: v.string(),
              target: v.nullable(v.string()),
              details: v.unknown(),
              created_at: Timestamp,
            }),
          ),
          has_more: v.boolean(),
          next_cursor: v.nullable(v.string()),
        }),
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Account"),
    },
    handler(ctx: Ctx<Record<string, string>, v.InferOutput<typeof AuditQuery>>) {
      const before = decodeCursor<number>(ctx.query.cursor, "number") ?? Number.MAX_SAFE_INTEGER;
      const accountId = ctx.query.account_id ?? ctx.principal.accountId;
      ownAccount(ctx, accountId);
      const rows = ctx.services.store.misc.auditPage(accountId, before, ctx.query.limit + 1);
      const p = page(rows, ctx.query.limit, (r) => encodeCursor(r.id));
      return { body: { ...p, data: p.data.map((r) => ({ ...r, details: r.details ? JSON.parse(r.details) : null })) } };
    },
  }),
];
