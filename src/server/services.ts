/** The services of a server over a migrated database: the store, the pools, the background runners, the caches. */
import { statSync } from "node:fs";
import path from "node:path";
import type { SqlConnection } from "../db/connection.js";
import { isPostgres } from "../db/dialect.js";
import { alreadyDurable, type Durability } from "../db/durability.js";
import { DB_FILE } from "../db/open.js";
import { rowLookupsOf } from "../db/row-cache.js";
import { createStore } from "../db/store.js";
import type { DbLocation } from "../db/thread-store.js";
import { type Clock, systemClock } from "../domain/clock.js";
import { DeviceAuthorizations } from "../domain/device-auth.js";
import { enginesOf } from "../domain/generation/engines.js";
import { GraphService } from "../domain/graph.js";
import { GraphReadCache } from "../domain/graph-reads.js";
import { LEASE_MS, LearningRunner } from "../domain/learning/runner.js";
import { SessionTokens } from "../domain/sessions.js";
import { UsageCounter } from "../domain/usage.js";
import { inlineWriter, type StoreWriter } from "../domain/writer.js";
import type { ServerConfig, Services } from "../http/context.js";
import { IdempotencyKeys } from "../http/idempotency.js";
import { SharedClaims } from "../http/idempotency-claims.js";
import { KeyUsageTracker } from "../http/key-usage.js";
import { ServerMetrics } from "../http/metrics.js";
import { RateLimiter } from "../http/ratelimit.js";
import { noticingFullDisk, StorageWatch } from "../http/storage-watch.js";
import { StoredRateLimiter } from "../http/stored-ratelimit.js";
import { WriteTurns } from "../http/turns.js";
import { serverId } from "../runtime/ids.js";
import { jsonLogger, type Logger } from "../runtime/log.js";
import { inlinePool, type WorkerPool } from "../workers/pool.js";

/** Defaults of the description's servers. */
export const DEFAULT_CONFIG: ServerConfig = {
  publicUrl: "http://127.0.0.1:8080",
  stagingUrl: "http://127.0.0.1:8081",
  timezone: "UTC",
};

/** What building the services needs; everything but the database has a default. */
export interface ServiceOptions {
  db: SqlConnection;
  clock?: Clock;
  pool?: WorkerPool;
  /** The pool of password hashing and checks; default: `pool`. */
  passwordPool?: WorkerPool;
  /** The pool of work nobody waits for (learning, the graph); default: `pool`. */
  backgroundPool?: WorkerPool;
  logger?: Logger;
  config?: Partial<ServerConfig>;
  /** What a write's answer waits for (default: nothing, for connections that fsync in each commit). */
  durability?: Durability;
  /** Where finalizations' and background writes run (default: on the calling thread, over `db`). */
  writer?: StoreWriter;
  /** The database file, for worker threads to read texts from themselves (default: texts are sent to them). */
  location?: DbLocation;
  /** Whether the disk is full (default: a watch of `location`'s data directory). */
  storage?: StorageWatch;
  /** How long this server holds a learning job it claimed (default LEASE_MS; tests make it short). */
  learningLeaseMs?: number;
}

/** The bytes of a data directory's database file and its WAL; undefined for an in-memory database. */
function databaseBytes(location: DbLocation | undefined): number | undefined {
  if (!location) return undefined;
  const file = path.join(location.dataDir, DB_FILE);
  const size = (name: string) => statSync(name, { throwIfNoEntry: false })?.size ?? 0;
  return size(file) + size(`${file}-wal`);
}

/** Builds the services over a migrated database. */
export function createServices(options: ServiceOptions): Services {
  const clock = options.clock ?? systemClock;
  const store = createStore(options.db, () => clock.now());
  const metrics = new ServerMetrics({
    learningBacklog: () => store.learning.backlog(),
    databaseBytes: () => databaseBytes(options.location),
  });
  // Each pool's tasks in flight are counted (the worker-queue depth of GET /metrics).
  const given = options.pool ?? inlinePool();
  const pool = metrics.counted("foreground", given);
  const background = metrics.counted("background", options.backgroundPool ?? given);
  const logger = options.logger ?? jsonLogger();
  const config = { ...DEFAULT_CONFIG, ...options.config };
  const usage = new UsageCounter(store, clock);
  const writer = options.writer ?? inlineWriter(store);
  // The background writes (and an idempotent response's store, after its answer) go through `watched`, whose writes
  // that meet a full disk mark it for /readyz, as the requests' errors do (app.ts). services.storage is read when a
  // write fails: tests put a watch of their own in its place.
  const watched = noticingFullDisk(writer, (e) => services.storage.noteIfFull(e));
  const services: Services = {
    store,
    rows: rowLookupsOf(options.db),
    durability: options.durability ?? alreadyDurable,
    turns: new WriteTurns(),
    writer,
    clock,
    pool,
    // Without a pool of their own, password checks run on (and are counted as) the foreground pool.
    passwords: options.passwordPool ? metrics.counted("passwords", options.passwordPool) : pool,
    learning: new LearningRunner(store, background, clock, logger, usage, undefined, watched, options.location, {
      owner: serverId(),
      ms: options.learningLeaseMs ?? LEASE_MS,
    }),
    graph: new GraphService(store, background, clock, logger, watched, options.location),
    graphReads: new GraphReadCache(),
    // Servers sharing a PostgreSQL database share the buckets in it; one server on SQLite holds them in memory.
    limiter: isPostgres(options.db) ? new StoredRateLimiter(store, clock) : new RateLimiter(clock),
    sessions: new SessionTokens(store, () => clock.now()),
    deviceAuth: new DeviceAuthorizations(clock),
    keyUsage: new KeyUsageTracker(store),
    usage,
    // Several servers may share a PostgreSQL database: a duplicate on another server must wait for the first too.
    idempotency: new IdempotencyKeys(
      store,
      clock,
      logger,
      watched,
      () => services.durability.sync(),
      isPostgres(options.db) ? new SharedClaims(store, clock, logger) : undefined,
    ),
    logger,
    storage: options.storage ?? new StorageWatch(options.location?.dataDir),
    config,
    engines: enginesOf(pool, config.llm),
    location: options.location,
    metrics,
  };
  return services;
}
