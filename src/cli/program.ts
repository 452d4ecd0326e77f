/** The commander program: every command, its help and its exit status (0 ok, 1 failure, 2 usage). */
import { Command, CommanderError, Option } from "commander";
import { registerAdminCommands } from "./admin.js";
import { CliError, explainFailure, UsageError } from "./common.js";
import { registerMaintenanceCommands } from "./maintenance.js";
import { registerServeCommands } from "./serve.js";

/** Builds the program; `main.ts` runs it. */
export function buildProgram(): Command {
  const program = new Command("content-service")
    .description("A self-contained content generation API server and its administration commands.")
    .version("1.0.0")
    .addOption(new Option("--data-dir <dir>", "data directory").env("CONTENT_SERVICE_DATA_DIR").default("./data"))
    // DESIGN §2: a global option, so also before the command. The commands that print records list it in their
    // help (and take it after the command); the others refuse it as they would after the command.
    .addOption(new Option("--json", "print records as JSON").hideHelp())
    .hook("preAction", (root, command) => {
      if (root.opts().json && !command.options.some((o) => o.long === "--json"))
        throw new UsageError(`\`${command.name()}\` prints no records: --json does not apply to it`);
    })
    .exitOverride()
    // Every subcommand's help lists the global options (--data-dir); subcommands inherit this setting when created.
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ outputError: (str, write) => write(str) });
  registerServeCommands(program);
  registerAdminCommands(program);
  registerMaintenanceCommands(program);
  return program;
}

/** Runs the program on argv and resolves with the exit status. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help asked for (--help, `help`) and version exit 0. Help shown because a subcommand is missing
      // (`content-service`, `content-service keys`) comes as commander.help with exit code 1: a usage error, like
      // every other commander error.
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
      if (e.code === "commander.help") return e.exitCode === 0 ? 0 : 2;
      return 2;
    }
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    if (e instanceof CliError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 1;
    }
    process.stderr.write(`error: ${explainFailure(e) ?? (e instanceof Error ? e.message : String(e))}\n`);
    return 1;
  }
}
