/**
 * The data directory's locks, both held through the kernel's advisory locks on small SQLite files, which the kernel
 * releases when the process ends, however it ends (kill -9 included): a crash leaves no stale lock behind; the files
 * themselves stay and are reused.
 *
 * - `<data-dir>/server.lock`: one `serve` per data directory, and no `restore` under a running server. Held in
 *   exclusive locking mode: its first write takes SQLite's exclusive lock and keeps it until the connection closes.
 * - `<data-dir>/maintenance.lock`: no other command during a `restore`. Every command that opens the database holds a
 *   shared lock on it (a read transaction) while it runs; `restore` takes it exclusively, so it is refused while a
 *   command runs, and a command started during a restore is refused rather than writing into the file being
 *   replaced.
 *
 * An exclusive holder's pid goes into its write (the header's user_version, which another process reads from the
 * file's first 100 bytes while it cannot lock the file: advisory locks do not stop read()).
 */
import { chownSync, closeSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { sqliteNativeBinding } from "../runtime/assets.js";

/** The server lock's file name inside a data directory. */
export const LOCK_FILE = "server.lock";
/** The maintenance lock's file name inside a data directory. */
export const MAINTENANCE_LOCK_FILE = "maintenance.lock";

/** Another process holds a lock this one needs. */
export class LockHeldError extends Error {
  constructor(
    readonly dir: string,
    /** The exclusive holder's pid, when the lock is held exclusively. */
    readonly pid: number | undefined,
  ) {
    super(`another server is using ${dir}${pid ? ` (pid ${pid})` : ""}`);
  }
}

/** A held lock. */
export interface ServerLock {
  /** Releases it (closing the connection); harmless twice. */
  release(): void;
}

// Held here as well as by the caller: a connection nothing refers to any more is closed when collected, which
// releases the lock.
const held = new Set<Database.Database>();

/** The pid recorded by an exclusive holder (the header's user_version), or undefined. */
function holderPid(file: string): number | undefined {
  try {
    const fd = openSync(file, "r");
    try {
      const header = Buffer.alloc(100);
      if (readSync(fd, header, 0, 100, 0) < 100) return undefined;
      const pid = header.readUInt32BE(60);
      return pid > 0 ? pid : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function isBusy(e: unknown): boolean {
  return Boolean((e as { code?: string }).code?.startsWith("SQLITE_BUSY"));
}

/** Opens (creating) a lock file; root gives a new one to the data directory's owner, so the service's user can lock it. */
function openLockFile(dataDir: string, name: string): { db: Database.Database; file: string } {
  const file = path.join(dataDir, name);
  const nativeBinding = sqliteNativeBinding();
  let db: Database.Database;
  try {
    db = new Database(file, nativeBinding ? { nativeBinding: nativeBinding as string } : {});
  } catch (e) {
    throw new Error(`cannot open the lock file ${file}: ${(e as Error).message}`);
  }
  if (process.getuid?.() === 0) {
    try {
      const dir = statSync(dataDir);
      const own = statSync(file);
      if (own.uid !== dir.uid || own.gid !== dir.gid) chownSync(file, dir.uid, dir.gid);
    } catch {
      // Left as it is: a lock file root alone can take is refused with a clear message later.
    }
  }
  db.pragma("busy_timeout = 0");
  return { db, file };
}

function keep(db: Database.Database): ServerLock {
  held.add(db);
  return {
    release() {
      if (!held.delete(db)) return;
      db.close();
    },
  };
}

/** Takes a lock file exclusively for this process (never waits), recording its pid; throws LockHeldError. */
function holdExclusive(dataDir: string, name: string): ServerLock {
  mkdirSync(dataDir, { recursive: true });
  const { db, file } = openLockFile(dataDir, name);
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, started_at TEXT NOT NULL)");
    db.exec("DELETE FROM holder");
    db.prepare("INSERT INTO holder (pid, started_at) VALUES (?, ?)").run(process.pid, new Date().toISOString());
    db.pragma(`user_version = ${process.pid}`);
    db.exec("COMMIT");
  } catch (e) {
    db.close();
    // A shared holder records nothing: the pid in the file is then an earlier exclusive holder's.
    if (isBusy(e)) throw new LockHeldError(dataDir, name === LOCK_FILE ? holderPid(file) : undefined);
    throw new Error(`cannot lock ${file}: ${(e as Error).message}`);
  }
  return keep(db);
}

/** Takes the data directory's server lock for this process, or throws LockHeldError (never waits). */
export function acquireServerLock(dataDir: string): ServerLock {
  return holdExclusive(dataDir, LOCK_FILE);
}

/** Takes the maintenance lock exclusively (restore), or throws LockHeldError while a command holds it (never waits). */
export function acquireRestoreLock(dataDir: string): ServerLock {
  return holdExclusive(dataDir, MAINTENANCE_LOCK_FILE);
}

/**
 * Holds the maintenance lock shared while a command works on the database; throws LockHeldError, with the restore's
 * pid, while a restore runs (never waits).
 */
export function holdCommandLock(dataDir: string): ServerLock {
  const { db, file } = openLockFile(dataDir, MAINTENANCE_LOCK_FILE);
  try {
    db.exec("BEGIN");
    db.prepare("SELECT count(*) FROM sqlite_master").get();
  } catch (e) {
    db.close();
    if (isBusy(e)) throw new LockHeldError(dataDir, holderPid(file));
    throw new Error(`cannot lock ${file}: ${(e as Error).message}`);
  }
  return keep(db);
}
