/**
 * WAL checkpoints on another thread. The server's connection never checkpoints (wal_autocheckpoint = 0, see
 * open.ts): a checkpoint copies the WAL's pages into the database file and fsyncs it, 5–20 ms under a write load, and
 * SQLite runs it inside whichever COMMIT crosses the threshold, on the HTTP thread. Instead a connection of its own,
 * on a worker thread, runs a PASSIVE checkpoint every `everyMs`: it copies what no reader still needs and waits for
 * no lock, while the server keeps reading and writing. Readers and writers of the other connection are never blocked.
 */
import type { Logger } from "../http/log.js";
import type { WorkerPool } from "../workers/pool.js";
import { type Db, openDb } from "./open.js";

/** Which database to checkpoint, and how a worker thread loads the SQLite addon. */
export interface CheckpointInput {
  dataDir: string;
  addonFile?: string;
  /** Close this thread's connection instead (at shutdown). */
  close?: boolean;
}

/** What one checkpoint did: frames in the WAL, frames copied, and whether it had to stop short (busy). */
export interface CheckpointResult {
  busy: number;
  walFrames: number;
  checkpointed: number;
}

/** This thread's connections, one per data directory. */
const connections = new Map<string, Db>();

/** The worker task: one PASSIVE checkpoint of a data directory's database. */
export function checkpointWal(input: CheckpointInput): CheckpointResult {
  let db = connections.get(input.dataDir);
  if (input.close) {
    db?.close();
    connections.delete(input.dataDir);
    return { busy: 0, walFrames: 0, checkpointed: 0 };
  }
  if (!db) {
    db = openDb(input.dataDir, { addonFile: input.addonFile });
    connections.set(input.dataDir, db);
  }
  const [row] = db.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number; checkpointed: number }[];
  return { busy: row.busy, walFrames: row.log, checkpointed: row.checkpointed };
}

/** Runs checkpointWal on a pool every `everyMs`, one at a time. */
export class Checkpointer {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<unknown> | undefined;
  /** Checkpoints run (for tests). */
  runs = 0;

  constructor(
    private pool: WorkerPool,
    private input: CheckpointInput,
    private logger: Logger,
    private everyMs = 200,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), this.everyMs);
    this.timer.unref();
  }

  /** One checkpoint now (or the one in flight). */
  run(): Promise<unknown> {
    this.inFlight ??= this.pool
      .run("checkpointWal", this.input)
      .then(() => {
        this.runs++;
      })
      .catch((e) => this.logger.error("checkpoint failed", { error: (e as Error).message }))
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /** Stops the schedule and closes the worker's connection (the server's own close then checkpoints the rest). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
    await this.pool.run("checkpointWal", { ...this.input, close: true }).catch(() => {});
  }
}
