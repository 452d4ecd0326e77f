/** `users`: create, list, set the password of and delete the users who sign in with an email and a password. */
import { type Command, Option } from "commander";
import type { Role } from "../../db/users.js";
import { checkNewUser, createUser } from "../../domain/admin.js";
import { generatePassword, hashPassword } from "../../domain/passwords.js";
import { deleteUser, setUserPassword, userDeletionConcern } from "../../domain/users.js";
import { userView } from "../../domain/views/users.js";
import { checkEmail, checkPassword, idArg, positiveInt, readStdinIfPiped } from "../args.js";
import { withReadStore, withStore } from "../database.js";
import { CliError } from "../errors.js";
import { printable, printingSecret, printJson, printTable, refuseSecretToNull, wantsJson } from "../output.js";
import { ACTOR, accountOf, requireListedAccount, userOf } from "./lookup.js";
import { addSignInBackoffCommands } from "./sign-in.js";

/** Adds `users` and its subcommands to the program. */
export function registerUsersCommands(program: Command): void {
  const users = program.command("users").description("Users who sign in with an email and a password (web sessions)");
  addUsersCreate(users);
  addUsersList(users);
  addUsersSetPassword(users);
  addUsersDelete(users);
  addSignInBackoffCommands(users);
}

/** Adds `users create`: the password from standard input, else generated and printed once. */
function addUsersCreate(users: Command): void {
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
      // The account and the email first, before standard input is read: `sleep 4 | users create --account 99 …` must
      // not wait for a password it would not use.
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
}

/** Adds `users list`. */
function addUsersList(users: Command): void {
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
}

/**
 * Adds `users set-password`: the password from standard input, else generated and printed once, checked by the API's
 * rule (http/admin-rules.ts Password, through checkPassword); the user's sessions end and their email's failed
 * sign-ins are forgotten (domain/users.ts). Tests: test/cli/user-passwords.test.ts.
 */
function addUsersSetPassword(users: Command): void {
  users
    .command("set-password")
    .description(
      "Set a user's password (from stdin, 8 to 1024 characters, else generated and printed once); " +
        "signs out their web sessions and clears their failed sign-ins",
    )
    .argument("<user>", "the user's email or id", idArg("the user"))
    .option("--json", "print the user as JSON")
    .action(async (ref: string, _opts, cmd: Command) => {
      // The user first, before standard input is read (as `users create` does).
      await withReadStore(cmd, (store) => userOf(cmd, store, ref));
      const given = checkPassword(await readStdinIfPiped("the new password"));
      if (given === undefined) refuseSecretToNull("the generated password");
      const generated = given === undefined ? generatePassword() : undefined;
      const hash = hashPassword(given ?? generated!);
      return withStore(cmd, (store) => {
        const user = userOf(cmd, store, ref);
        const change = setUserPassword(store, ACTOR, user, hash);
        if (generated) printingSecret();
        if (wantsJson(cmd))
          return printJson({
            ...userView(user),
            sessions_ended: true,
            ...change,
            generated_password: generated ?? null,
          });
        process.stdout.write(
          `password of user ${user.id} ${printable(user.email)} set; their web sessions are signed out` +
            `${change.backoff_cleared ? "; their failed sign-ins are cleared" : ""}\n`,
        );
        if (generated) process.stdout.write(`password (shown once): ${generated}\n`);
      });
    });
}

/**
 * Adds `users delete`: the last admin of an account only with --force (domain/users.ts says why); the keys the user
 * issued stay in use as the account's. Tests: test/cli/admin-delete.test.ts.
 */
function addUsersDelete(users: Command): void {
  users
    .command("delete")
    .description("Delete a user and end their web sessions; the API keys they issued keep working as the account's")
    .argument("<user>", "the user's email or id", idArg("the user"))
    .option("--force", "delete the last admin of an account too")
    .option("--json", "print the result as JSON")
    .action((ref: string, opts: { force?: boolean }, cmd: Command) =>
      withStore(cmd, (store) => {
        const user = userOf(cmd, store, ref);
        const concern = userDeletionConcern(store, user);
        if (concern && !opts.force) throw new CliError(`${concern}: give --force to delete them anyway`);
        const { keys_kept } = deleteUser(store, ACTOR, user);
        if (wantsJson(cmd)) return printJson({ ...userView(user), deleted: true, keys_kept });
        process.stdout.write(
          `deleted user ${user.id} ${printable(user.email)}; ${keys_kept} API key(s) they issued keep working\n`,
        );
      }),
    );
}
