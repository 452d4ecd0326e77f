/** `accounts`, `users`, `workspaces`, `keys` and `storage`: the administrator's commands. */
import type { Command } from "commander";
import { registerAccountsCommands } from "./accounts.js";
import { registerKeysCommands } from "./keys.js";
import { registerStorageCommands } from "./storage.js";
import { registerUsersCommands } from "./users.js";
import { registerWorkspacesCommands } from "./workspaces.js";

/** Adds the administrator's command groups to the program. */
export function registerAdminCommands(program: Command): void {
  registerAccountsCommands(program);
  registerUsersCommands(program);
  registerWorkspacesCommands(program);
  registerKeysCommands(program);
  registerStorageCommands(program);
}
