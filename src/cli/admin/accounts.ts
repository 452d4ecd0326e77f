/** `accounts`: create and list accounts, change their plan and rate limits. */
import { Argument, type Command, Option } from "commander";
import { PLANS, type Plan } from "../../db/accounts.js";
import { createAccount, setLimits, setPlan } from "../../domain/admin.js";
import { keyRefusal } from "../../domain/apikeys.js";
import { effectiveRateLimits, PLAN_LIMITS } from "../../domain/plans.js";
import { limitArg, nameArg, positiveInt } from "../args.js";
import { withReadStore, withStore } from "../database.js";
import { UsageError } from "../errors.js";
import { printable, printJson, printTable, wantsJson } from "../output.js";
import { ACTOR, accountOf, noteRefusedKeys } from "./lookup.js";

/** Adds `accounts` and its subcommands to the program. */
export function registerAccountsCommands(program: Command): void {
  const accounts = program.command("accounts").description("Accounts, their plan and rate limits");
  addAccountsCreate(accounts);
  addAccountsList(accounts);
  addAccountsSetPlan(accounts);
  addAccountsSetLimits(accounts);
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

/** Adds `accounts set-limits`: the account's own rate limits, or the plan's again. */
function addAccountsSetLimits(accounts: Command): void {
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
}
