/**
 * `serve` starting: the steps from the probe of its address to a server listening (a first start's initialisation,
 * the backup folder, the server's options), each followed by a check for a stop signal.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { DB_FILE } from "../../db/open.js";
import { shownUrl } from "../../db/pg/connection.js";
import { ensureBackupDir } from "../../jobs/backups.js";
import { infoLineNow, jsonLogger } from "../../runtime/log.js";
import { FixtureError } from "../../sandbox/fixtures.js";
import { SEEDED_START_MS, seedSandbox } from "../../sandbox/seed.js";
import { type RunningServer, type ServeOptions, startServer } from "../../server/start.js";
import { CliError } from "../errors.js";
import { defaultServerUrls } from "../server-urls.js";
import { type InitResult, initDatabase } from "../setup.js";
import { StartCancelled, type StopSignals } from "../stop-signals.js";
import { showFirstStart } from "./first-start.js";
import { type ListenOptions, listenFailure, probeListen, serveUntilStopped } from "./listen.js";
import type { ServeCommandOptions } from "./options.js";

/**
 * Initialises an empty data directory, serves until SIGTERM/SIGINT/SIGHUP, and drains. A signal before the server
 * listens stops the start at its next step (stop-signals.ts): exit 0, and a first start's credentials, if already
 * made, are shown all the same.
 */
export async function serve(
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
  await serveUntilStopped(server, dataDir, opts, first, signals);
}

/** The start-up steps, each followed by a check for a stop signal; the running server, listening. */
async function start(
  dataDir: string,
  opts: ServeCommandOptions,
  given: ListenOptions,
  signals: StopSignals,
  made: (first: InitResult) => void,
): Promise<RunningServer> {
  // A port in use (or an address not this machine's) fails here, before a first start makes credentials that only
  // a start that listens may show.
  await probeListen(opts.host, opts.port, given);
  await signals.checkpoint();
  const backupDir = usableBackupDir(dataDir, opts);
  if (opts.seed !== undefined) seedSandbox(opts.seed);
  const first = firstStart(dataDir, opts.databaseUrl, opts.seed !== undefined ? SEEDED_START_MS : undefined);
  made(first);
  if (!opts.databaseUrl) noteExposedDatabase(dataDir);
  await signals.checkpoint();
  const server = await listen(serverOptions(dataDir, opts, backupDir), first, dataDir, given);
  await closeIfStopped(server, signals);
  return server;
}

/**
 * The folder the scheduled backups go to, checked when backups are scheduled: a folder that cannot be used fails the
 * start, not the first scheduled run (its error a log line). Resolved once, here: the folder checked is the folder
 * the schedule writes to (an empty --backup-dir, as from an env file's CONTENT_SERVICE_BACKUP_DIR=, is the default,
 * not the working directory).
 */
function usableBackupDir(dataDir: string, opts: ServeCommandOptions): string {
  const backupDir = opts.backupDir ? path.resolve(opts.backupDir) : path.join(dataDir, "backups");
  if (opts.backupSchedule) {
    try {
      ensureBackupDir(backupDir);
    } catch (e) {
      throw new CliError(`cannot use the backup folder: ${(e as Error).message}`);
    }
  }
  return backupDir;
}

/**
 * Opens, migrates and, when empty, initialises the data directory, with a read+write key. The first open of the
 * start: its log line comes before WAL recovery, migrations and the learning jobs' resumption, the steps the crash
 * run's start-up kills are meant to cut (bench/lib/crash-core.ts).
 */
function firstStart(dataDir: string, databaseUrl: string | undefined, nowMs?: number): InitResult {
  const where = databaseUrl ? { databaseUrl: shownUrl(databaseUrl) } : { file: path.join(dataDir, DB_FILE) };
  return initDatabase(
    { dataDir, databaseUrl },
    {
      accountName: "Default account",
      plan: "business",
      adminEmail: "admin@localhost",
      withKey: true,
      nowMs,
    },
    () => infoLineNow("database opened", where),
  );
}

/** The server's options from `serve`'s; the description's URLs are placeholders until the port is known. */
function serverOptions(dataDir: string, opts: ServeCommandOptions, backupDir: string): ServeOptions {
  return {
    dataDir,
    databaseUrl: opts.databaseUrl,
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
    sandbox: opts.sandbox ? { journalSize: opts.sandboxJournal, fixtures: opts.fixture, seed: opts.seed } : undefined,
    config: {
      // Placeholders until the port is known (--port 0): set by serveUntilStopped, before any request is read.
      ...defaultServerUrls(opts.host, opts.port),
      ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
      ...(opts.stagingUrl ? { stagingUrl: opts.stagingUrl } : {}),
      timezone: opts.timezone,
      corsOrigins: opts.corsOrigin ?? [],
      metricsToken: opts.metricsToken || undefined,
      trustProxy: opts.trustProxy ?? [],
      ...modelConfig(opts),
    },
  };
}

/** The model servers' settings: the API keys come from the environment (CONTENT_SERVICE_*_API_KEY), never a flag. */
function modelConfig(opts: ServeCommandOptions): Pick<NonNullable<ServeOptions["config"]>, "llm" | "imageModel"> {
  const imageBase = opts.imageBaseUrl ?? opts.llmBaseUrl;
  return {
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
            apiKey: process.env.CONTENT_SERVICE_IMAGE_API_KEY || process.env.CONTENT_SERVICE_LLM_API_KEY || undefined,
            timeoutMs: opts.llmTimeout * 1000,
          }
        : undefined,
  };
}

/**
 * Starts the server. A listen lost between the probe and the server's own (another process took the port) fails as
 * the options that caused it, and shows the credentials a first start made: they exist now, and no later start would
 * show them.
 */
async function listen(
  options: ServeOptions,
  first: InitResult,
  dataDir: string,
  given: ListenOptions,
): Promise<RunningServer> {
  try {
    return await startServer(options);
  } catch (e) {
    showFirstStart(
      first,
      dataDir,
      jsonLogger(),
      "the server did not start; the credentials of this first start, valid nonetheless:\n",
    );
    // A record of the fixture that an operation refused (the file itself was checked before).
    if (e instanceof FixtureError) throw new CliError(`--fixtures: ${e.message}`);
    throw listenFailure(e, given) ?? e;
  }
}

/**
 * Closes the server started when a stop signal came meanwhile, and rethrows the cancel. The stop is the outcome: a
 * close that fails is said and is exit 1, as on the drain after a start, but does not take the place of the cancel
 * (serve shows the credentials made, which no later start would show).
 */
async function closeIfStopped(server: RunningServer, signals: StopSignals): Promise<void> {
  try {
    await signals.checkpoint();
  } catch (e) {
    await server.close().catch((closing) => {
      process.stderr.write(`stopping failed: ${(closing as Error).message}\n`);
      process.exitCode = 1;
    });
    throw e;
  }
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
