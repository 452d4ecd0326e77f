/** The commander program: every command, its help and its exit status (0 ok, 1 failure, 2 usage). */
import { Command, CommanderError, Option } from "commander";
import { versionText } from "../runtime/build-info.js";
import { registerAdminCommands } from "./admin/index.js";
import { explainFailure } from "./data-dir.js";
import { CliError, UsageError } from "./errors.js";
import { registerMaintenanceCommands } from "./maintenance.js";
import { registerOpenApiCommand } from "./openapi.js";
import { registerServeCommands } from "./serve/index.js";
import { dropEarly, releaseEarly } from "./stop-signals.js";

/** Builds the program; `main.ts` runs it. */
export function buildProgram(): Command {
  const program = new Command("content-service")
    .description("A self-contained content generation API server and its administration commands.")
    .version(versionText(), "-V, --version", "print the version and build, then exit")
    .addOption(
      new Option("--data-dir <dir>", "the folder holding the database and its lock files (init and serve make it)")
        .env("CONTENT_SERVICE_DATA_DIR")
        .default("./data"),
    )
    .addOption(
      new Option(
        "--database-url <url>",
        "run on this PostgreSQL database (postgres://…) instead of the data directory's SQLite file",
      ).env("CONTENT_SERVICE_DATABASE_URL"),
    )
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
    .configureOutput({ outputError: (str, write) => write(str) })
    // --json is hidden from the option lists (it would show in the help of commands that refuse it): said here.
    .addHelpText(
      "after",
      "\nCommands that print records also take --json (one JSON document on stdout), before or after the command.\n" +
        "Exit status: 0 success, 1 failure (one line on stderr), 2 usage error.",
    );
  registerServeCommands(program);
  registerAdminCommands(program);
  registerMaintenanceCommands(program);
  registerOpenApiCommand(program);
  for (const command of everyCommand(program)) for (const option of command.options) nameTheVariable(option);
  return program;
}

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

/**
 * An option also read from an environment variable: a bad value that came from the variable is said to, or the
 * message would send the user looking for a flag they never gave (`--port must be 0–65535` for CONTENT_SERVICE_PORT).
 */
function nameTheVariable(option: Option): void {
  const parse = option.parseArg;
  const variable = option.envVar;
  if (!parse || !variable) return;
  option.argParser((value: string, previous: unknown) => {
    try {
      return parse(value, previous);
    } catch (e) {
      // commander reads the variable only when the flag was not given.
      const flagGiven = process.argv.some((a) => a === option.long || a.startsWith(`${option.long}=`));
      if (e instanceof UsageError && !flagGiven && process.env[variable] === value)
        throw new UsageError(`${e.message} (from ${variable})`);
      throw e;
    }
  });
}

/** Runs the program on argv and resolves with the exit status. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  // `help keys create` as `keys create --help`: commander's help command reads only its first word (it showed the
  // group's help), and an unknown command is then named as one.
  const words = argv.slice(2);
  const helpFor = words[0] === "help" && words.length >= 2;
  if (helpFor && !program.commands.some((c) => c.name() === words[1])) {
    // No command runs: a stop signal recorded while the modules loaded is re-sent (Node's default), as for any other.
    releaseEarly();
    process.stderr.write(`error: unknown command '${words[1]}' (content-service --help lists them)\n`);
    return 2;
  }
  const args = helpFor ? [...argv.slice(0, 2), ...words.slice(1), "--help"] : argv;
  // The command commander went on to parse (preSubcommand: before its options are parsed). A refusal of serve's
  // options comes before the preAction hook and serve's action, which take the stop signals: the catch below tells
  // serve's by it.
  let command: string | undefined;
  // Only serve handles the stop signals (stop-signals.ts). Any other command keeps Node's default for one that came
  // while the program loaded: it ends as soon as commander goes to that command, before its options are parsed,
  // whatever they are (re-sent after a refusal, it would end the process after commander's own error line but before
  // the program's), and before anything the program itself writes without a command (its help, version, an unknown
  // command or option: the root's output; the subcommands copied theirs when they were made).
  const releaseUnlessServe = () => {
    if (command !== "serve") releaseEarly();
  };
  program.hook("preSubcommand", (_program, subcommand) => {
    command = subcommand.name();
    releaseUnlessServe();
  });
  const { writeOut, writeErr } = program.configureOutput();
  program.configureOutput({
    writeOut: (text) => {
      releaseUnlessServe();
      writeOut?.(text);
    },
    writeErr: (text) => {
      releaseUnlessServe();
      writeErr?.(text);
    },
  });
  try {
    await program.parseAsync(args);
    return 0;
  } catch (e) {
    // No command ran (a usage error, help): a stop signal recorded meanwhile ends the process as it would have, except
    // serve's, which serve took over from the start (README): its refusal is its `error:` line alone and exit 2.
    if (command === "serve") dropEarly();
    else releaseEarly();
    if (e instanceof CommanderError) {
      // Help asked for (--help, `help`) and version exit 0. Help shown because a subcommand is missing
      // (`content-service`, `content-service keys`) comes as commander.help with exit code 1: a usage error, like
      // every other commander error.
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
      if (e.code === "commander.help") return e.exitCode === 0 ? 0 : 2;
      return 2;
    }
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${oneLine(e.message)}\n`);
      return 2;
    }
    if (e instanceof CliError) {
      process.stderr.write(`error: ${oneLine(e.message)}\n`);
      return 1;
    }
    process.stderr.write(`error: ${oneLine(explainFailure(e) ?? (e instanceof Error ? e.message : String(e)))}\n`);
    return 1;
  }
}

/**
 * A failure is one line on stderr (README): messages from SQLite (an integrity check's findings) or the system may
 * hold several, which are joined.
 */
function oneLine(message: string): string {
  return message
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join("; ");
}
