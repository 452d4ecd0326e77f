/**
 * WAL checkpoints on another thread. The server's connection does not checkpoint in the normal course (open.ts): a
 * checkpoint copies the WAL's pages into the database file and fsyncs it, 5–20 ms under a write load, and SQLite runs
 * it inside whichever COMMIT crosses the threshold, on the HTTP thread. Instead a connection of its own, on a worker
 * thread, runs a PASSIVE checkpoint every `everyMs`: it copies what no reader still needs and waits for no lock, while
 * the server keeps reading and writing.
 *
 * The WAL starts over (instead of growing) only when a write begins after a checkpoint copied every frame. Under a
 * steady write load a commit lands during nearly every checkpoint, so the WAL would grow without end. When a
 * checkpoint finds the WAL longer than `resetFrames` and longer than last time, a second one follows at once and
 * copies what landed during the first; then a third runs while the writes are held (the HTTP thread's write turns,
 * http/turns.ts, and the writer thread's queue, domain/writer.ts, once its operation in progress has ended). Writes
 * wait in line only for that third one, which has little left to copy; reads go on, and the next write starts the
 * WAL over. The server's connection keeps a distant autocheckpoint as a safety net (open.ts).
 */
import type { Logger } from "../runtime/log.js";
import type { TaskPool } from "../runtime/task-pool.js";
import { closeThreadStore, type DbLocation, threadDb } from "./thread-store.js";

/** Which database to checkpoint (and how a worker thread loads the SQLite addon). */
export interface CheckpointInput extends DbLocation {
  /** Close this thread's connection instead (at shutdown). */
  close?: boolean;
}

/** What one checkpoint did: frames in the WAL, frames copied, and whether it had to stop short (busy). */
export interface CheckpointResult {
  busy: number;
  walFrames: number;
  checkpointed: number;
}

/** The worker task: one PASSIVE checkpoint of a data directory's database, on this thread's connection. */
export function checkpointWal(input: CheckpointInput): CheckpointResult {
  if (input.close) {
    closeThreadStore(input);
    return { busy: 0, walFrames: 0, checkpointed: 0 };
  }
  const db = threadDb(input);
  const [row] = db.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number; checkpointed: number }[];
  return { busy: row.busy, walFrames: row.log, checkpointed: row.checkpointed };
}

/**
 * What the checkpointer may hold: the writes (the HTTP thread's write turns and the writer thread's queue). `hold`
 * lets no new write begin; `settled` resolves once the writes already begun have ended.
 */
export interface Holdable {
  hold(): () => void;
  settled?(): Promise<void>;
}

/** What a Checkpointer may be given beyond its pool, database and logger; each has a default. */
export interface CheckpointerOptions {
  /** The writes to hold for a checkpoint that starts the WAL over (default: none; the WAL is never started over). */
  writes?: Holdable;
  /** How often a checkpoint runs (default 200 ms). */
  everyMs?: number;
  /** The WAL frames above which a growing WAL is started over with the writes held (default 8,192). */
  resetFrames?: number;
  /** Told of each checkpoint that fails, after its log line (the server's: a full disk marks /readyz). */
  failed?: (e: unknown) => void;
  /** Told of each checkpoint that got through, with its last pass's result (the server's: /readyz's -wal margin). */
  done?: (result: CheckpointResult) => void;
}

/**
 * Runs checkpointWal on a pool every `everyMs`, one at a time. A checkpoint that fails is logged and told to `failed`:
 * the server's marks /readyz storage_full when it met a full disk (SQLITE_FULL: the database file grows as it takes
 * the WAL's pages), as the other background writes do (http/storage-watch.ts); it had only been logged.
 */
export class Checkpointer {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<unknown> | undefined;
  private lastFrames = 0;
  /** Checkpoints run, and those run with the writes held (for tests). */
  runs = 0;
  heldRuns = 0;

  private writes: Holdable | undefined;
  private everyMs: number;
  private resetFrames: number;
  private failed: (e: unknown) => void;
  private done: (result: CheckpointResult) => void;

  constructor(
    private pool: TaskPool<{ checkpointWal: typeof checkpointWal }>,
    private input: CheckpointInput,
    private logger: Logger,
    options: CheckpointerOptions = {},
  ) {
    this.writes = options.writes;
    this.everyMs = options.everyMs ?? 200;
    this.resetFrames = options.resetFrames ?? 8_192;
    this.failed = options.failed ?? (() => {});
    this.done = options.done ?? (() => {});
  }

  start(): void {
    this.timer = setInterval(() => void this.run(), this.everyMs);
    this.timer.unref();
  }

  /** One checkpoint now (or the one in flight). */
  run(): Promise<unknown> {
    this.inFlight ??= this.once().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async once(): Promise<void> {
    try {
      let result = await this.checkpoint(false);
      // The WAL holds many frames and grew since the last look: it has not started over, commits keep landing
      // between checkpoints. (An idle WAL, however long, is left alone.) One more checkpoint at once copies what
      // landed during this one, far less than a period's worth; then one with the API's writes held copies the few
      // frames left, and the next write starts the WAL over. The writes wait only for that last, short one.
      if (this.writes && result.walFrames > this.resetFrames && result.walFrames !== this.lastFrames) {
        result = await this.checkpoint(false);
        // Held only when it can help: not when the WAL started over meanwhile, nor when a reader (a backup's long
        // snapshot) keeps frames from being copied; the WAL cannot start over before that reader ends anyway.
        if (result.walFrames > this.resetFrames && result.checkpointed === result.walFrames)
          result = await this.checkpoint(true);
      }
      this.lastFrames = result.walFrames;
      this.done(result);
    } catch (e) {
      this.logger.error("checkpoint failed", { error: (e as Error).message });
      this.failed(e);
    }
  }

  /** One PASSIVE checkpoint on the pool; `held`: with the writes held, once those already begun have ended. */
  private async checkpoint(held: boolean): Promise<CheckpointResult> {
    const release = held ? this.writes?.hold() : undefined;
    try {
      // The writer thread's operation in progress ends first (the HTTP thread's writes are synchronous: none is).
      const settled = release ? this.writes?.settled?.() : undefined;
      if (settled) await settled;
      const result = (await this.pool.run("checkpointWal", this.input)) as CheckpointResult;
      this.runs++;
      if (release) this.heldRuns++;
      return result;
    } finally {
      release?.();
    }
  }

  /** Stops the schedule and closes the worker's connection (the server's own close then checkpoints the rest). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
    await this.pool.run("checkpointWal", { ...this.input, close: true }).catch(() => {});
  }
}
