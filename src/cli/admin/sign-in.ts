/**
 * `users backoff` and `users clear-backoff`: the failed sign-ins the server backs off (domain/sign-in-backoff.ts),
 * read and cleared in the database, where the server keeps them. Tests: test/cli/sign-in-backoff.test.ts.
 */
import type { Command } from "commander";
import { clearAddressBackoff, clearEmailBackoff, listSignInBackoff } from "../../domain/sign-in-backoff.js";
import { withReadStore, withStore } from "../database.js";
import { UsageError } from "../errors.js";
import { printable, printJson, printTable, wantsJson } from "../output.js";

/** Adds `users backoff` and `users clear-backoff` to the `users` group. */
export function addSignInBackoffCommands(users: Command): void {
  users
    .command("backoff")
    .description("List the emails and client addresses whose failed sign-ins are counted, and until when they wait")
    .option("--json", "print as JSON")
    .action((_opts: unknown, cmd: Command) =>
      withReadStore(cmd, (store) => {
        const rows = listSignInBackoff(store, Date.now());
        if (wantsJson(cmd)) return printJson(rows);
        printTable(rows, ["subject", "failures", "last_failure_at", "blocked_until"]);
      }),
    );
  users
    .command("clear-backoff")
    .description("Forget the failed sign-ins of an email (a user's or not), of a client address, or both")
    .argument("[email]", "the email whose failures to forget")
    .option("--address <address>", "the client address whose failures to forget (as `users backoff` lists it)")
    .option("--json", "print what was cleared as JSON")
    .action((email: string | undefined, opts: { address?: string }, cmd: Command) => {
      if (email === undefined && opts.address === undefined)
        throw new UsageError("name an email, an --address, or both");
      return withStore(cmd, (store) => {
        const cleared = {
          ...(email === undefined ? {} : { email: clearEmailBackoff(store, email) }),
          ...(opts.address === undefined ? {} : { address: clearAddressBackoff(store, opts.address) }),
        };
        if (wantsJson(cmd)) return printJson(cleared);
        for (const [what, had] of Object.entries(cleared)) {
          const name = what === "email" ? email! : opts.address!;
          process.stdout.write(`${printable(name)}: ${had ? "failures cleared" : "had no failures"}\n`);
        }
      });
    });
}
