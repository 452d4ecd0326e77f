/**
 * `storage usage` and `storage recount`: the bytes each account's records hold against its quota
 * (domain/storage.ts), and the counter counted again from the rows. Tests: test/cli/storage.test.ts.
 */
import type { Command } from "commander";
import { storageOf } from "../../domain/storage.js";
import { positiveInt } from "../args.js";
import { withReadStore, withStore } from "../database.js";
import { printJson, printTable, wantsJson } from "../output.js";
import { requireListedAccount } from "./lookup.js";

/** Adds `storage` and its subcommands to the program. */
export function registerStorageCommands(program: Command): void {
  const storage = program.command("storage").description("Bytes each account's records hold, against its quota");
  storage
    .command("usage")
    .description("List each account's storage quota and the bytes its records hold")
    .option("--account <id>", "only this account", positiveInt("--account"))
    .option("--json", "print as JSON")
    .action((opts: { account?: number }, cmd: Command) =>
      withReadStore(cmd, (store) => {
        requireListedAccount(cmd, store, opts.account);
        const accounts = store.accounts.list().filter((a) => opts.account === undefined || a.id === opts.account);
        const rows = accounts.map((a) => ({ account_id: a.id, ...storageOf(store, a) }));
        if (wantsJson(cmd)) return printJson(rows);
        printTable(rows, ["account_id", "limit_bytes", "used_bytes"]);
      }),
    );
  storage
    .command("recount")
    .description("Count every account's stored bytes again from its records (the server keeps the count itself)")
    .option("--json", "print as JSON")
    .action((_opts: unknown, cmd: Command) =>
      withStore(cmd, (store) => {
        const rows = store.transaction(() => store.storage.recountAll());
        if (wantsJson(cmd)) return printJson(rows);
        printTable(rows, ["account_id", "used_bytes"]);
      }),
    );
}
