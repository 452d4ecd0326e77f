/**
 * The data directory's server lock: one `serve` per data directory, and no `restore` under a running server.
 *
 * `<data-dir>/server.lock` is a small SQLite database held in exclusive locking mode: its first write takes SQLite's
 * exclusive lock (a POSIX advisory lock on the file) and keeps it until the connection closes. The kernel releases
 * it when the process ends, however it ends (kill -9 included), so a crash leaves no stale lock behind; the file
 * itself stays and is reused. The holder's pid goes into the same write (a `server` table, and the header's
 * user_version, which another process reads from the file's first 100 bytes while it cannot lock the file: advisory
 * locks do not stop read()).
 */
import { closeSync, mkdirSync, openSync, readSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { sqliteNativeBinding } from "../runtime/assets.js";

/** The lock's file name inside a data directory. */
export const LOCK_FILE = "server.lock";

/** Another process holds the lock. */
export class LockHeldError extends Error {
  constructor(
    readonly dir: string,
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

/** The pid recorded by the lock's holder (the header's user_version), or undefined. */
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

/** Takes the data directory's lock for this process, or throws LockHeldError (never waits). */
export function acquireServerLock(dataDir: string): ServerLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const nativeBinding = sqliteNativeBinding();
  let db: Database.Database;
  try {
    db = new Database(file, nativeBinding ? { nativeBinding: nativeBinding as string } : {});
  } catch (e) {
    throw new Error(`cannot open the lock file ${file}: ${(e as Error).message}`);
  }
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("CREATE TABLE IF NOT EXISTS server (pid INTEGER NOT NULL, started_at TEXT NOT NULL)");
    db.exec("DELETE FROM server");
    db.prepare("INSERT INTO server (pid, started_at) VALUES (?, ?)").run(process.pid, new Date().toISOString());
    db.pragma(`user_version = ${process.pid}`);
    db.exec("COMMIT");
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code?.startsWith("SQLITE_BUSY")) throw new LockHeldError(dataDir, holderPid(file));
    throw new Error(`cannot lock ${file}: ${(e as Error).message}`);
  }
  held.add(db);
  return {
    release() {
      if (!held.delete(db)) return;
      db.close();
    },
  };
}
