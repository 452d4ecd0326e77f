/** `init` and `serve`: the commands that make a data directory and run the server over it. */
import type { Command } from "commander";
import { givenOption } from "../args.js";
import { dataDirOf } from "../data-dir.js";
import { databaseUrlOf } from "../database-url.js";
import { CliError, UsageError } from "../errors.js";
import { acquireServerLock, LockHeldError } from "../lock.js";
import { StopSignals } from "../stop-signals.js";
import { registerInitCommand } from "./init.js";
import {
  addServeOptions,
  checkModelOptions,
  checkSandboxOptions,
  noteUnusedBackupOptions,
  type ServeCommandOptions,
} from "./options.js";
import { serve } from "./start.js";

/** Adds `init` and `serve` to the program. */
export function registerServeCommands(program: Command): void {
  registerInitCommand(program);
  registerServeCommand(program);
}

/** Adds `serve` to the program. */
function registerServeCommand(program: Command): void {
  const command = program
    .command("serve")
    .description(
      "Run the HTTP API server (initialises an empty data directory first, printing the admin login and a " +
        "read+write API key once, on standard error). SIGTERM, SIGINT or SIGHUP: stop accepting, finish the requests in flight, exit 0",
    );
  addServeOptions(command);
  command.action(serveCommand);
}

/** Runs `serve`: takes the stop signals over, checks its options, and serves holding the data directory's lock. */
async function serveCommand(opts: ServeCommandOptions, cmd: Command): Promise<void> {
  // First: a stop signal from now on (or recorded while the program loaded: listenEarly) stops the start cleanly.
  const signals = new StopSignals();
  noteUnusedBackupOptions(opts, cmd);
  checkModelOptions(opts, cmd);
  checkSandboxOptions(opts, cmd);
  opts.databaseUrl = postgresServeOptions(opts, cmd);
  const dataDir = dataDirOf(cmd);
  // One server per data directory (rate limits, checkpoints and idempotency waits live in its memory), held
  // until the process ends; the kernel releases it on a crash (lock.ts).
  let lock: ReturnType<typeof acquireServerLock>;
  try {
    lock = acquireServerLock(dataDir);
  } catch (e) {
    if (e instanceof LockHeldError) throw new CliError(e.message);
    throw e;
  }
  try {
    await serve(
      dataDir,
      opts,
      {
        host: givenOption(cmd, "host"),
        port: givenOption(cmd, "port"),
      },
      signals,
    );
  } finally {
    lock.release();
  }
}

/**
 * The PostgreSQL database `serve` runs on, if any. What copies or resets the data directory's SQLite file has no part
 * there: scheduled backups (PostgreSQL has its own tools: docs/operations.md) and sandbox mode are refused with it.
 */
function postgresServeOptions(opts: ServeCommandOptions, cmd: Command): string | undefined {
  const url = databaseUrlOf(cmd);
  if (!url) return undefined;
  if (opts.sandbox)
    throw new UsageError("--sandbox runs on the data directory's SQLite file: leave out --database-url");
  if (opts.backupSchedule)
    throw new UsageError(
      "--backup-schedule copies the data directory's SQLite file: back PostgreSQL up with its own tools (pg_dump)",
    );
  return url;
}
