/**
 * Opens a data directory's database and serves the API over it until close(): the threads, the services, the
 * listening socket, the periodic jobs and the graceful shutdown, composed in startServer in that order.
 */
import { stat } from "node:fs/promises";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Checkpointer } from "../db/checkpoints.js";
import type { OpenConnection } from "../db/connection.js";
import { WalSync } from "../db/durability.js";
import { migrate } from "../db/migrate.js";
import { DB_FILE, openDb, sqliteOf } from "../db/open.js";
import { openPostgres } from "../db/pg/connection.js";
import type { DbLocation } from "../db/thread-store.js";
import { type Clock, systemClock } from "../domain/clock.js";
import { type ThreadWriter, threadWriter } from "../domain/writer.js";
import { type App, createApp } from "../http/app.js";
import type { ServerConfig, Services } from "../http/context.js";
import { createHttpServer } from "../http/node.js";
import { takeBackup } from "../jobs/backups.js";
import { oncePerPeriod, type PeriodClaim } from "../jobs/once-per-period.js";
import { type PeriodicJob, startSchedules } from "../jobs/schedules.js";
import { ROUTES } from "../routes/index.js";
import { lifecycle } from "../routes/system.js";
import { sqliteAddonFile } from "../runtime/assets.js";
import { IdleCollector } from "../runtime/idle-gc.js";
import { jsonLogger, type Logger } from "../runtime/log.js";
import { SandboxClock } from "../sandbox/clock.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../sandbox/index.js";
import { seededClock } from "../sandbox/seed.js";
import { piscinaPool, type WorkerPool } from "../workers/pool.js";
import { WRITER_NICENESS } from "../workers/worker.js";
import { createServices } from "./services.js";

/** A running server. */
export interface RunningServer {
  url: string;
  app: App;
  services: Services;
  /** The HTTP thread's connection under `services.store`, closed by close(): the store hands out no handle to it. */
  db: OpenConnection;
  /** Sandbox mode's state (its journal), when the server runs in it. */
  sandbox?: Sandbox;
  /** Stops accepting, finishes requests in flight, flushes buffers, closes the pool and the database. */
  close(): Promise<void>;
}

/** Options of `serve`. */
export interface ServeOptions {
  dataDir: string;
  /**
   * The PostgreSQL database to run on instead of the data directory's SQLite file (`serve --database-url`): several
   * servers may share it. Without it, nothing changes.
   */
  databaseUrl?: string;
  host: string;
  port: number;
  workers: number;
  config?: Partial<ServerConfig>;
  logger?: Logger;
  /** Scheduled backups: a cron expression, how many to keep, and where (default <data-dir>/backups). */
  backups?: { schedule: string; keep: number; dir?: string };
  /**
   * Where the WAL checkpoints run (default: a background thread of their own). Tests give a pool whose checkpoints
   * fail as a full disk makes them fail, which no real disk does on demand.
   */
  checkpointPool?: WorkerPool;
  /** Sandbox mode (`serve --sandbox`, src/sandbox/): without it, none of it exists. */
  sandbox?: SandboxOptions;
  /** How long a server holds a learning job it claimed (default: domain/learning/runner.ts LEASE_MS). */
  learningLeaseMs?: number;
}

/** How long an fsync about to begin waits at most for the writer thread's operations under way (db/durability.ts). */
const GATHER_MS = 2;

/**
 * What a periodic job's failure does: a line in the log, and a full disk (SQLITE_FULL: the idempotency purge, the
 * learning retries, a backup's copy) marked for /readyz, as the requests' writes mark it.
 */
export function periodicJobFailed(services: Pick<Services, "storage" | "logger">): (job: string, e: unknown) => void {
  return (job, e) => {
    services.storage.noteIfFull(e);
    services.logger.error("periodic job failed", { job, error: (e as Error).message });
  };
}

/** What startServer has started, for the steps after it and the shutdown. */
interface Started {
  options: ServeOptions;
  db: OpenConnection;
  logger: Logger;
  addonFile: string | undefined;
  location: DbLocation;
  backgroundPool: WorkerPool;
  writerPool: WorkerPool;
  passwordPool: WorkerPool;
  writer: ThreadWriter;
  services: Services;
  /** SQLite's group commit and WAL checkpoints; PostgreSQL commits durably and checkpoints itself. */
  sqlite?: { walSync: WalSync; checkpointPool: WorkerPool; checkpointer: Checkpointer };
}

/** Opens and migrates the data directory's database and serves the API until close(). */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  // libuv starts its thread pool (fsyncs of the group commit, file I/O) on first use, and new threads take the
  // priority of the thread that starts them: started here, not by a lower-priority background worker.
  await stat(options.dataDir).catch(() => {});
  // Sandbox mode's test clock is the services' clock; off it, they have the system clock as always.
  // A seeded sandbox's test clock runs over one that starts at a fixed instant and moves only when told to (seed.ts).
  const testClock =
    options.sandbox && new SandboxClock(options.sandbox.seed !== undefined ? seededClock() : systemClock);
  if (options.sandbox && options.databaseUrl)
    throw new Error("sandbox mode runs on the data directory's SQLite file only, not with --database-url");
  if (options.backups && options.databaseUrl)
    throw new Error("scheduled backups copy the data directory's SQLite file: on PostgreSQL, use its own (pg_dump)");
  const started = startServices(options, testClock);
  const sandbox = options.sandbox && testClock && startSandbox(options.sandbox, started, testClock);
  const app = sandbox ? await sandboxApp(sandbox, started) : createApp(started.services, ROUTES);
  const server = createHttpServer(app, sandbox?.listener);
  await listenOrUndo(server, started);
  started.services.learning.start();
  started.sqlite?.checkpointer.start();
  const jobs = periodicJobs(started);
  const jobFailed = periodicJobFailed(started.services);
  const stopSchedules = startSchedules(
    jobs.map((job) => acrossServers(job, started.services)),
    jobFailed,
  );
  sandbox?.clockJobs.use(jobs, jobFailed);
  const flushes = startFlushes(started.services, started.writer);
  // The garbage a burst of large answers leaves is given back once the thread is quiet (runtime/idle-gc.ts).
  const idleGc = new IdleCollector();
  idleGc.start();
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    app,
    services: started.services,
    db: started.db,
    sandbox,
    close() {
      idleGc.stop();
      closing ??= closeServer(server, started, flushes, stopSchedules);
      return closing;
    },
  };
}

/**
 * Sandbox mode over the started server: its fixtures loaded (sandbox/fixtures.ts), then the state to reset to taken,
 * in `<data-dir>/sandbox` (sandbox/states.ts).
 */
function startSandbox(options: SandboxOptions, started: Started, clock: SandboxClock): Sandbox {
  const dir = path.join(started.options.dataDir, "sandbox");
  return createSandbox(options, started.services, clock, { db: sqliteOf(started.db, "sandbox mode"), dir });
}

/**
 * The app of a sandbox, behind its gate, once its fixtures are in and its state to reset to taken; a fixture that
 * cannot be loaded closes what was started and throws (sandbox/fixtures.ts FixtureError).
 */
async function sandboxApp(sandbox: Sandbox, started: Started): Promise<App> {
  const app = createApp(started.services, [...ROUTES, ...sandbox.routes], sandbox.extension);
  try {
    sandbox.loaded = await sandbox.start(app);
  } catch (e) {
    await undoStart(started);
    throw e;
  }
  return sandbox.wrap(app);
}

/** The database, its threads (writer, background, passwords, checkpoints), the group commit and the services. */
function startServices(options: ServeOptions, clock: Clock | undefined): Started {
  // Raised by the writer thread while its transaction runs; this thread's transactions wait for it (db/open.ts).
  const writeSignal = new Int32Array(new SharedArrayBuffer(4));
  const { databaseUrl } = options;
  const db = databaseUrl
    ? openPostgres(databaseUrl)
    : openDb(options.dataDir, { groupCommit: true, writeSignal: { flag: writeSignal, role: "waiter" } });
  migrate(db);
  const logger = options.logger ?? jsonLogger();
  // The SQLite addon's file for worker threads that open the database (writer, readers, checkpoints, backups).
  const addonFile = sqliteAddonFile();
  // Requests wait for the foreground pool; learning, the graph and backup checks share one thread that runs on time
  // no request wants (niceness 10, and SCHED_IDLE where chrt is found: see workers/worker.ts).
  const backgroundPool = piscinaPool(1, { background: true, idle: true });
  // Finalizations' and background writes run on a thread of their own, with its own connection (domain/writer.ts).
  const writerPool = piscinaPool(1, { niceness: WRITER_NICENESS });
  const location = { dataDir: options.dataDir, addonFile, writeSignal, databaseUrl };
  const writer = threadWriter(writerPool, location);
  // Opened now rather than by the first write; a failure shows in the log at start.
  writer
    .run("open", undefined)
    .catch((e) => logger.error("the writer thread cannot open the database", { error: e.message }));
  const walSync = databaseUrl ? undefined : groupCommit(options.dataDir, logger, writer);
  // Password checks have a thread of their own. On the foreground pool a sign-in waited for every task queued before
  // it there (a 2048 x 2048 rendering 0.2-0.95 s, a 5 MiB reference 1.2 s). Node's async scrypt would run them on
  // libuv's four threads, which also run the group commit's fsyncs and the log's writes: a burst of sign-ins (60 ms
  // and 16 MiB each) would hold back every write's answer. One thread holds at most one core and 16 MiB at a time.
  // Started with the first sign-in, ended once idle (workers/pool.ts IDLE_TIMEOUT_MS).
  const passwordPool = piscinaPool(1, { lazy: true });
  const services = createServices({
    writer,
    location,
    db,
    // Generation and scoring use the language library: its threads load it as they start.
    pool: piscinaPool(options.workers, { warm: true }),
    passwordPool,
    backgroundPool,
    logger,
    config: options.config,
    durability: walSync,
    clock,
    learningLeaseMs: options.learningLeaseMs,
  });
  // A server's metrics also report its process (CPU, memory, event-loop lag); the harness's keep to the requests'.
  services.metrics?.collectProcessMetrics();
  return {
    ...{ options, db, logger, addonFile, location, backgroundPool, writerPool, passwordPool },
    ...{ writer, services, sqlite: walSync && sqliteUpkeep(options, walSync, location, logger, services, writer) },
  };
}

/** The group commit's and the WAL checkpoints' part of a server on the data directory's SQLite file. */
function sqliteUpkeep(
  options: ServeOptions,
  walSync: WalSync,
  location: DbLocation,
  logger: Logger,
  services: Services,
  writer: ThreadWriter,
): NonNullable<Started["sqlite"]> {
  // Checkpoints have a thread of their own: behind learning analyses they would fall behind a write load.
  const checkpointPool = options.checkpointPool ?? piscinaPool(1, { background: true });
  return { walSync, checkpointPool, checkpointer: checkpointerOf(checkpointPool, location, logger, services, writer) };
}

/**
 * The group commit, off the HTTP thread (db/durability.ts). The writer thread's operations under way join the fsync
 * about to begin (a write's answer waits up to GATHER_MS more for them).
 */
function groupCommit(dataDir: string, logger: Logger, writer: ThreadWriter): WalSync {
  return new WalSync(
    `${path.join(dataDir, DB_FILE)}-wal`,
    undefined,
    (error) =>
      logger.error("fsync of the WAL failed: writes are refused until the server restarts", { error: error.message }),
    { busy: () => writer.inFlight > 0, settled: () => writer.settled(), maxMs: GATHER_MS },
  );
}

/** The WAL checkpoints (db/checkpoints.ts), which hold the writes of both threads while they run. */
function checkpointerOf(
  pool: WorkerPool,
  location: DbLocation,
  logger: Logger,
  services: Services,
  writer: ThreadWriter,
): Checkpointer {
  return new Checkpointer(pool, location, logger, {
    writes: {
      // Writes on both threads: the HTTP thread's turns and the writer thread's queue.
      hold() {
        const turns = services.turns.hold();
        const queue = writer.hold();
        return () => {
          turns();
          queue();
        };
      },
      settled: () => writer.settled(),
    },
    // A checkpoint that meets a full disk marks /readyz, as the other background writes do; its mark clears only once
    // there is room for the -wal's pages as well (http/storage-watch.ts).
    failed: (e) => services.storage.noteIfFull(e, "checkpoint"),
    // One that copied the whole WAL needs no more room for it.
    done: (result) => services.storage.noteCheckpointDone(result),
  });
}

/** Listens on the options' host and port; when it cannot, closes what was started and throws why. */
async function listenOrUndo(server: http.Server, started: Started): Promise<void> {
  const { options } = started;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (e) {
    // A port in use or an address not this machine's: what was started goes again (its threads would keep the
    // process alive, the writer's connection open).
    await undoStart(started);
    throw e;
  }
}

/** Closes what startServices started, for a start that cannot go on. */
async function undoStart(started: Started): Promise<void> {
  const { services } = started;
  await Promise.allSettled([services.pool.close(), started.passwordPool.close(), started.writer.close()]);
  await Promise.allSettled([
    started.writerPool.close(),
    started.sqlite?.checkpointPool.close(),
    started.backgroundPool.close(),
  ]);
  started.db.close();
  started.sqlite?.walSync.close();
}

/** The periodic jobs: learning retries, the idempotency purge, and the scheduled backups when asked for. */
function periodicJobs(started: Started): PeriodicJob[] {
  const { services, writer } = started;
  const jobs: PeriodicJob[] = [
    { name: "learning-retry", expression: "* * * * *", run: () => void services.learning.retryFailed() },
    {
      name: "idempotency-purge",
      expression: "*/10 * * * *",
      run: async () => {
        await services.idempotency.purgeExpired((input) => writer.run("idempotencyPurge", input));
      },
    },
  ];
  const backups = started.options.backups;
  if (backups) jobs.push(backupJob(started, backups));
  return jobs;
}

/**
 * A scheduled job over the database's shared records runs once per period across the servers sharing it
 * (jobs/once-per-period.ts); a backup copies this server's own SQLite file, and runs on its schedule. Sandbox mode's
 * clock runs the jobs themselves, at each move of its clock.
 */
function acrossServers(job: PeriodicJob, services: Services): PeriodicJob {
  if (job.name === "backup") return job;
  return oncePerPeriod(job, periodClaim(services), () => services.clock.now());
}

/** A server's claim of a job's period: the row of the period, named with the server's id (db/periodic.ts). */
export function periodClaim(services: Services): PeriodClaim {
  return (name, period) => services.store.periodic.claim(name, period, services.learning.owner);
}

/** The scheduled backup: a copy checked and synced on the background thread, the newest `keep` kept. */
function backupJob(started: Started, backups: NonNullable<ServeOptions["backups"]>): PeriodicJob {
  const { backgroundPool, location, addonFile, services } = started;
  return {
    name: "backup",
    expression: backups.schedule,
    run: async () => {
      const dir = backups.dir ?? path.join(started.options.dataDir, "backups");
      // The copy (VACUUM INTO, a snapshot that the writer thread's commits do not restart) and the integrity check
      // each read the whole database, and the copy's fsync waits for the disk: on the background thread, not the
      // one answering requests.
      const copy = (tmp: string) => backgroundPool.run("copyBackup", { db: location, file: tmp });
      const check = (tmp: string) => backgroundPool.run("checkBackup", { file: tmp, addonFile });
      const sync = (tmp: string) => backgroundPool.run("syncBackup", { file: tmp });
      const leftoversRemoved = (files: string[]) => services.logger.info("backup leftovers removed", { files });
      const file = await takeBackup(copy, dir, backups.keep, { check, sync, leftoversRemoved });
      services.logger.info("backup written", { file });
    },
  };
}

/** The flushes every 5 s (key use, usage, revoked sessions); `flushing` is the one in progress, awaited at close. */
interface Flushes {
  timer: NodeJS.Timeout;
  flushing: Promise<void>;
}

/** Starts the flushes through the writer, every 5 s. */
function startFlushes(services: Services, writer: ThreadWriter): Flushes {
  const flushes: Flushes = { timer: undefined as unknown as NodeJS.Timeout, flushing: Promise.resolve() };
  flushes.timer = setInterval(() => {
    flushes.flushing = (async () => {
      try {
        await services.keyUsage.flushVia(writer);
        await services.usage.flushVia(writer);
        await writer.run("sessionsPurge", { now: new Date(services.clock.now()).toISOString() });
      } catch (e) {
        services.storage.noteIfFull(e);
        services.logger.error("flush failed", { error: (e as Error).message });
      }
    })();
  }, 5_000);
  flushes.timer.unref();
  return flushes;
}

/** Stops accepting, lets requests in flight finish (10 s at most), then stops and closes everything started. */
async function closeServer(
  server: http.Server,
  started: Started,
  flushes: Flushes,
  stopSchedules: () => unknown,
): Promise<void> {
  lifecycle.draining = true;
  clearInterval(flushes.timer);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their last request ends: close them as they do.
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  // Requests in flight get 10 s to finish; then remaining connections are cut.
  const timer = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(timer);
  clearInterval(idle);
  await stopEverything(started, flushes, stopSchedules);
}

/**
 * Every step runs though an earlier one fails (a flush hitting a full disk): the pools' threads, the writer and the
 * database would otherwise stay open, the process kept alive. The first failure is the outcome.
 */
async function stopEverything(started: Started, flushes: Flushes, stopSchedules: () => unknown): Promise<void> {
  const { services, writer } = started;
  const failures: unknown[] = [];
  const step = async (run: () => unknown) => {
    try {
      await run();
    } catch (e) {
      failures.push(e);
    }
  };
  await step(() => flushes.flushing);
  await step(() => services.keyUsage.flush());
  await step(() => stopSchedules());
  await step(() => services.learning.stop());
  await step(() => services.graph.stop());
  await step(() => services.pool.close());
  await step(() => started.passwordPool.close());
  await step(() => writer.close());
  await step(() => started.writerPool.close());
  // Last: learning jobs finishing during the stop above still count.
  await step(() => services.usage.flush());
  await step(() => started.sqlite?.checkpointer.stop());
  await step(() => started.sqlite?.checkpointPool.close());
  await step(() => started.backgroundPool.close());
  // Closing the last connection checkpoints the WAL into the database file and syncs it.
  await step(() => started.db.close());
  await step(() => started.sqlite?.walSync.close());
  await step(() => started.logger.drain?.());
  if (failures.length > 0) throw failures[0];
}
