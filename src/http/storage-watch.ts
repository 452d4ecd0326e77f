/**
 * Whether the disk holding the database is full, for /readyz: a write that met SQLITE_FULL marks it so (the error
 * path notifies), and it is cleared when the data directory's file system has room again, at least 16 MiB free, asked
 * of fs.statfs when readiness is asked and only while marked full. A load balancer then sends no more writes that
 * would each fail with 507 until an operator has made room, and takes the server back without a restart.
 */
import { statfs } from "node:fs/promises";
import type { StoreWriter } from "../domain/writer.js";
import { isStorageFull } from "./errors.js";

/** The free space (bytes available to this process) under which the disk still counts as full. */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;

/** What fs.statfs answers that the watch reads. */
export interface FsStats {
  bavail: number | bigint;
  bsize: number | bigint;
}

export type Statfs = (dir: string) => Promise<FsStats>;

export class StorageWatch {
  private full = false;
  /** Counts the notes: a write that failed while a statfs was under way keeps the mark that statfs would clear. */
  private notes = 0;
  /** The statfs under way: readiness probes arriving together share it. */
  private checking: Promise<boolean> | undefined;

  /**
   * @param dir the data directory; undefined for an in-memory database (tests), whose state only notes change.
   * @param stat fs.statfs, or a fake in tests.
   */
  constructor(
    private readonly dir: string | undefined,
    private readonly stat: Statfs = statfs,
  ) {}

  /** A write failed for want of room (SQLITE_FULL). */
  noteFull(): void {
    this.full = true;
    this.notes++;
  }

  /** A write or a job failed: noted when for want of room (SQLITE_FULL), as noteFull. */
  noteIfFull(e: unknown): void {
    if (isStorageFull(e)) this.noteFull();
  }

  /**
   * Whether the disk is still full: false at once unless a write met a full disk; then the file system is asked,
   * and room again (MIN_FREE_BYTES free) clears it. A statfs that fails leaves it as it was.
   */
  async isFull(): Promise<boolean> {
    if (!this.full || this.dir === undefined) return this.full;
    this.checking ??= this.check(this.dir).finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async check(dir: string): Promise<boolean> {
    const notes = this.notes;
    try {
      const s = await this.stat(dir);
      if (BigInt(s.bavail) * BigInt(s.bsize) >= BigInt(MIN_FREE_BYTES) && notes === this.notes) this.full = false;
    } catch {
      // Nothing learnt: the disk counts as full until a statfs says otherwise.
    }
    return this.full;
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
