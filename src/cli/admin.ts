/** `accounts`, `users`, `workspaces` and `keys`: the administrator's commands. */
import { Argument, type Command, Option } from "commander";
import type { AccountRow } from "../db/accounts.js";
import type { ApiKeyRow } from "../db/apikeys.js";
import type { Store } from "../db/store.js";
import type { Role } from "../db/users.js";
import type { WorkspaceHoldings, WorkspaceRow } from "../db/workspaces.js";
import {
  checkNewUser,
  createAccount,
  createUser,
  createWorkspace,
  deleteWorkspace,
  issueKey,
  revokeKey,
  rotateKey,
  setLimits,
  setPlan,
  updateWorkspace,
} from "../domain/admin.js";
import {
  displayPrefix,
  EXPIRY_CHOICES,
  type ExpiryChoice,
  hashKey,
  KEY_ID_PATTERN,
  KEY_PREFIX,
  keyRefusal,
} from "../domain/apikeys.js";
import { generatePassword, hashPassword } from "../domain/passwords.js";
import { effectiveRateLimits, PLAN_LIMITS, PLANS, type Plan } from "../domain/plans.js";
import { apiKeyView } from "../domain/views/apikeys.js";
import { userView } from "../domain/views/users.js";
import { workspaceView } from "../domain/views/workspaces.js";
import { ApiError } from "../http/errors.js";
import {
  CliError,
  checkEmail,
  checkPassword,
  dataDirOf,
  idArg,
  limitArg,
  nameArg,
  positiveInt,
  printable,
  printingSecret,
  printJson,
  printTable,
  readStdinIfPiped,
  refuseSecretToNull,
  shellWord,
  UsageError,
  wantsJson,
  withReadStore,
  withStore,
} from "./common.js";

const ACTOR = "cli";

function issuedKeyJson(row: ReturnType<typeof apiKeyView>, secret: string) {
  return {
    id: row.id,
    key: secret,
    name: row.name,
    scopes: row.scopes,
    workspace_id: row.workspace_id,
    expires_at: row.expires_at,
  };
}

function printIssued(cmd: Command, row: ReturnType<typeof apiKeyView>, secret: string): void {
  printingSecret();
  if (wantsJson(cmd)) {
    printJson(issuedKeyJson(row, secret));
    return;
  }
  process.stdout.write(
    `key ${row.id} "${printable(row.name)}" scopes=${row.scopes.join(",")} workspace=${row.workspace_id ?? "all"} expires=${row.expires_at ?? "never"}\n` +
      `secret (shown once, store it now): ${secret}\n`,
  );
}

function parseScopes(value: string): string[] {
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // An empty list is a mistake (an unset shell variable), not a request for the default read,write.
  if (list.length === 0) throw new UsageError("--scopes names no scope (allowed: read, read,write)");
  for (const s of list) {
    if (s === "admin") throw new UsageError("the admin scope is reserved and not issued in v1");
    if (s !== "read" && s !== "write") throw new UsageError(`unknown scope "${s}" (allowed: read, read,write)`);
  }
  return list;
}

/**
 * A record the data directory does not hold, in one wording for every kind: "no account 9 in this data directory:
 * `content-service accounts list --data-dir DIR` lists the accounts", the list command copied as it would run (exit 1).
 * The domain's own line ("No account 9.", the API's) named neither where nor how to find a valid one.
 */
function notFound(cmd: Command, what: string, list: string, listed: string): CliError {
  const dir = dataDirOf(cmd);
  return new CliError(`no ${what}: \`content-service ${list} --data-dir ${shellWord(dir)}\` lists ${listed}`);
}

/** An account by id, or the CLI's not-found line. */
function accountOf(cmd: Command, store: Store, id: number): AccountRow {
  const account = store.accounts.byId(id);
  if (!account) throw notFound(cmd, `account ${id} in this data directory`, "accounts list", "the accounts");
  return account;
}

/** A workspace by id (of the given account, when one is), or the CLI's not-found line. */
function workspaceOf(cmd: Command, store: Store, id: string, accountId?: number): WorkspaceRow {
  const ws = store.workspaces.byId(id);
  if (ws && (accountId === undefined || ws.account_id === accountId)) return ws;
  if (accountId === undefined)
    throw notFound(cmd, `workspace ${id} in this data directory`, "workspaces list", "the workspaces");
  throw notFound(
    cmd,
    `workspace ${id} in account ${accountId}`,
    `workspaces list --account ${accountId}`,
    `account ${accountId}'s workspaces`,
  );
}

/** A list filtered by --account names an account that exists: an empty list would say "none" of a typo. */
function requireListedAccount(cmd: Command, store: Store, accountId: number | undefined): void {
  if (accountId !== undefined) accountOf(cmd, store, accountId);
}

const KEY_ARGUMENT =
  "key id (key_…), or the key itself (svc_live_…: a leaked key is found by its hash, and never printed back); " +
  "- reads it from standard input, so that a secret stays out of the shell's history";

/** The key argument: as given, or read from standard input for `-`. */
async function keyArgument(given: string): Promise<string> {
  if (given !== "-") return given;
  if (process.stdin.isTTY) throw new UsageError("- reads the key from standard input: pipe it in (e.g. < key.txt)");
  const read = await readStdinIfPiped("the key");
  if (read === undefined) throw new UsageError("standard input held no key");
  return read;
}

/**
 * A key named by its id, or by its secret (what an administrator holding a leaked key has): the secret is looked up
 * by its hash, as the server does, and never repeated in an error. A secret comes as pasted: with spaces around it,
 * an `Authorization: Bearer` before it, in another case. Only an argument shaped like an id is ever printed back.
 */
function keyByIdOrSecret(cmd: Command, store: Store, arg: string): ApiKeyRow {
  if (KEY_ID_PATTERN.test(arg)) {
    const row = store.apiKeys.byId(arg);
    if (!row) throw notFound(cmd, `API key ${arg} in this data directory`, "keys list", "the keys");
    return row;
  }
  const secret = new RegExp(`${KEY_PREFIX}\\S*`, "i").exec(arg)?.[0];
  const row = secret === undefined ? undefined : store.apiKeys.byHash(hashKey(secret));
  if (row) return row;
  if (secret === undefined)
    throw notFound(
      cmd,
      "API key has that id (ids look like key_…; the key itself, svc_live_…, is also taken)",
      "keys list",
      "the keys",
    );
  throw notFound(
    cmd,
    `API key in this data directory matches the key given (${displayPrefix(secret)}…)`,
    "keys list",
    "each key's prefix",
  );
}

/** Adds the administrator's command groups to the program. */
export function registerAdminCommands(program: Command): void {
  const accounts = program.command("accounts").description("Accounts, their plan and rate limits");
  accounts
    .command("create")
    .description("Create an account with its default workspace")
    .requiredOption("--name <name>", "account name (1 to 100 characters)", nameArg("--name"))
    .addOption(
      new Option("--plan <plan>", "the account's plan: its rate limits, and API access (business, agency)")
        .choices(PLANS)
        .makeOptionMandatory(),
    )
    .option("--json", "print the account as JSON")
    .action((opts: { name: string; plan: Plan }, cmd: Command) =>
      withStore(cmd, (store) => {
        const { account, workspace } = createAccount(store, ACTOR, opts.name, opts.plan);
        if (wantsJson(cmd)) return printJson({ ...account, default_workspace_id: workspace.id });
        process.stdout.write(
          `account ${account.id} "${printable(account.name)}" plan=${account.plan} workspace=${workspace.id}\n`,
        );
      }),
    );
  accounts
    .command("list")
    .description("List accounts with their plan and rate limits")
    .option("--json", "print as JSON")
    .action((_opts, cmd: Command) =>
      withReadStore(cmd, (store) => {
        const rows = store.accounts.list();
        if (wantsJson(cmd)) return printJson(rows);
        printTable(rows as unknown as Record<string, unknown>[], [
          "id",
          "name",
          "plan",
          "rate_per_minute",
          "rate_per_hour",
          "created_at",
        ]);
      }),
    );
  accounts
    .command("set-plan")
    .description("Change an account's plan")
    .argument("<id>", "account id", positiveInt("account id"))
    .addArgument(new Argument("<plan>", "the new plan").choices(PLANS))
    .option("--json", "print the account as JSON")
    .action((id: number, plan: Plan, _opts, cmd: Command) =>
      withStore(cmd, (store) => {
        accountOf(cmd, store, id);
        const account = setPlan(store, ACTOR, id, plan);
        // The account's keys stop working with a plan without API access: said, as when one is issued.
        const now = Date.now();
        const live = store.apiKeys.list(account.id).filter((k) => keyRefusal(k, now) === undefined).length;
        if (live > 0) noteRefusedKeys(account, live === 1 ? "its 1 key is" : `its ${live} keys are`);
        if (wantsJson(cmd)) return printJson(account);
        process.stdout.write(`account ${account.id} plan=${account.plan}\n`);
      }),
    );
  accounts
    .command("set-limits")
    .description("Override an account's per-minute and per-hour rate limits (--reset returns to the plan's)")
    .argument("<id>", "account id", positiveInt("account id"))
    .option("--per-minute <n>", "requests per minute per key (1 to 1000000000)", limitArg("--per-minute"))
    .option("--per-hour <n>", "requests per hour per key (1 to 1000000000)", limitArg("--per-hour"))
    .option("--reset", "use the plan's limits again")
    .option("--json", "print the account as JSON")
    .action((id: number, opts: { perMinute?: number; perHour?: number; reset?: boolean }, cmd: Command) => {
      if (!opts.reset && opts.perMinute === undefined && opts.perHour === undefined)
        throw new UsageError("give --per-minute and/or --per-hour, or --reset");
      if (opts.reset && (opts.perMinute !== undefined || opts.perHour !== undefined))
        throw new UsageError("--reset cannot be combined with --per-minute or --per-hour");
      return withStore(cmd, (store) => {
        const current = accountOf(cmd, store, id);
        const account = opts.reset
          ? setLimits(store, ACTOR, id, null, null)
          : setLimits(
              store,
              ACTOR,
              id,
              opts.perMinute ?? current.rate_per_minute,
              opts.perHour ?? current.rate_per_hour,
            );
        // Allowed (each window is enforced on its own), but the smaller one is the one that binds.
        const limits = effectiveRateLimits(account);
        // A plan without API access has no key that works: its limits hold its users' web sessions.
        const who = PLAN_LIMITS[account.plan].apiAccess ? "key" : "web session";
        if (limits.perMinute > limits.perHour)
          process.stderr.write(
            `note: ${limits.perMinute}/min is more than ${limits.perHour}/hour: no ${who} can use more than ` +
              `${limits.perHour} requests in an hour\n`,
          );
        if (wantsJson(cmd)) return printJson(account);
        process.stdout.write(
          `account ${account.id} limits: ${account.rate_per_minute ?? "plan"}/min, ${account.rate_per_hour ?? "plan"}/hour\n`,
        );
      });
    });

  const users = program.command("users").description("Users who sign in with an email and a password (web sessions)");
  users
    .command("create")
    .description("Create a user (password from stdin, 8 to 1024 characters, else generated and printed once)")
    .requiredOption("--account <id>", "account id", positiveInt("--account"))
    .requiredOption("--email <email>", "email (the login)")
    .addOption(
      new Option("--role <role>", "the user's role in the account").choices(["admin", "member"]).default("member"),
    )
    .option("--json", "print the user as JSON")
    .action(async (opts: { account: number; email: string; role: Role }, cmd: Command) => {
      const email = checkEmail(opts.email);
      // The account and the email first: a missing account or a taken email had been said only after standard input
      // was read (`sleep 4 | users create --account 99 …` waited for a password it would not use).
      await withStore(cmd, (store) => {
        accountOf(cmd, store, opts.account);
        checkNewUser(store, opts.account, email);
      });
      const given = checkPassword(await readStdinIfPiped("the password"));
      if (given === undefined) refuseSecretToNull("the generated password");
      const generated = given === undefined ? generatePassword() : undefined;
      const hash = hashPassword(given ?? generated!);
      return withStore(cmd, (store) => {
        const user = createUser(store, ACTOR, opts.account, email, hash, opts.role);
        if (generated) printingSecret();
        if (wantsJson(cmd)) return printJson({ ...userView(user), generated_password: generated ?? null });
        process.stdout.write(`user ${user.id} ${printable(user.email)} role=${user.role} account=${user.account_id}\n`);
        if (generated) process.stdout.write(`password (shown once): ${generated}\n`);
      });
    });
  users
    .command("list")
    .description("List users (never their passwords)")
    .option("--account <id>", "only this account", positiveInt("--account"))
    .option("--json", "print as JSON")
    .action((opts: { account?: number }, cmd: Command) =>
      withReadStore(cmd, (store) => {
        requireListedAccount(cmd, store, opts.account);
        const rows = store.users.list(opts.account).map(userView);
        if (wantsJson(cmd)) return printJson(rows);
        printTable(rows, ["id", "account_id", "email", "role", "created_at"]);
      }),
    );

  const workspaces = program
    .command("workspaces")
    .description("Workspaces: separate sets of an account's contents, memories and references");
  workspaces
    .command("create")
    .description("Create a workspace")
    .requiredOption("--account <id>", "account id", positiveInt("--account"))
    .requiredOption("--name <name>", "workspace name (1 to 100 characters)", nameArg("--name"))
    .option("--default", "make it the account's default workspace")
    .option("--json", "print the workspace as JSON")
    .action((opts: { account: number; name: string; default?: boolean }, cmd: Command) =>
      withStore(cmd, (store) => {
        accountOf(cmd, store, opts.account);
        const ws = createWorkspace(store, ACTOR, opts.account, opts.name, opts.default ?? false);
        if (wantsJson(cmd)) return printJson({ ...workspaceView(ws), account_id: ws.account_id });
        process.stdout.write(
          `workspace ${ws.id} "${printable(ws.name)}" account=${ws.account_id}${ws.is_default ? " (default)" : ""}\n`,
        );
      }),
    );
  workspaces
    .command("list")
    .description("List workspaces with their account")
    .option("--account <id>", "only this account", positiveInt("--account"))
    .option("--json", "print as JSON")
    .action((opts: { account?: number }, cmd: Command) =>
      withReadStore(cmd, (store) => {
        requireListedAccount(cmd, store, opts.account);
        const rows = (
          opts.account === undefined ? store.workspaces.listAll() : store.workspaces.listByAccount(opts.account)
        ).map((w) => ({ ...workspaceView(w), account_id: w.account_id }));
        if (wantsJson(cmd)) return printJson(rows);
        printTable(rows, ["id", "account_id", "name", "is_default", "created_at"]);
      }),
    );
  workspaces
    .command("set-default")
    .description("Make a workspace its account's default (the one unbound keys use without workspace_id)")
    .argument("<id>", "workspace id", idArg("the workspace id"))
    .option("--json", "print the workspace as JSON")
    .action((id: string, _opts, cmd: Command) =>
      withStore(cmd, (store) => {
        const ws = workspaceOf(cmd, store, id);
        const updated = updateWorkspace(store, ACTOR, ws, { is_default: true });
        if (wantsJson(cmd)) return printJson({ ...workspaceView(updated), account_id: updated.account_id });
        process.stdout.write(
          `workspace ${updated.id} "${printable(updated.name)}" is the default of account ${updated.account_id}\n`,
        );
      }),
    );
  workspaces
    .command("delete")
    .description("Delete a workspace with its records and the keys bound to it")
    .argument("<id>", "workspace id", idArg("the workspace id"))
    .option("--json", "print the result as JSON")
    .action((id: string, _opts, cmd: Command) =>
      withStore(cmd, (store) => {
        const ws = workspaceOf(cmd, store, id);
        let removed: WorkspaceHoldings;
        try {
          removed = deleteWorkspace(store, ACTOR, ws);
        } catch (e) {
          // The domain's refusal, with the command that lifts it.
          if (e instanceof ApiError && e.code === "workspace_not_empty")
            throw new CliError(
              `workspace ${id} is the default of account ${ws.account_id}, which has others: make another the default first (workspaces set-default ID)`,
            );
          throw e;
        }
        if (wantsJson(cmd)) return printJson({ id, deleted: true, removed });
        process.stdout.write(
          `deleted workspace ${id} with ${removed.contents} content(s), ${removed.memories} memory(ies), ` +
            `${removed.reference_materials} reference material(s), ${removed.conversions} conversion(s) and ` +
            `${removed.api_keys} API key(s) bound to it\n`,
        );
      }),
    );

  const keys = program.command("keys").description("API keys: issue, list, revoke and rotate them");
  keys
    .command("create")
    .description("Issue an API key; the secret is printed once")
    .requiredOption("--account <id>", "account id", positiveInt("--account"))
    .requiredOption("--name <name>", "key name (1 to 100 characters)", nameArg("--name"))
    .option("--scopes <list>", "read, or read,write: write includes read (default: read,write)", parseScopes)
    .option(
      "--workspace <id>",
      "bind the key to this workspace (default: unbound, or the only workspace)",
      idArg("--workspace"),
    )
    .addOption(new Option("--expires <when>", "how long the key stays valid").choices(EXPIRY_CHOICES).default("90d"))
    .option("--json", 'print the key, its secret included, as {"id","key","name","scopes","workspace_id","expires_at"}')
    .action(
      (
        opts: { account: number; name: string; scopes?: string[]; workspace?: string; expires: ExpiryChoice },
        cmd: Command,
      ) =>
        withStore(cmd, (store) => {
          accountOf(cmd, store, opts.account);
          if (opts.workspace !== undefined) workspaceOf(cmd, store, opts.workspace, opts.account);
          refuseSecretToNull("the key's secret");
          const { row, secret } = issueKey(store, ACTOR, {
            accountId: opts.account,
            name: opts.name,
            scopes: opts.scopes,
            workspaceId: opts.workspace,
            expires: opts.expires,
          });
          // Issued all the same (the plan may change later), but the administrator is told it cannot work yet.
          noteRefusedKeys(store.accounts.byId(opts.account)!, "this key is");
          printIssued(cmd, apiKeyView(row), secret);
        }),
    );
  keys
    .command("list")
    .description("List keys (never their secrets)")
    .option("--account <id>", "only this account", positiveInt("--account"))
    .option("--json", "print as JSON")
    .action((opts: { account?: number }, cmd: Command) =>
      withReadStore(cmd, (store) => {
        requireListedAccount(cmd, store, opts.account);
        const rows = store.apiKeys.list(opts.account).map((k) => apiKeyView(k));
        if (wantsJson(cmd)) return printJson(rows);
        printTable(rows, [
          "id",
          "account_id",
          "name",
          "prefix",
          "scopes",
          "workspace_id",
          "expires_at",
          "last_used_at",
          "revoked_at",
        ]);
      }),
    );
  keys
    .command("revoke")
    .description("Revoke a key (a running server refuses it within 250 ms)")
    .argument("<key>", KEY_ARGUMENT, idArg("the key"))
    .option("--json", "print the key as JSON")
    .action(async (given: string, _opts, cmd: Command) => {
      const id = await keyArgument(given);
      return withStore(cmd, (store) => {
        const row = revokeKey(store, ACTOR, keyByIdOrSecret(cmd, store, id));
        if (wantsJson(cmd)) return printJson(apiKeyView(row));
        process.stdout.write(`revoked ${row.id} at ${row.revoked_at}\n`);
      });
    });
  keys
    .command("rotate")
    .description("Issue a replacement with the same name, scopes and binding; the old key stays valid until revoked")
    .argument("<key>", KEY_ARGUMENT, idArg("the key"))
    .option("--json", "print the new key as JSON")
    .action(async (given: string, _opts, cmd: Command) => {
      const id = await keyArgument(given);
      return withStore(cmd, (store) => {
        const old = keyByIdOrSecret(cmd, store, id);
        // A revoked key was taken out of use on purpose: rotating it would put a live copy back.
        if (old.revoked_at !== null) throw new CliError(`key ${old.id} is revoked: issue a new one with keys create`);
        refuseSecretToNull("the new key's secret");
        const { row, secret } = rotateKey(store, ACTOR, old);
        noteRefusedKeys(store.accounts.byId(row.account_id)!, "the new key is");
        printIssued(cmd, apiKeyView(row), secret);
      });
    });
}

/** Notes on stderr that an account's keys are refused while its plan has no API access (DESIGN §5). */
function noteRefusedKeys(account: { id: number; plan: Plan }, which: string): void {
  if (PLAN_LIMITS[account.plan].apiAccess) return;
  process.stderr.write(
    `note: account ${account.id} is on the ${account.plan} plan, which has no API access: ${which} ` +
      "refused (403 plan_upgrade_required) until `accounts set-plan` gives it business or agency\n",
  );
}
