/**
 * The SQL of the data directory's lock files (cli/lock.ts holds the rules): a connection that never waits, an
 * exclusive hold that records its holder, and a shared hold. The kernel's advisory locks SQLite takes are the lock.
 */
import Database from "better-sqlite3";
import { sqliteNativeBinding } from "../runtime/assets.js";

/** An open lock file, whose connection holds its lock until it closes. */
export interface LockConnection {
  /**
   * Takes the file exclusively and keeps it (locking mode EXCLUSIVE: the first write's lock stays until the
   * connection closes), recording `pid` in a holder row and in the header's user_version, which another process reads
   * from the file's first 100 bytes; throws SQLITE_BUSY while another connection holds it.
   */
  holdExclusive(pid: number, startedAt: string): void;
  /** Holds a shared lock (an open read transaction); throws SQLITE_BUSY while an exclusive holder has it. */
  holdShared(): void;
  /** Closes the connection, which releases its lock. */
  close(): void;
}

/** Opens a lock file's connection, which never waits for a lock (busy_timeout 0); throws what SQLite's open throws. */
export function openLockConnection(file: string): LockConnection {
  const nativeBinding = sqliteNativeBinding();
  const db = new Database(file, nativeBinding ? { nativeBinding: nativeBinding as string } : {});
  db.pragma("busy_timeout = 0");
  return {
    holdExclusive(pid, startedAt) {
      db.pragma("locking_mode = EXCLUSIVE");
      db.exec("BEGIN EXCLUSIVE");
      db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, started_at TEXT NOT NULL)");
      db.exec("DELETE FROM holder");
      db.prepare("INSERT INTO holder (pid, started_at) VALUES (?, ?)").run(pid, startedAt);
      db.pragma(`user_version = ${pid}`);
      db.exec("COMMIT");
    },
    holdShared() {
      db.exec("BEGIN");
      db.prepare("SELECT count(*) FROM sqlite_master").get();
    },
    close: () => db.close(),
  };
}
