/** /admin/*: accounts, users and the audit log, for web sessions of admin users (spec §4.11). */
import * as v from "valibot";
import { PLANS } from "../db/accounts.js";
import { createAccount, createUser, operatorAccountId, setLimits, setPlan, setQuotas } from "../domain/admin.js";
import { ApiError, invalidInput } from "../domain/errors.js";
import { generatePassword } from "../domain/passwords.js";
import { auditEntryView } from "../domain/views/audit.js";
import { userView } from "../domain/views/users.js";
import { Email, KeyCap, MAX_NAME_LENGTH, Password, RateLimit, RecordName, StorageQuota } from "../http/admin-rules.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  Integer,
  ignoredTimestamp,
  intString,
  maxChars,
  named,
  PageQuery,
  pageOf,
  Timestamp,
} from "../http/schemas.js";
import { User } from "./account.js";
import { actorOf } from "./apikeys.js";
import { AUTH_ERRORS, decodeCursor, encodeCursor, INPUT_ERRORS, NOT_FOUND, page, pageList } from "./common.js";

const PLAN =
  "business and agency have API access (100 and 1,000, or 300 and 5,000 requests per key per minute and hour); " +
  "starter and pro reach the API by web session only.";
const OVERRIDE = (window: string) =>
  `Requests per key per ${window} set for this account instead of the plan's; null: the plan's. Web sessions ` +
  "are never limited below the plan's, so a lower limit cannot lock an administrator's own session out.";

const KEY_CAP =
  "API keys this account may have active at once, set instead of the plan's (business 50, agency 200); null: the plan's.";
const STORAGE =
  "Bytes this account's records may hold, set instead of the plan's (business 10 GiB, agency 50 GiB); null: the plan's.";

const Account = named(
  "Account",
  v.pipe(
    v.object({
      id: v.pipe(Integer, v.description("The account's id.")),
      name: v.pipe(v.string(), v.description("The account's name.")),
      plan: v.pipe(v.picklist(PLANS), v.description(`The account's plan: ${PLAN}`)),
      rate_per_minute: v.pipe(v.nullable(Integer), v.description(OVERRIDE("minute"))),
      rate_per_hour: v.pipe(v.nullable(Integer), v.description(OVERRIDE("hour"))),
      max_active_keys: v.pipe(v.nullable(Integer), v.description(KEY_CAP)),
      storage_bytes: v.pipe(v.nullable(Integer), v.description(STORAGE)),
      created_at: v.pipe(Timestamp, v.description("When the account was created.")),
    }),
    v.description("An account: its plan and any rate-limit override, as administrators see it."),
  ),
);
const ACCOUNT_EXAMPLE = {
  id: 2,
  name: "Acme Publishing",
  plan: "business",
  rate_per_minute: null,
  rate_per_hour: null,
  max_active_keys: null,
  storage_bytes: null,
  created_at: "2026-12-01T09:30:00.000Z",
};
const USER_EXAMPLE = {
  id: 2,
  account_id: 1,
  email: "editor@example.com",
  role: "member",
  created_at: "2026-12-01T09:40:00.000Z",
};
const Limit = (window: string) =>
  v.pipe(
    v.nullable(RateLimit),
    v.description(`${OVERRIDE(window)} A whole number from 1 to 1,000,000,000; null returns to the plan's.`),
  );
const AccountParams = v.object({ id: intString(1, Number.MAX_SAFE_INTEGER, "The account's id.") });
const UpdateAccount = v.strictObject({
  plan: v.optional(v.pipe(v.picklist(PLANS), v.description(`The new plan: ${PLAN}`))),
  rate_per_minute: v.optional(Limit("minute")),
  rate_per_hour: v.optional(Limit("hour")),
  max_active_keys: v.optional(
    v.pipe(
      v.nullable(KeyCap),
      v.description(`${KEY_CAP} A whole number from 1 to 100,000; null returns to the plan's.`),
    ),
  ),
  storage_bytes: v.optional(
    v.pipe(
      v.nullable(StorageQuota),
      v.description(`${STORAGE} A whole number of bytes from 1 to 2^50; null returns to the plan's.`),
    ),
  ),
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
const UpdateAccountBody = named(
  "UpdateAccountRequest",
  v.pipe(UpdateAccount, v.description("The plan or rate limits to set; a field left out keeps its value.")),
);
const CreateUser = v.object({
  account_id: v.pipe(v.number(), v.integer(), v.minValue(1), v.description("The account the user joins.")),
  email: Email,
  role: v.optional(
    v.pipe(v.picklist(["admin", "member"]), v.description("admin may also use these /admin operations.")),
    "member",
  ),
  password: v.optional(
    v.pipe(
      Password,
      v.description("8 to 1,024 characters; left out, one is generated and answered once in this response."),
    ),
  ),
});
const CreateUserBody = named(
  "CreateUserRequest",
  v.pipe(CreateUser, v.description("The new user's account, email (the login), role and password.")),
);
const ListQuery = v.object(PageQuery);
/** A sort key for integer ids that orders as numbers do. */
const idKey = (id: number) => String(id).padStart(16, "0");
const AuditQuery = v.object({
  ...PageQuery,
  account_id: v.optional(
    intString(1, Number.MAX_SAFE_INTEGER, "The account whose entries to list. Default: the caller's own account."),
  ),
});

const AuditLogEntry = named(
  "AuditLogEntry",
  v.pipe(
    v.object({
      id: v.pipe(Integer, v.description("The entry's id; later entries have higher ids.")),
      account_id: v.pipe(v.nullable(Integer), v.description("The account the change was made in.")),
      actor: v.pipe(
        v.string(),
        v.description("Who made the change: user:<id> (a web session), key:<id> or cli:<command> (the command line)."),
      ),
      action: v.pipe(
        v.string(),
        v.description(
          "What changed: account.create, account.set_plan, account.set_limits, user.create, workspace.create, " +
            "workspace.update, workspace.delete, api_key.create, api_key.rename, api_key.revoke, " +
            "learning_preferences.update.",
        ),
      ),
      target: v.pipe(v.nullable(v.string()), v.description("The id of the record changed (a key, a workspace, …).")),
      details: v.pipe(v.unknown(), v.description("What was set, as an object; null when there is nothing more.")),
      created_at: v.pipe(Timestamp, v.description("When the change was made.")),
    }),
    v.description("One administrative change: who made it, what it was and to which record."),
  ),
);

const ADMIN =
  "Admin only: a web session of a user whose role is admin (an API key gets 401, a member 403 admin_required). " +
  "The server operator's administrators (of the account the first start made) manage every account; an " +
  "administrator of another account manages only that one.";

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

/**
 * 400 for an email a user has (emails are unique on the server). Checked here too so that the 400 lists its issue like
 * every validation_failed (DESIGN §4). An administrator of another account than the operator's gets the same words
 * whichever account holds it, and no more (issue 31 L2: cross-account facts are the operator's); the existence of the
 * email itself cannot be hidden from someone who must choose another (docs/roles.md). Held by
 * test/routes/admin.test.ts "a taken email".
 */
function refuseTakenEmail(ctx: Ctx, email: string): void {
  const holder = ctx.services.store.users.byEmail(email);
  if (!holder) return;
  const whose = isOperator(ctx) ? { user_id: holder.id, account_id: holder.account_id } : {};
  throw new ApiError("validation_failed", `The email ${email} is taken: choose another.`, {
    issues: [{ path: "body.email", message: "This email is taken: choose another." }],
    ...whose,
  });
}

/** Another account's id is not found for a non-operator. */
function ownAccount(ctx: Ctx, accountId: number): void {
  if (!isOperator(ctx) && accountId !== ctx.principal.accountId)
    throw new ApiError("account_not_found", `No account ${accountId}.`, { account_id: accountId });
}

/** The administration routes: accounts, plans, limits, users and the audit log. */
export const adminRoutes = [
  route({
    method: "GET",
    path: "/api/v1/admin/accounts",
    operationId: "adminListAccounts",
    summary:
      "List accounts, oldest first: every account for the server operator's admins, else the admin's own (admin)",
    description:
      "Lists accounts with their plan and rate-limit override, oldest first, a page at a time (pass next_cursor as " +
      "cursor for the next page). It changes nothing. " +
      ADMIN,
    tag: "Admin",
    stability: "internal",
    access: "admin",
    planExempt: true,
    query: ListQuery,
    responses: {
      200: {
        description: "Accounts.",
        schema: pageOf(Account),
        example: { data: [ACCOUNT_EXAMPLE], has_more: false, next_cursor: null },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
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
    description:
      "Creates an account, for a team or a customer, with an empty default workspace and no users: add them with " +
      "POST /api/v1/admin/users. Its plan defaults to business. Only the server operator's administrators create " +
      "accounts (others get 403 admin_required). The creation is written to the audit log. " +
      ADMIN,
    tag: "Admin",
    stability: "internal",
    access: "admin",
    planExempt: true,
    body: named(
      "CreateAccountRequest",
      v.pipe(
        v.object({
          name: v.pipe(RecordName, v.description("The account's name (1 to 100 characters, trimmed).")),
          plan: v.optional(v.pipe(v.picklist(PLANS), v.description(`The plan, default business: ${PLAN}`)), "business"),
        }),
        v.description("The new account's name and plan."),
      ),
    ),
    bodyExamples: {
      business: { name: "Acme Publishing" },
      agency: { name: "Northwind Agency", plan: "agency" },
    },
    responses: {
      201: { description: "The account.", schema: Account, example: ACCOUNT_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
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
    summary: "Change an account's plan, rate limits or quotas (null returns to the plan's) (admin)",
    description:
      "Sets an account's plan, or its own requests per minute or per hour, active-key cap or storage quota in place " +
      "of the plan's (null returns to the plan's). Plans are set here by the operator, not bought: billing operations answer 409. A field left out " +
      "keeps its value; an account read from the list may be sent back with its changes (its id, name and " +
      "created_at are accepted only as they are). Each change is written to the audit log. Only the server " +
      "operator's administrators change plans and limits (others get 403 admin_required). " +
      ADMIN,
    tag: "Admin",
    stability: "internal",
    access: "admin",
    planExempt: true,
    params: AccountParams,
    body: UpdateAccountBody,
    bodyExamples: {
      upgrade: { plan: "agency" },
      override: { rate_per_minute: 200, rate_per_hour: 2000 },
      quotas: { max_active_keys: 100, storage_bytes: 21474836480 },
      planLimits: { rate_per_minute: null, rate_per_hour: null },
    },
    responses: {
      200: { description: "The account.", schema: Account, example: { ...ACCOUNT_EXAMPLE, id: 1, plan: "agency" } },
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
      const maxKeys = ctx.body.max_active_keys === undefined ? account.max_active_keys : ctx.body.max_active_keys;
      const storage = ctx.body.storage_bytes === undefined ? account.storage_bytes : ctx.body.storage_bytes;
      if (maxKeys !== account.max_active_keys || storage !== account.storage_bytes)
        setQuotas(store, actorOf(ctx), account.id, maxKeys, storage);
      return { body: store.accounts.byId(account.id) };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/users",
    operationId: "adminListUsers",
    summary:
      "List users, oldest first: every user for the server operator's admins, else the admin's own account's (admin)",
    description:
      "Lists the users who sign in with web sessions, oldest first, a page at a time (pass next_cursor as cursor " +
      "for the next page). Passwords are never shown. It changes nothing. " +
      ADMIN,
    tag: "Admin",
    stability: "internal",
    access: "admin",
    planExempt: true,
    query: ListQuery,
    responses: {
      200: {
        description: "Users.",
        schema: pageOf(User),
        example: { data: [USER_EXAMPLE], has_more: false, next_cursor: null },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
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
    description:
      "Creates a user who signs in with POST /api/v1/auth/login. Without a password, one is generated and answered " +
      "in this response only: hand it to the user then. An email already taken is 400, worded alike whether its user is " +
      "in this account or another (emails are unique on the server; only the operator's administrators are told " +
      "whose it is, user_id and account_id); an account " +
      "that does not exist (or, for an administrator of another account, is not theirs) is 404. The creation is " +
      "written to the audit log. " +
      ADMIN,
    tag: "Admin",
    stability: "internal",
    access: "admin",
    planExempt: true,
    body: CreateUserBody,
    bodyExamples: {
      generatedPassword: { account_id: 1, email: "editor@example.com" },
      admin: { account_id: 1, email: "ops@example.com", role: "admin", password: "correct horse battery staple" },
    },
    shownOnce: ["password"],
    responses: {
      201: {
        description: "The user.",
        schema: named(
          "UserCreated",
          v.pipe(
            v.object({
              ...User.entries,
              password: v.pipe(
                v.optional(v.nullable(v.string())),
                v.description(
                  "The generated password, when none was given, shown in this response only; null in a replay of it " +
                    "under Idempotency-Key (the password is not kept).",
                ),
              ),
            }),
            v.description("A user just created, with its generated password when none was given."),
          ),
        ),
        example: { ...USER_EXAMPLE, password: "Xq7pL2vN9sKd4RtY8wBz3mHc" },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Account"),
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, v.InferOutput<typeof CreateUser>>) {
      ownAccount(ctx, ctx.body.account_id);
      refuseTakenEmail(ctx, ctx.body.email);
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
    description:
      "Lists the administrative changes made in an account (its own by default, or account_id's), newest first, a " +
      "page at a time (pass next_cursor as cursor for older entries): keys issued, renamed and revoked, workspaces " +
      "created, changed and deleted, users created, plans and rate limits set, learning switched on or off. Use it " +
      "to see who changed what and when. It changes nothing. " +
      ADMIN,
    tag: "Admin",
    stability: "internal",
    access: "admin",
    planExempt: true,
    query: AuditQuery,
    responses: {
      200: {
        description: "A page of audit entries.",
        schema: pageOf(AuditLogEntry),
        example: {
          data: [
            {
              id: 3,
              account_id: 1,
              actor: "user:1",
              action: "api_key.create",
              target: "key_H8C9kEL74gkCnvXw",
              details: {
                name: "CI publisher",
                scopes: ["read", "write"],
                workspace_id: "ws_NTwCOH7ZnxOG70kT",
                expires_at: "2027-03-01T09:00:00.000Z",
              },
              created_at: "2026-12-01T09:00:00.000Z",
            },
          ],
          has_more: true,
          next_cursor: "Mg.3dKtqhNpfbS",
        },
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
      return { body: { ...p, data: p.data.map(auditEntryView) } };
    },
  }),
];
