/** `accounts`: create, list and delete accounts, change their plan and rate limits. */
import { Argument, type Command, Option } from "commander";
import { type AccountRow, PLANS, type Plan } from "../../db/accounts.js";
import type { Store } from "../../db/store.js";
import { accountDeletionRefusal, activeKeysOf, deleteAccount } from "../../domain/accounts.js";
import { createAccount, setLimits, setPlan, setQuotas } from "../../domain/admin.js";
import { keyRefusal } from "../../domain/apikeys.js";
import { effectiveQuotas, effectiveRateLimits, PLAN_LIMITS } from "../../domain/plans.js";
import { keyCapArg, limitArg, nameArg, positiveInt, sizeArg } from "../args.js";
import { confirmDeletion } from "../confirm.js";
import { withReadStore, withStore } from "../database.js";
import { CliError, UsageError } from "../errors.js";
import { printable, printJson, printTable, wantsJson } from "../output.js";
import { ACTOR, accountOf, noteRefusedKeys } from "./lookup.js";

/** Adds `accounts` and its subcommands to the program. */
export function registerAccountsCommands(program: Command): void {
  const accounts = program.command("accounts").description("Accounts, their plan and rate limits");
  addAccountsCreate(accounts);
  addAccountsList(accounts);
  addAccountsSetPlan(accounts);
  addAccountsSetLimits(accounts);
  addAccountsDelete(accounts);
}

/** Adds `accounts create`: an account with its default workspace. */
function addAccountsCreate(accounts: Command): void {
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
}

/** Adds `accounts list`. */
function addAccountsList(accounts: Command): void {
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
          "max_active_keys",
          "storage_bytes",
          "created_at",
        ]);
      }),
    );
}

/** Adds `accounts set-plan`, which notes the keys a plan without API access refuses. */
function addAccountsSetPlan(accounts: Command): void {
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
}

interface LimitOptions {
  perMinute?: number;
  perHour?: number;
  maxKeys?: number;
  storage?: number;
  reset?: boolean;
}

/** Adds `accounts set-limits`: the account's own rate limits and quotas, or the plan's again. */
function addAccountsSetLimits(accounts: Command): void {
  accounts
    .command("set-limits")
    .description("Override an account's rate limits, active-key cap or storage quota (--reset returns to the plan's)")
    .argument("<id>", "account id", positiveInt("account id"))
    .option("--per-minute <n>", "requests per minute per key (1 to 1000000000)", limitArg("--per-minute"))
    .option("--per-hour <n>", "requests per hour per key (1 to 1000000000)", limitArg("--per-hour"))
    .option("--max-keys <n>", "API keys active at once (1 to 100000)", keyCapArg("--max-keys"))
    .option("--storage <size>", "bytes its records may hold, e.g. 10GiB (KiB, MiB, GiB, TiB)", sizeArg("--storage"))
    .option("--reset", "use the plan's limits and quotas again")
    .option("--json", "print the account as JSON")
    .action((id: number, opts: LimitOptions, cmd: Command) => {
      const given = [opts.perMinute, opts.perHour, opts.maxKeys, opts.storage].some((o) => o !== undefined);
      if (!opts.reset && !given)
        throw new UsageError("give --per-minute, --per-hour, --max-keys or --storage, or --reset");
      if (opts.reset && given) throw new UsageError("--reset cannot be combined with a limit");
      return withStore(cmd, (store) => {
        const current = accountOf(cmd, store, id);
        const account = opts.reset ? resetLimits(store, id) : applyLimits(store, current, opts);
        noteBindingWindow(account);
        if (wantsJson(cmd)) return printJson(account);
        const quotas = effectiveQuotas(account);
        process.stdout.write(
          `account ${account.id} limits: ${account.rate_per_minute ?? "plan"}/min, ${account.rate_per_hour ?? "plan"}/hour, ` +
            `${quotas.maxActiveKeys} active keys${account.max_active_keys === null ? " (plan)" : ""}, ` +
            `${quotas.storageBytes} bytes${account.storage_bytes === null ? " (plan)" : ""}\n`,
        );
      });
    });
}

/** Returns an account to its plan's rate limits and quotas. */
function resetLimits(store: Store, id: number): AccountRow {
  setLimits(store, ACTOR, id, null, null);
  return setQuotas(store, ACTOR, id, null, null);
}

/** Sets what the options name, keeping the rest; changes (and audits) only what differs. */
function applyLimits(store: Store, current: AccountRow, opts: LimitOptions): AccountRow {
  const perMinute = opts.perMinute ?? current.rate_per_minute;
  const perHour = opts.perHour ?? current.rate_per_hour;
  if (perMinute !== current.rate_per_minute || perHour !== current.rate_per_hour)
    setLimits(store, ACTOR, current.id, perMinute, perHour);
  const maxKeys = opts.maxKeys ?? current.max_active_keys;
  const storage = opts.storage ?? current.storage_bytes;
  if (maxKeys !== current.max_active_keys || storage !== current.storage_bytes)
    setQuotas(store, ACTOR, current.id, maxKeys, storage);
  return store.accounts.byId(current.id)!;
}

/** Notes a per-minute limit past the per-hour one: allowed (each window is enforced on its own), but the hour binds. */
function noteBindingWindow(account: AccountRow): void {
  const limits = effectiveRateLimits(account);
  // A plan without API access has no key that works: its limits hold its users' web sessions.
  const who = PLAN_LIMITS[account.plan].apiAccess ? "key" : "web session";
  if (limits.perMinute > limits.perHour)
    process.stderr.write(
      `note: ${limits.perMinute}/min is more than ${limits.perHour}/hour: no ${who} can use more than ` +
        `${limits.perHour} requests in an hour\n`,
    );
}

/**
 * Adds `accounts delete`: never the operator account; refused while the account has active keys unless --force, which
 * revokes them with it; asks on a terminal, --yes for scripts (confirm.ts). Checked, asked with the database closed,
 * then checked again as it is deleted (domain/accounts.ts). Tests: test/cli/admin-delete.test.ts.
 */
function addAccountsDelete(accounts: Command): void {
  accounts
    .command("delete")
    .description(
      "Delete an account with its workspaces, records, users and keys (refused while it has active keys unless " +
        "--force; asks first, --yes for scripts)",
    )
    .argument("<id>", "account id", positiveInt("account id"))
    .option("--force", "revoke the account's active API keys and delete it")
    .option("--yes", "delete without asking")
    .option("--json", "print the result as JSON")
    .action(async (id: number, opts: { force?: boolean; yes?: boolean }, cmd: Command) => {
      const { account, held } = await withReadStore(cmd, (store) => deletableAccount(cmd, store, id, opts.force));
      await confirmDeletion(
        `delete account ${id} "${printable(account.name)}" with its ${held.workspaces} workspace(s) and their ` +
          `records, ${held.users} user(s)${held.active > 0 ? `, and revoke its ${held.active} active API key(s)` : ""}`,
        { yes: opts.yes, declined: `account ${id} was not deleted` },
      );
      return withStore(cmd, (store) => {
        const current = deletableAccount(cmd, store, id, opts.force).account;
        const removed = deleteAccount(store, ACTOR, current);
        if (wantsJson(cmd)) return printJson({ id, deleted: true, ...removed });
        process.stdout.write(
          `deleted account ${id} "${printable(current.name)}" with ${removed.workspaces} workspace(s) and their ` +
            `records and ${removed.users} user(s); revoked ${removed.api_keys_revoked} active API key(s)\n`,
        );
      });
    });
}

/** The account when it may be deleted, with what it holds; else the line that says why not and what lifts it. */
function deletableAccount(cmd: Command, store: Store, id: number, force?: boolean) {
  const account = accountOf(cmd, store, id);
  const refusal = accountDeletionRefusal(store, account);
  if (refusal) throw new CliError(refusal);
  const active = activeKeysOf(store, id).length;
  if (active > 0 && !force)
    throw new CliError(
      `account ${id} has ${active} active API key(s): revoke them first (keys revoke ID), or give --force to revoke ` +
        "them with the account",
    );
  return { account, held: { active, workspaces: store.workspaces.count(id), users: store.users.list(id).length } };
}
