/** `init`: the database, the first account, its default workspace and an admin user, made once. */
import { existsSync, fstatSync } from "node:fs";
import path from "node:path";
import { type Command, Option } from "commander";
import { PLANS, type Plan } from "../../db/accounts.js";
import type { OpenConnection } from "../../db/connection.js";
import { hasFirstAccount } from "../../db/first-account.js";
import { DB_FILE, makeDataDir } from "../../db/open.js";
import { shownUrl } from "../../db/pg/connection.js";
import { checkEmail, checkPassword, givenOption, nameArg, readStdinIfPiped } from "../args.js";
import { dataDirOf } from "../data-dir.js";
import { openDatabase, openPostgresDatabase, whileNoRestore } from "../database.js";
import { databaseUrlOf } from "../database-url.js";
import { printingSecret, printJson, refuseSecretToNull, wantsJson } from "../output.js";
import { type InitOptions, type InitResult, initDatabase, initDataDir } from "../setup.js";
import { demoLine, seedDemo } from "./demo.js";
import { printFirstStart } from "./first-start.js";

/** What `init` was given. */
interface InitCommandOptions {
  accountName: string;
  plan: Plan;
  adminEmail: string;
  demo?: boolean;
}

/** Adds `init` to the program. */
export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("Create the database, the first account, its default workspace and an admin user (idempotent)")
    .option("--account-name <name>", "name of the first account", nameArg("--account-name"), "Default account")
    .addOption(new Option("--plan <plan>", "plan of the first account").choices(PLANS).default("business"))
    .option("--admin-email <email>", "the admin user's email", "admin@localhost")
    .option("--demo", "also add demo records to the first account: a template, references, memories, contents")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nThe admin password is read from standard input when it is not a terminal (8 to 1024 characters; e.g.\n" +
        '`printf %s "$PW" | content-service init`), else generated and printed once. With a non-terminal stdin that\n' +
        "sends nothing (ssh without -t, docker exec -i), init waits for it: close it (</dev/null) to get a generated one.\n",
    )
    .action(init);
}

/** Runs `init`: reads the admin password only for a directory not initialised yet, and prints what was made. */
async function init(opts: InitCommandOptions, cmd: Command): Promise<void> {
  const adminEmail = checkEmail(opts.adminEmail, "--admin-email");
  const dataDir = dataDirOf(cmd);
  const databaseUrl = databaseUrlOf(cmd);
  const where = { dataDir, databaseUrl };
  // Checked before standard input is read: `sleep 4 | init` on an initialised directory must not wait for a
  // password it would not use.
  const initialised = databaseUrl ? postgresInitialised(databaseUrl) : initialisedAlready(dataDir);
  const password = initialised ? undefined : checkPassword(await readStdinIfPiped("the admin password"));
  if (!initialised && password === undefined) refuseSecretToNull("the admin's generated password");
  const given = { ...opts, adminEmail, password };
  const result = databaseUrl ? initDatabase(where, given) : initDirectory(dataDir, given);
  if (!result.created) noteUnused(cmd, initialised ? "unread" : password !== undefined ? "read" : "none");
  if (result.created && result.generatedPassword) printingSecret();
  const demo = result.created && opts.demo ? await seedDemo(where, result.accountId, result.workspaceId) : undefined;
  if (wantsJson(cmd)) {
    printJson(
      result.created
        ? {
            created: true,
            account_id: result.accountId,
            workspace_id: result.workspaceId,
            admin_email: result.adminEmail,
            generated_password: result.generatedPassword ?? null,
            ...(demo ? { demo } : {}),
          }
        : { created: false },
    );
    return;
  }
  if (!result.created) process.stdout.write(`already initialised: ${databaseUrl ? shownUrl(databaseUrl) : dataDir}\n`);
  else printFirstStart(result, (s) => process.stdout.write(s), dataDir);
  if (demo) process.stdout.write(demoLine(demo));
}

/** Makes and initialises a data directory, under its maintenance lock. */
function initDirectory(dataDir: string, opts: InitOptions): InitResult {
  makeDataDir(dataDir);
  return whileNoRestore(dataDir, () => initDataDir(dataDir, opts));
}

/** Whether a PostgreSQL database has its first account (as initialisedAlready; one that cannot say has not). */
function postgresInitialised(url: string): boolean {
  return hasFirstAccountOn(openPostgresDatabase(url));
}

/** Whether a database has its first account, closed afterwards; one that cannot say (needs migrations) has not. */
function hasFirstAccountOn(db: OpenConnection): boolean {
  try {
    return hasFirstAccount(db);
  } catch {
    return false;
  } finally {
    db.close();
  }
}

/**
 * Whether the data directory's database has its first account: `init` then changes nothing, and reads no password.
 * A database that cannot say (another program's, one needing migrations) is left to initDataDir, which names it.
 */
function initialisedAlready(dataDir: string): boolean {
  if (!existsSync(path.join(dataDir, DB_FILE))) return false;
  return whileNoRestore(dataDir, () => hasFirstAccountOn(openDatabase(dataDir)));
}

/**
 * `init` on an initialised directory changes nothing: what was given for the first account (options, a password on
 * standard input) is said to be unused, rather than let it seem set. `stdin`: "read" when a password was read,
 * "unread" when standard input was not read at all (the directory was seen initialised first), "none" otherwise.
 */
function noteUnused(cmd: Command, stdin: "read" | "unread" | "none"): void {
  const given = (["accountName", "plan", "adminEmail", "demo"] as const)
    .filter((key) => cmd.getOptionValueSource(key) === "cli")
    .map((key) => givenOption(cmd, key, false));
  const unused = [...given];
  if (stdin === "read") unused.push("the password read from standard input");
  // Not read, so not known to hold a password: said of a pipe or a file that may (not a terminal, not /dev/null).
  else if (stdin === "unread" && stdinMayHoldInput()) unused.push("standard input (not read)");
  if (unused.length === 0) return;
  const list = unused.length === 1 ? unused[0] : `${unused.slice(0, -1).join(", ")} and ${unused.at(-1)}`;
  process.stderr.write(
    `note: ${list} ${unused.length === 1 ? "was" : "were"} not used: the data directory is initialised already ` +
      "(`accounts create` and `users create` add others)\n",
  );
}

/** Whether standard input is a pipe, a socket or a non-empty file: one that may hold a password. */
function stdinMayHoldInput(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isSocket() || (st.isFile() && st.size > 0);
  } catch {
    return false;
  }
}
