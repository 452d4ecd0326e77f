/** `workspaces`: create, list, make default and delete an account's workspaces. */
import type { Command } from "commander";
import type { WorkspaceHoldings, WorkspaceRow } from "../../db/workspaces.js";
import { checkWorkspaceDeletable, createWorkspace, deleteWorkspace, updateWorkspace } from "../../domain/admin.js";
import { ApiError } from "../../domain/errors.js";
import { workspaceView } from "../../domain/views/workspaces.js";
import { idArg, nameArg, positiveInt } from "../args.js";
import { confirmDeletion } from "../confirm.js";
import { withReadStore, withStore } from "../database.js";
import { CliError } from "../errors.js";
import { printable, printJson, printTable, wantsJson } from "../output.js";
import { ACTOR, accountOf, requireListedAccount, workspaceOf } from "./lookup.js";

/** Adds `workspaces` and its subcommands to the program. */
export function registerWorkspacesCommands(program: Command): void {
  const workspaces = program
    .command("workspaces")
    .description("Workspaces: separate sets of an account's contents, memories and references");
  addWorkspacesCreate(workspaces);
  addWorkspacesList(workspaces);
  addWorkspacesSetDefault(workspaces);
  addWorkspacesDelete(workspaces);
}

/** Adds `workspaces create`. */
function addWorkspacesCreate(workspaces: Command): void {
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
}

/** Adds `workspaces list`. */
function addWorkspacesList(workspaces: Command): void {
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
}

/** Adds `workspaces set-default`. */
function addWorkspacesSetDefault(workspaces: Command): void {
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
}

/**
 * Adds `workspaces delete`: refused for the default and the only workspace (domain checkWorkspaceDeletable, the API's
 * rule); one holding records or bound keys is deleted once confirmed (confirm.ts); says what went with it.
 * Tests: test/cli/admin-delete.test.ts.
 */
function addWorkspacesDelete(workspaces: Command): void {
  workspaces
    .command("delete")
    .description(
      "Delete a workspace with its records and the keys bound to it (not the default or the only one; " +
        "asks first when it holds any, --yes for scripts)",
    )
    .argument("<id>", "workspace id", idArg("the workspace id"))
    .option("--yes", "delete without asking, records and bound keys included")
    .option("--json", "print the result as JSON")
    .action(async (id: string, opts: { yes?: boolean }, cmd: Command) => {
      // Checked and counted first, then asked with the database closed, then checked again as it is deleted.
      const held = await withReadStore(cmd, (store) => {
        const ws = workspaceOf(cmd, store, id);
        refusedDeletion(ws, () => checkWorkspaceDeletable(store, ws));
        return { ws, held: store.workspaces.holdings(ws.id) };
      });
      if (Object.values(held.held).some((n) => n > 0))
        await confirmDeletion(`delete workspace ${id} "${printable(held.ws.name)}" with ${holdingsText(held.held)}`, {
          yes: opts.yes,
          declined: `workspace ${id} was not deleted`,
        });
      return withStore(cmd, (store) => {
        const ws = workspaceOf(cmd, store, id);
        const removed = refusedDeletion(ws, () => deleteWorkspace(store, ACTOR, ws));
        if (wantsJson(cmd)) return printJson({ id, deleted: true, removed });
        process.stdout.write(`deleted workspace ${id} with ${holdingsText(removed)}\n`);
      });
    });
}

/** What a workspace holds, as the confirmation and the result say it; its bound keys are deleted with it. */
function holdingsText(h: WorkspaceHoldings): string {
  return (
    `${h.contents} content(s), ${h.memories} memory(ies), ${h.reference_materials} reference material(s), ` +
    `${h.conversions} conversion(s) and ${h.api_keys} API key(s) bound to it`
  );
}

/** Runs `fn`, turning the domain's refusals into one line naming the command that lifts them. */
function refusedDeletion<T>(ws: WorkspaceRow, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    if (e.code === "workspace_not_empty")
      throw new CliError(
        `workspace ${ws.id} is the default of account ${ws.account_id}: make another the default first (workspaces set-default ID)`,
      );
    if (e.code === "last_workspace")
      throw new CliError(
        `workspace ${ws.id} is the only workspace of account ${ws.account_id}, which keeps one: ` +
          `create another first, or delete the account (accounts delete ${ws.account_id})`,
      );
    throw e;
  }
}
