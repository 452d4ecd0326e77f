/**
 * Durable answers without an fsync on the HTTP thread (group commit).
 *
 * A write is acknowledged only once it is on disk. With `synchronous = FULL` SQLite fsyncs the WAL inside every
 * COMMIT, on the thread that commits: under a write load that put a 1–15 ms disk wait into the HTTP thread once per
 * write, and every request queued behind it waited too. The server instead commits with `synchronous = NORMAL`
 * (the commit writes the WAL, without an fsync) and, before answering a write, awaits `sync()`: an fsync of the WAL
 * file on libuv's thread pool. Writes that finish while an fsync is running share the next one. A WAL commit is on
 * disk once the WAL file is: the transaction is durable before its answer leaves, as with FULL, and the HTTP thread
 * never waits for the disk. The writer thread's connection (domain/writer.ts) commits the same way: the fsync of the
 * WAL file covers its commits too, whichever connection wrote them. (Checkpoints, which also fsync, run on another
 * thread: see checkpoints.ts.)
 *
 * Under a write load each fsync would cover about one commit (an fsync takes about as long as a finalization), and
 * each is a journal commit and a cache flush of the disk: ~1,000 a second. While the writer thread still has
 * operations under way, an fsync about to begin waits for them (`gather`, at most `maxMs`): once they have ended, and
 * their callers have asked for the sync (one macrotask later: the callers go on in microtasks), it begins and covers
 * their commits. A write while the writer thread is idle waits for nothing. The WAL is synced with fdatasync: a
 * commit changes its data (and its size when it grows); fdatasync leaves out only what reading it back does not
 * need (its times). (SQLite's own build here would fsync: it uses fdatasync only where built with HAVE_FDATASYNC.)
 */
import fs from "node:fs";

/** What the pipeline awaits before answering a write. */
export interface Durability {
  /** Resolves once every transaction committed before the call is on disk. */
  sync(): Promise<void>;
}

/** For in-memory databases and tests: nothing to wait for. */
export const alreadyDurable: Durability = { sync: () => Promise.resolve() };

/** The file operations WalSync uses (tests replace them). `fsync` syncs the file's data (fdatasync). */
export interface SyncFs {
  open(file: string, callback: (error: NodeJS.ErrnoException | null, fd: number) => void): void;
  fsync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
}

const nodeFs: SyncFs = {
  open: (file, callback) => fs.open(file, "r+", callback),
  fsync: (fd, callback) => fs.fdatasync(fd, callback),
};

/** Commits about to come: an fsync about to begin waits for `settled` (at most `maxMs`) so that they join it. */
export interface Gather {
  /** Whether more commits are under way (the writer thread has operations running or queued). */
  busy(): boolean;
  /** Resolves once they have ended. */
  settled(): Promise<void>;
  maxMs: number;
}

/** One macrotask: the microtasks queued before it (the callers of an operation that just ended) have run. */
const afterMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Group fsyncs of a database's WAL file. */
export class WalSync implements Durability {
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  /** The fsync in `running` while it has not begun (gathering): a commit made now is covered by it. */
  private gathering = false;
  private next: Promise<void> | undefined;
  private failure: Error | undefined;
  /** Syncs of the WAL file done (fdatasync; for tests and the log). */
  syncs = 0;

  constructor(
    private walFile: string,
    private files: SyncFs = nodeFs,
    private onFailure: (error: Error) => void = () => {},
    private gather?: Gather,
  ) {}

  sync(): Promise<void> {
    // After a failed fsync the kernel may have dropped the pages it could not write and report the next fsync as a
    // success: nothing written since can be acknowledged. Every later write fails until a restart, whose recovery
    // reads what is really on disk.
    if (this.failure) return Promise.reject(this.failure);
    if (!this.running) {
      this.running = this.gatherThenFsync().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    // An fsync that has not begun covers every commit made before it begins.
    if (this.gathering) return this.running;
    // The fsync in flight may have begun before the caller's commit: the caller needs the one after it, which every
    // caller arriving meanwhile shares.
    this.next ??= this.running
      .catch(() => {})
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  /** Closes the file (after the database is closed). */
  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private async gatherThenFsync(): Promise<void> {
    const gather = this.gather;
    if (gather?.busy()) {
      this.gathering = true;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          gather.settled().then(afterMicrotasks),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, gather.maxMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        // From here a new commit may land after the fsync has begun: it needs the next one.
        this.gathering = false;
      }
    }
    return this.fsyncOnce();
  }

  private async fsyncOnce(): Promise<void> {
    if (this.fd === undefined) {
      const opened = await new Promise<number | undefined>((resolve, reject) =>
        this.files.open(this.walFile, (error, fd) => {
          // No WAL file: nothing has been written since the last checkpoint removed it; nothing to sync.
          if (error?.code === "ENOENT") resolve(undefined);
          else if (error) reject(error);
          else resolve(fd);
        }),
      );
      if (opened === undefined) return;
      this.fd = opened;
    }
    const fd = this.fd;
    await new Promise<void>((resolve, reject) =>
      this.files.fsync(fd, (error) => {
        if (!error) {
          this.syncs++;
          resolve();
          return;
        }
        if (!this.failure) {
          this.failure = error;
          this.onFailure(error);
        }
        reject(error);
      }),
    );
  }
}
