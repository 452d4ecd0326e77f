/** `accounts`, `users`, `workspaces`, `keys`, `storage` and `templates`: the administrator's commands. */
import type { Command } from "commander";
import { registerAccountsCommands } from "./accounts.js";
import { registerKeysCommands } from "./keys.js";
import { registerStorageCommands } from "./storage.js";
import { registerTemplatesCommands } from "./templates.js";
import { registerUsersCommands } from "./users.js";
import { registerWorkspacesCommands } from "./workspaces.js";

/** Adds the administrator's command groups to the program. */
export function registerAdminCommands(program: Command): void {
  registerAccountsCommands(program);
  registerUsersCommands(program);
  registerWorkspacesCommands(program);
  registerKeysCommands(program);
  registerStorageCommands(program);
  registerTemplatesCommands(program);
}
