/** What every administrator's command shares: the actor it records, the records it looks up, and its notes. */
import type { Command } from "commander";
import type { AccountRow, Plan } from "../../db/accounts.js";
import type { Store } from "../../db/store.js";
import type { UserRow } from "../../db/users.js";
import type { WorkspaceRow } from "../../db/workspaces.js";
import { PLAN_LIMITS } from "../../domain/plans.js";
import { dataDirOf } from "../data-dir.js";
import { databaseUrlOf } from "../database-url.js";
import { CliError } from "../errors.js";
import { printable, shellWord } from "../output.js";

/** The actor the audit log records for a change made from the command line. */
export const ACTOR = "cli";

/**
 * A record the data directory does not hold, in one wording for every kind: "no account 9 in this data directory:
 * `content-service accounts list --data-dir DIR` lists the accounts", the list command copied as it would run (exit 1).
 * The domain's own line ("No account 9.", the API's) names neither where nor how to find a valid one.
 */
export function notFound(cmd: Command, what: string, list: string, listed: string): CliError {
  // On PostgreSQL (--database-url) the records are the database's, and the list command names it as given.
  if (databaseUrlOf(cmd)) {
    const where = what.replace("in this data directory", "in this database");
    return new CliError(`no ${where}: \`content-service ${list} --database-url URL\` lists ${listed}`);
  }
  const dir = dataDirOf(cmd);
  return new CliError(`no ${what}: \`content-service ${list} --data-dir ${shellWord(dir)}\` lists ${listed}`);
}

/** An account by id, or the CLI's not-found line. */
export function accountOf(cmd: Command, store: Store, id: number): AccountRow {
  const account = store.accounts.byId(id);
  if (!account) throw notFound(cmd, `account ${id} in this data directory`, "accounts list", "the accounts");
  return account;
}

/** A user by id (all digits) or by email, or the CLI's not-found line. */
export function userOf(cmd: Command, store: Store, ref: string): UserRow {
  const user = /^\d+$/.test(ref) ? store.users.byId(Number(ref)) : store.users.byEmail(ref.trim());
  if (!user) throw notFound(cmd, `user ${printable(ref)} in this data directory`, "users list", "the users");
  return user;
}

/** A workspace by id (of the given account, when one is), or the CLI's not-found line. */
export function workspaceOf(cmd: Command, store: Store, id: string, accountId?: number): WorkspaceRow {
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
export function requireListedAccount(cmd: Command, store: Store, accountId: number | undefined): void {
  if (accountId !== undefined) accountOf(cmd, store, accountId);
}

/** Notes on stderr that an account's keys are refused while its plan has no API access (DESIGN §5). */
export function noteRefusedKeys(account: { id: number; plan: Plan }, which: string): void {
  if (PLAN_LIMITS[account.plan].apiAccess) return;
  process.stderr.write(
    `note: account ${account.id} is on the ${account.plan} plan, which has no API access: ${which} ` +
      "refused (403 plan_upgrade_required) until `accounts set-plan` gives it business or agency\n",
  );
}
