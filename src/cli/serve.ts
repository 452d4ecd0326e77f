/** `init` and `serve`. */

import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { type Command, Option } from "commander";
import cron from "node-cron";
import { PLANS, type Plan } from "../db/accounts.js";
import { DB_FILE, makeDataDir } from "../db/open.js";
import { withoutUserinfo } from "../domain/generation/llm.js";
import { publicUrlOf } from "../http/public-url.js";
import { ensureBackupDir } from "../jobs/backups.js";
import { versionText } from "../runtime/build-info.js";
import { infoLineNow, jsonLogger, type Logger } from "../runtime/log.js";
import { type RunningServer, startServer } from "../server/start.js";
import {
  CliError,
  checkEmail,
  checkPassword,
  DEFAULT_HOST,
  DEFAULT_PORT,
  dataDirOf,
  defaultServerUrls,
  givenOption,
  hostArg,
  intInRange,
  isNullDevice,
  nameArg,
  onStdoutClosed,
  openDatabase,
  portArg,
  positiveInt,
  printingSecret,
  printJson,
  readStdinIfPiped,
  refuseSecretToNull,
  serverUrlArg,
  UsageError,
  wantsJson,
  whileNoRestore,
} from "./common.js";
import { acquireServerLock, LockHeldError } from "./lock.js";
import { type InitResult, initDataDir } from "./setup.js";
import { StartCancelled, StopSignals } from "./stop-signals.js";

function printFirstStart(result: InitResult, out: (s: string) => void): void {
  if (!result.created) return;
  out("content-service initialised:\n");
  out(`  account ${result.accountId}, default workspace ${result.workspaceId}\n`);
  out(`  admin login: ${result.adminEmail}`);
  out(result.generatedPassword ? ` / password ${result.generatedPassword} (shown once)\n` : " (password from stdin)\n");
  if (result.key) out(`  API key (read, write; shown once): ${result.key}\n`);
}

/** Where a first start's credentials go when standard error cannot take them, in the data directory. */
const CREDENTIALS_FILE = "first-start-credentials.txt";

/**
 * Shows a first start's credentials (after `heading`, when given), which exist nowhere else. On standard error with
 * fs.writeSync: written when the call returns, not queued in a stream that a process ending at once could leave
 * unwritten. Standard error that cannot take them (closed: EPIPE, EBADF) had lost them, and /dev/null (`2>&-`,
 * `2>/dev/null`) had lost them silently: they go to <data-dir>/first-start-credentials.txt (0600) then, and a log line
 * on standard output names the file.
 */
function showFirstStart(result: InitResult, dataDir: string, log: Pick<Logger, "error">, heading?: string): void {
  if (!result.created) return;
  let text = heading ?? "";
  printFirstStart(result, (s) => {
    text += s;
  });
  let error: string;
  try {
    writeAllSync(2, text);
    // `serve 2>/dev/null`, or `serve 2>&-`, whose closed fd 2 Node reopens on /dev/null: the write was lost.
    if (!isNullDevice(2)) return;
    error = "standard error is /dev/null";
  } catch (e) {
    error = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  }
  const file = path.join(dataDir, CREDENTIALS_FILE);
  try {
    // A new file, never one already there: "w" followed a symbolic link planted at that name (into a file its
    // planter reads) and kept a file another user had opened. An older one goes first; O_EXCL refuses a link.
    rmSync(file, { force: true });
    const fd = openSync(file, "wx", 0o600);
    try {
      // The umask may take bits off 0600: the mode is set whatever it is.
      fchmodSync(fd, 0o600);
      writeAllSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    log.error(
      "standard error could not take the first start's credentials: they are in a file; read it, then delete it",
      { file, error },
    );
  } catch (f) {
    log.error("the first start's credentials were lost: standard error and the file both failed", {
      file,
      error,
      file_error: (f as NodeJS.ErrnoException).code ?? (f as Error).message,
    });
  }
}

/** Writes all of `text` to `fd` now; a non-blocking pipe that is full (EAGAIN) is waited for, up to a second. */
function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  let waits = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN" || waits++ >= 1_000) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/**
 * Parses a model server's URL. One with a user name or password is refused: fetch cannot send it (the engine
 * would never work), and the URL is shown in GET /models and in error messages, to any read key. The key goes in
 * the environment (CONTENT_SERVICE_LLM_API_KEY, CONTENT_SERVICE_IMAGE_API_KEY) instead.
 */
function httpUrl(name: string) {
  return (value: string): string => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {}
    if (url && (url.username !== "" || url.password !== ""))
      throw new UsageError(
        `${name} must not carry a user name or password (user:password@); give the API key in CONTENT_SERVICE_LLM_API_KEY or CONTENT_SERVICE_IMAGE_API_KEY`,
      );
    if (url && (url.protocol === "http:" || url.protocol === "https:")) return value;
    // Echoed without anything that looks like credentials: the line may end up in a service's log.
    throw new UsageError(`${name} must be an http(s) URL, got "${withoutUserinfo(value)}"`);
  };
}

function validTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return tz;
  } catch {
    throw new UsageError(`unknown time zone "${tz}" (use an Area/City name such as Europe/Berlin)`);
  }
}

/**
 * Whether the data directory's database has its first account: `init` then changes nothing, and reads no password.
 * A database that cannot say (another program's, one needing migrations) is left to initDataDir, which names it.
 */
function initialisedAlready(dataDir: string): boolean {
  if (!existsSync(path.join(dataDir, DB_FILE))) return false;
  return whileNoRestore(dataDir, () => {
    const db = openDatabase(dataDir);
    try {
      return (
        db.prepare("SELECT 1 FROM schema_migrations LIMIT 1").get() !== undefined &&
        db.prepare("SELECT 1 FROM accounts LIMIT 1").get() !== undefined
      );
    } catch {
      return false;
    } finally {
      db.close();
    }
  });
}

/**
 * `init` on an initialised directory changes nothing: what was given for the first account (options, a password on
 * standard input) is said to be unused, rather than let it seem set. `stdin`: "read" when a password was read,
 * "unread" when standard input was not read at all (the directory was seen initialised first), "none" otherwise.
 */
function noteUnused(cmd: Command, stdin: "read" | "unread" | "none"): void {
  const given = (["accountName", "plan", "adminEmail"] as const)
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

/** Adds `init` and `serve` to the program. */
export function registerServeCommands(program: Command): void {
  program
    .command("init")
    .description("Create the database, the first account, its default workspace and an admin user (idempotent)")
    .option("--account-name <name>", "name of the first account", nameArg("--account-name"), "Default account")
    .addOption(new Option("--plan <plan>", "plan of the first account").choices(PLANS).default("business"))
    .option("--admin-email <email>", "the admin user's email", "admin@localhost")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nThe admin password is read from standard input when it is not a terminal (8 to 1024 characters; e.g.\n" +
        '`printf %s "$PW" | content-service init`), else generated and printed once. With a non-terminal stdin that\n' +
        "sends nothing (ssh without -t, docker exec -i), init waits for it: close it (</dev/null) to get a generated one.\n",
    )
    .action(async (opts: { accountName: string; plan: Plan; adminEmail: string }, cmd: Command) => {
      const adminEmail = checkEmail(opts.adminEmail, "--admin-email");
      const dataDir = dataDirOf(cmd);
      // Checked before standard input is read: `sleep 4 | init` on an initialised directory had waited for a
      // password it would not use.
      const initialised = initialisedAlready(dataDir);
      const password = initialised ? undefined : checkPassword(await readStdinIfPiped("the admin password"));
      if (!initialised && password === undefined) refuseSecretToNull("the admin's generated password");
      makeDataDir(dataDir);
      const result = whileNoRestore(dataDir, () => initDataDir(dataDir, { ...opts, adminEmail, password }));
      if (!result.created) noteUnused(cmd, initialised ? "unread" : password !== undefined ? "read" : "none");
      if (result.created && result.generatedPassword) printingSecret();
      if (wantsJson(cmd)) {
        printJson(
          result.created
            ? {
                created: true,
                account_id: result.accountId,
                workspace_id: result.workspaceId,
                admin_email: result.adminEmail,
                generated_password: result.generatedPassword ?? null,
              }
            : { created: false },
        );
        return;
      }
      if (!result.created) process.stdout.write(`already initialised: ${dataDir}\n`);
      else printFirstStart(result, (s) => process.stdout.write(s));
    });

  program
    .command("serve")
    .description(
      "Run the HTTP API server (initialises an empty data directory first, printing the admin login and a " +
        "read+write API key once, on standard error). SIGTERM, SIGINT or SIGHUP: stop accepting, finish the requests in flight, exit 0",
    )
    .addOption(
      new Option("--host <host>", "address to listen on (an IP address or a host name)")
        .env("CONTENT_SERVICE_HOST")
        .default(DEFAULT_HOST)
        .argParser(hostArg),
    )
    .addOption(
      new Option("--port <port>", "port to listen on (0: any free port)")
        .env("CONTENT_SERVICE_PORT")
        .default(DEFAULT_PORT)
        .argParser(portArg),
    )
    .addOption(
      new Option("--workers <n>", `worker threads for heavy work (1 to ${MAX_WORKERS})`)
        .env("CONTENT_SERVICE_WORKERS")
        .default(Math.max(1, Math.min(4, os.availableParallelism() - 1)), "one less than the cores, 1 to 4")
        .argParser(intInRange("--workers", 1, MAX_WORKERS)),
    )
    .addOption(
      new Option(
        "--public-url <url>",
        "production server URL in the description (default: http://HOST:PORT listened on)",
      )
        .env("CONTENT_SERVICE_PUBLIC_URL")
        .argParser(serverUrlArg("--public-url")),
    )
    .addOption(
      new Option("--staging-url <url>", "staging server URL in the description (default: http://staging.HOST:PORT)")
        .env("CONTENT_SERVICE_STAGING_URL")
        .argParser(serverUrlArg("--staging-url")),
    )
    .addOption(
      new Option(
        "--timezone <Area/City>",
        "time zone for overdue planning dates (default: this machine's: TZ, else /etc/localtime, else UTC)",
      )
        .env("CONTENT_SERVICE_TIMEZONE")
        // DESIGN §7: "today in the server's time zone". No commander default: resolving the machine's zone loads
        // ICU's time-zone data (15-60 ms here), which no other command and no request before the first planning one
        // needs; a start leaves it to the first request that asks (planning.ts machineTimezone).
        .argParser(validTimezone),
    )
    .addOption(
      new Option(
        "--llm-base-url <url>",
        "on-prem OpenAI-compatible model server (key from CONTENT_SERVICE_LLM_API_KEY)",
      )
        .env("CONTENT_SERVICE_LLM_BASE_URL")
        .argParser(httpUrl("--llm-base-url")),
    )
    .addOption(new Option("--llm-model <name>", "model name on that server").env("CONTENT_SERVICE_LLM_MODEL"))
    .addOption(
      new Option("--llm-timeout <seconds>", "longest wait for the model to start answering, or between stream pieces")
        .env("CONTENT_SERVICE_LLM_TIMEOUT")
        .default(60)
        .argParser(positiveInt("--llm-timeout")),
    )
    .addOption(
      new Option("--image-model <name>", "image model of an OpenAI-compatible images endpoint").env(
        "CONTENT_SERVICE_IMAGE_MODEL",
      ),
    )
    .addOption(
      new Option("--image-base-url <url>", "the images endpoint's server (default: --llm-base-url)")
        .env("CONTENT_SERVICE_IMAGE_BASE_URL")
        .argParser(httpUrl("--image-base-url")),
    )
    .addOption(
      new Option("--backup-schedule <cron>", 'back up the database on a cron schedule, e.g. "0 3 * * *"')
        .env("CONTENT_SERVICE_BACKUP_SCHEDULE")
        .argParser((value) => {
          if (cron.validate(value)) return value;
          throw new UsageError(
            neverFires(value)
              ? `--backup-schedule: "${value}" never fires: no month it names has that day of the month`
              : `--backup-schedule: "${value}" is not a cron expression`,
          );
        }),
    )
    .addOption(
      new Option("--backup-keep <n>", "how many scheduled backups to keep")
        .env("CONTENT_SERVICE_BACKUP_KEEP")
        .default(7)
        .argParser(positiveInt("--backup-keep")),
    )
    .addOption(
      new Option("--backup-dir <dir>", "where scheduled backups go (default: <data-dir>/backups)").env(
        "CONTENT_SERVICE_BACKUP_DIR",
      ),
    )
    .action(async (opts: ServeCommandOptions, cmd: Command) => {
      // First: a stop signal from now on (or recorded while the program loaded: listenEarly) stops the start cleanly.
      const signals = new StopSignals();
      // Results that will not do what they seem are noted: these two only shape the scheduled backups.
      if (!opts.backupSchedule)
        for (const [key, flag, variable] of [
          ["backupKeep", "--backup-keep", "CONTENT_SERVICE_BACKUP_KEEP"],
          ["backupDir", "--backup-dir", "CONTENT_SERVICE_BACKUP_DIR"],
        ] as const) {
          const source = cmd.getOptionValueSource(key);
          if (source === "cli" || source === "env")
            process.stderr.write(
              `note: ${source === "env" ? variable : flag} does nothing without --backup-schedule: no backups are ` +
                "scheduled\n",
            );
        }
      // Each option named as given, with its variable when it came from one: `CONTENT_SERVICE_LLM_MODEL` left in an
      // env file is otherwise a flag the user looks for in vain.
      const named = (key: string) => givenOption(cmd, key, false);
      if (opts.llmBaseUrl !== undefined && opts.llmModel === undefined)
        throw new UsageError(
          `${named("llmBaseUrl")} needs --llm-model (or CONTENT_SERVICE_LLM_MODEL): they go together`,
        );
      if (opts.llmModel !== undefined && opts.llmBaseUrl === undefined)
        throw new UsageError(
          `${named("llmModel")} needs --llm-base-url (or CONTENT_SERVICE_LLM_BASE_URL): they go together`,
        );
      if (opts.llmModel === "builtin")
        throw new UsageError(`${named("llmModel")} cannot be "builtin", the name of the built-in engine`);
      const imageBase = opts.imageBaseUrl ?? opts.llmBaseUrl;
      if (opts.imageModel !== undefined && imageBase === undefined)
        throw new UsageError(
          `${named("imageModel")} needs --image-base-url or --llm-base-url (or CONTENT_SERVICE_IMAGE_BASE_URL, ` +
            "CONTENT_SERVICE_LLM_BASE_URL)",
        );
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
    });
}

/** What `serve` was given. */
interface ServeCommandOptions {
  host: string;
  port: number;
  workers: number;
  publicUrl?: string;
  stagingUrl?: string;
  timezone?: string;
  llmBaseUrl?: string;
  llmModel?: string;
  llmTimeout: number;
  imageModel?: string;
  imageBaseUrl?: string;
  backupSchedule?: string;
  backupKeep: number;
  backupDir?: string;
}

/**
 * A database other users can read (a data directory made before it was created private, or by hand) is said on
 * stderr with what to do; the server does not change an administrator's modes itself.
 */
function noteExposedDatabase(dataDir: string): void {
  try {
    const file = path.join(dataDir, DB_FILE);
    const dir = statSync(dataDir).mode;
    const db = statSync(file).mode;
    const readable = (dir & 0o001 && db & 0o004) || (dir & 0o010 && db & 0o040);
    const replaceable = (dir & 0o022) !== 0 && (dir & 0o1000) === 0;
    if (!readable && !replaceable) return;
    const mode = (m: number) => (m & 0o777).toString(8);
    process.stderr.write(
      `note: ${file} (mode ${mode(db)}, in a folder of mode ${mode(dir)}) ` +
        `${readable ? "can be read" : "can be replaced"} by other users: it holds password and key hashes and the ` +
        `session signing secret; \`chmod 700 ${dataDir}\` keeps them out\n`,
    );
  } catch {
    // Not there (a first start that failed): nothing to say.
  }
}

/**
 * Initialises an empty data directory, serves until SIGTERM/SIGINT/SIGHUP, and drains. A signal before the server
 * listens stops the start at its next step (stop-signals.ts): exit 0, and a first start's credentials, if already
 * made, are shown all the same.
 */
async function serve(
  dataDir: string,
  opts: ServeCommandOptions,
  given: ListenOptions,
  signals: StopSignals,
): Promise<void> {
  let first: InitResult = { created: false };
  let server: RunningServer | undefined;
  try {
    server = await start(dataDir, opts, given, signals, (made) => {
      first = made;
    });
  } catch (e) {
    if (!(e instanceof StartCancelled)) throw e;
    // Stopped by a signal while the server started: what it started goes again, and the credentials made stay
    // shown, since no later start would show them.
    showFirstStart(
      first,
      dataDir,
      jsonLogger(),
      "stopped before listening; the credentials of this first start, valid nonetheless:\n",
    );
    process.stderr.write("stopped\n");
    return;
  }
  await run(server, dataDir, opts, first, signals);
}

/** The start-up steps, each followed by a check for a stop signal; the running server, listening. */
async function start(
  dataDir: string,
  opts: ServeCommandOptions,
  given: ListenOptions,
  signals: StopSignals,
  made: (first: InitResult) => void,
): Promise<RunningServer> {
  const imageBase = opts.imageBaseUrl ?? opts.llmBaseUrl;
  // A port in use (or an address not this machine's) fails here, before a first start makes credentials that only
  // a start that listens may show.
  await probeListen(opts.host, opts.port, given);
  await signals.checkpoint();
  // A backup folder that cannot be used fails the start, not the first scheduled run (its error a log line).
  // Resolved once, here: the folder checked is the folder the schedule writes to (an empty --backup-dir, as from an
  // env file's CONTENT_SERVICE_BACKUP_DIR=, is the default, not the working directory).
  const backupDir = opts.backupDir ? path.resolve(opts.backupDir) : path.join(dataDir, "backups");
  if (opts.backupSchedule) {
    try {
      ensureBackupDir(backupDir);
    } catch (e) {
      throw new CliError(`cannot use the backup folder: ${(e as Error).message}`);
    }
  }
  // The first open of the start: the line comes before WAL recovery, migrations and the learning jobs' resumption,
  // the steps the crash run's start-up kills are meant to cut (bench/lib/crash-core.ts).
  const first = initDataDir(
    dataDir,
    {
      accountName: "Default account",
      plan: "business",
      adminEmail: "admin@localhost",
      withKey: true,
    },
    () => infoLineNow("database opened", { file: path.join(dataDir, DB_FILE) }),
  );
  made(first);
  noteExposedDatabase(dataDir);
  await signals.checkpoint();
  let server: RunningServer;
  try {
    server = await startServer({
      dataDir,
      host: opts.host,
      port: opts.port,
      workers: opts.workers,
      backups: opts.backupSchedule
        ? {
            schedule: opts.backupSchedule,
            keep: opts.backupKeep,
            dir: backupDir,
          }
        : undefined,
      config: {
        // Placeholders until the port is known (--port 0): set below, before any request is read.
        ...defaultServerUrls(opts.host, opts.port),
        ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
        ...(opts.stagingUrl ? { stagingUrl: opts.stagingUrl } : {}),
        timezone: opts.timezone,
        llm:
          opts.llmBaseUrl && opts.llmModel
            ? {
                baseUrl: opts.llmBaseUrl,
                model: opts.llmModel,
                apiKey: process.env.CONTENT_SERVICE_LLM_API_KEY || undefined,
                timeoutMs: opts.llmTimeout * 1000,
              }
            : undefined,
        imageModel:
          opts.imageModel && imageBase
            ? {
                baseUrl: imageBase,
                model: opts.imageModel,
                apiKey:
                  process.env.CONTENT_SERVICE_IMAGE_API_KEY || process.env.CONTENT_SERVICE_LLM_API_KEY || undefined,
                timeoutMs: opts.llmTimeout * 1000,
              }
            : undefined,
      },
    });
  } catch (e) {
    // Lost between the probe and the server's listen (another process took the port): the credentials exist now,
    // and no later start would show them.
    showFirstStart(
      first,
      dataDir,
      jsonLogger(),
      "the server did not start; the credentials of this first start, valid nonetheless:\n",
    );
    throw listenFailure(e, given) ?? e;
  }
  try {
    await signals.checkpoint();
  } catch (e) {
    // The stop is the outcome: a close that fails is said and is exit 1, as on the drain after a start, but does not
    // take the place of the cancel (serve shows the credentials made, which no later start would show).
    await server.close().catch((closing) => {
      process.stderr.write(`stopping failed: ${(closing as Error).message}\n`);
      process.exitCode = 1;
    });
    throw e;
  }
  return server;
}

/** Serves until a stop signal, then drains. */
async function run(
  server: RunningServer,
  dataDir: string,
  opts: ServeCommandOptions,
  first: InitResult,
  signals: StopSignals,
): Promise<void> {
  // The description's default servers name the port actually listened on (--port 0 picks one).
  const port = Number(new URL(server.url).port);
  const defaults = defaultServerUrls(opts.host, port);
  server.services.config.publicUrl = opts.publicUrl ?? defaults.publicUrl;
  server.services.config.stagingUrl = opts.stagingUrl ?? defaults.stagingUrl;
  // Shown once, and only by a start that listens: a start that fails (port in use) shows no credentials.
  showFirstStart(first, dataDir, server.services.logger);
  // The handlers are in place before the line that tells a supervisor (or a test) the server is up. Standard output
  // carries JSON log lines only (README "Command line"): these lines go to standard error.
  let received = 0;
  let failure: string | undefined;
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      received++;
      // A second signal (`timeout` signals the process and then its group; an impatient supervisor) must not cut
      // the drain short: the requests in flight, the counters kept in memory and the checkpoint would be lost. A
      // third is someone who means it (Ctrl-C three times): what is committed is on disk, the rest is given up.
      if (received === 2) {
        process.stderr.write(`${signal}: already stopping; waiting for the requests in flight (a third: at once)\n`);
        return;
      }
      if (received >= 3) {
        process.stderr.write(`${signal}: stopping at once, without finishing the requests in flight\n`);
        process.exit(1);
      }
      process.stderr.write(`${signal}: draining and stopping\n`);
      // Bounded: a model answering a learning analysis slowly must not keep the process up for ever.
      setTimeout(() => {
        process.stderr.write(`still stopping after ${SHUTDOWN_LIMIT_MS / 1000} s: stopping at once\n`);
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS).unref();
      server.close().then(resolve, (e) => {
        failure = (e as Error).message;
        resolve();
      });
    };
    // SIGTERM, SIGINT, and SIGHUP: the terminal of a foreground server closing (an SSH session ending) sends it,
    // and Node's default ended the process at once, the requests in flight cut and the counters kept in memory
    // lost. It drains like SIGTERM.
    signals.handOver(stop);
    // Node opens its debugger (a port any local user could attach to and run code as this user) on SIGUSR1 unless
    // the program listens for it; administrators send it to reopen logs. A listener keeps the debugger closed.
    process.on("SIGUSR1", () => process.stderr.write("SIGUSR1: ignored (this server keeps no log files to reopen)\n"));
  });
  onStdoutClosed(() =>
    process.stderr.write("standard output closed: request log lines are dropped from now on; still serving\n"),
  );
  process.stderr.write(`content-service listening on ${server.url} (data: ${dataDir}; version ${versionText()})\n`);
  // The reference page at the address clients use (--public-url), which serves it at that address's own path.
  process.stderr.write(`API reference: ${publicUrlOf(server.services.config.publicUrl, "/docs")}\n`);
  await stopped;
  if (failure !== undefined) throw new CliError(`stopping failed: ${failure}`);
  process.stderr.write("stopped\n");
}

/**
 * The longest a shutdown may take after the first signal before the process exits without finishing it; a service
 * manager's stop timeout must be longer (contrib/content-service.service, test/contrib/systemd-unit.test.ts).
 */
export const SHUTDOWN_LIMIT_MS = 60_000;

/** The upper bound of --workers: more threads than any machine this serves has cores, each with its own heap. */
const MAX_WORKERS = 64;

/** --host and --port as given (givenOption), for the messages of a listen that fails. */
interface ListenOptions {
  host: string;
  port: string;
}

/**
 * A listen's failure as the options that caused it: `cannot listen: --port 8080 (from CONTENT_SERVICE_PORT) is in
 * use`, rather than node's `listen EADDRINUSE: address already in use 127.0.0.1:8080`, which names neither the
 * option nor the variable a service's env file set. Undefined for an error that is not a listen's.
 */
function listenFailure(e: unknown, given: ListenOptions): CliError | undefined {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  const syscall = (e as NodeJS.ErrnoException | null)?.syscall;
  if (syscall !== "listen" && syscall !== "getaddrinfo") return undefined;
  const why: Record<string, string> = {
    EADDRINUSE: `${given.port} is in use (on ${given.host}): another program listens there`,
    EADDRNOTAVAIL: `${given.host} is not an address of this machine`,
    ENOTFOUND: `${given.host} is a host name that does not resolve`,
    EAI_AGAIN: `${given.host} could not be resolved (the name server did not answer)`,
    EACCES: `${given.port} needs privileges this user lacks (ports below 1024), on ${given.host}`,
    EAFNOSUPPORT: `${given.host}: this machine has no IPv6`,
  };
  const reason = code !== undefined ? why[code] : undefined;
  return new CliError(
    `cannot listen: ${reason ?? `${given.host}, ${given.port}: ${(e as Error).message.replace(/^listen \w+: /, "")}`}`,
  );
}

/**
 * Binds host:port and lets go at once: fails as the server's listen would (EADDRINUSE, EADDRNOTAVAIL, EACCES,
 * ENOTFOUND).
 */
async function probeListen(host: string, port: number, given: ListenOptions): Promise<void> {
  // Port 0 too (any free port): the address is checked all the same (a name that does not resolve, an address not
  // this machine's), before the first start's credentials are made.
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", (e) => reject(listenFailure(e, given) ?? e));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * Whether a cron expression node-cron refuses is well formed but names a day no month it lists has (`0 3 30 2 *`, the
 * 30th of February): it passes with its day of the month made `*`, and again with its month made `*`. Told apart
 * from a malformed one, so that the message does not say it is not a cron expression at all.
 */
export function neverFires(value: string): boolean {
  const fields = value.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return false;
  const day = fields.length - 3;
  const starred = (i: number) => fields.map((f, j) => (j === i ? "*" : f)).join(" ");
  return cron.validate(starred(day)) && cron.validate(starred(day + 1));
}
