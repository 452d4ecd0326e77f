/**
 * Whether the disk holding the database is full, for /readyz: a write that met SQLITE_FULL marks it so (the error
 * path notifies), and it is cleared when the data directory's file system has room again, asked of fs.statfs when
 * readiness is asked and only while marked full. A load balancer then sends no more writes that would each fail with
 * 507 until an operator has made room, and takes the server back without a restart.
 *
 * Room is at least 16 MiB free (MIN_FREE_BYTES). After a WAL checkpoint met the full disk it is more: the -wal's
 * size (stat when readiness is asked) on top of those 16 MiB. A checkpoint copies the WAL's pages into the database
 * file, which may grow by up to the WAL's size; the WAL can hold tens of MiB (db/open.ts, db/checkpoints.ts). With
 * 16 MiB alone readiness came back, the next checkpoint met the full disk again, and /readyz flapped.
 */
import { stat, statfs } from "node:fs/promises";
import path from "node:path";
import { DB_FILE } from "../db/open.js";
import type { StoreWriter } from "../domain/writer.js";
import { isStorageFull } from "./errors.js";

/** The free space (bytes available to this process) under which the disk still counts as full. */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;

/** What fs.statfs answers that the watch reads. */
export interface FsStats {
  bavail: number | bigint;
  bsize: number | bigint;
}

/** fs.statfs as the watch calls it (a fake in tests). */
export type Statfs = (dir: string) => Promise<FsStats>;

/** A file's size in bytes, 0 where there is no such file (fs.stat's, or a fake in tests). */
export type FileSize = (file: string) => Promise<number>;

/** fs.stat's size of a file; 0 where there is none (no -wal: a checkpoint has nothing to copy). */
export async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw e;
  }
}

/** What marked the disk full: a write (a request's or a background one), or a WAL checkpoint. */
export type FullFrom = "write" | "checkpoint";

/** What /readyz reports: whether the disk counts as full, and the free bytes that would clear it. */
export interface StorageState {
  full: boolean;
  requiredFreeBytes: number;
}

/** Whether the disk counts as full, marked by a failed write or checkpoint and cleared once there is room again. */
export class StorageWatch {
  private full = false;
  /** Whether a checkpoint met the full disk since the mark was last cleared: the room needed then counts the -wal. */
  private checkpointFull = false;
  /** The free bytes the last check required (MIN_FREE_BYTES until a check measured the -wal). */
  private required = MIN_FREE_BYTES;
  /** Counts the notes: a write that failed while a statfs was under way keeps the mark that statfs would clear. */
  private notes = 0;
  /** The check under way: readiness probes arriving together share it. */
  private checking: Promise<StorageState> | undefined;

  /**
   * @param dir the data directory; undefined for an in-memory database (tests), whose state only notes change.
   * @param stat fs.statfs, or a fake in tests.
   * @param size a file's size (the -wal's), fileSize, or a fake in tests.
   */
  constructor(
    private readonly dir: string | undefined,
    private readonly stat: Statfs = statfs,
    private readonly size: FileSize = fileSize,
  ) {}

  /** A write (or, `from` says, a WAL checkpoint) failed for want of room (SQLITE_FULL). */
  noteFull(from: FullFrom = "write"): void {
    this.full = true;
    if (from === "checkpoint") this.checkpointFull = true;
    this.notes++;
  }

  /**
   * A WAL checkpoint got through: one that copied every frame of the WAL has no pages left to place, so the room a
   * checkpoint's failure asked for (the -wal's size) is no longer needed; 16 MiB free still is, while the mark stands.
   * Without it the margin stayed until that much was free: a -wal that a checkpoint has copied keeps its size (a PASSIVE
   * checkpoint does not shrink it, and it is cut back only to 64 MiB when it starts over), so /readyz could answer 503
   * on a disk where writes and checkpoints worked again.
   */
  noteCheckpointDone(result: { walFrames: number; checkpointed: number }): void {
    if (result.checkpointed === result.walFrames) this.checkpointFull = false;
  }

  /** A write, a job or (`from` says) a WAL checkpoint failed: noted when for want of room (SQLITE_FULL), as noteFull. */
  noteIfFull(e: unknown, from: FullFrom = "write"): void {
    if (isStorageFull(e)) this.noteFull(from);
  }

  /** Whether the disk is still full (as state()). */
  async isFull(): Promise<boolean> {
    return (await this.state()).full;
  }

  /**
   * Whether the disk is still full, and the free bytes that would clear it: not full at once unless a write met a
   * full disk; then the file system is asked, and room again (the required bytes free) clears it. The required bytes
   * are MIN_FREE_BYTES, and the -wal's size on top of them after a checkpoint met the full disk. A statfs or a stat
   * of the -wal that fails leaves it as it was.
   */
  async state(): Promise<StorageState> {
    if (!this.full || this.dir === undefined) return { full: this.full, requiredFreeBytes: this.required };
    this.checking ??= this.check(this.dir).finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async check(dir: string): Promise<StorageState> {
    const notes = this.notes;
    try {
      // The -wal is measured first: a checkpoint noted during the statfs changes `notes`, and keeps the mark anyway.
      const wal = this.checkpointFull ? await this.size(path.join(dir, `${DB_FILE}-wal`)) : 0;
      this.required = MIN_FREE_BYTES + wal;
      const s = await this.stat(dir);
      if (BigInt(s.bavail) * BigInt(s.bsize) >= BigInt(this.required) && notes === this.notes) {
        this.full = false;
        this.checkpointFull = false;
      }
    } catch {
      // Nothing learnt: the disk counts as full until a statfs (and a stat of the -wal) says otherwise.
    }
    return { full: this.full, requiredFreeBytes: this.required };
  }
}

/**
 * `writer` with its writes that fail reported to `noteIfFull` (StorageWatch.noteIfFull): the background writes through
 * it (learning jobs, the knowledge graph, an idempotent response's store) mark the disk full for /readyz where they
 * meet a full disk, and none of them has to remember to.
 */
export function noticingFullDisk(writer: StoreWriter, noteIfFull: (e: unknown) => void): StoreWriter {
  return {
    run: ((op, input, transfer) =>
      writer.run(op, input, transfer).catch((e: unknown) => {
        noteIfFull(e);
        throw e;
      })) as StoreWriter["run"],
  };
}
