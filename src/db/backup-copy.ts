/**
 * The copy and the check of a backup, run on a worker thread (workers/tasks.ts) by the scheduled backups
 * (jobs/backups.ts) and on the calling thread by `backup` (cli/maintenance.ts).
 */
import { closeSync, openSync, statSync } from "node:fs";
import path from "node:path";
import { systemErrorReason } from "../runtime/system-errors.js";
import { integrityCheck, useRollbackJournal, vacuumInto } from "./maintenance.js";
import { DB_FILE, isDamagedDatabase, markImmutableRead, openDb, openReadOnly, readsImmutable } from "./open.js";
import type { DbLocation } from "./thread-store.js";

/**
 * The worker task of a backup: copies a data directory's database into `file` (which must not exist) with
 * `VACUUM INTO`. It reads in one transaction, so commits of other connections (the server's, the writer thread's)
 * neither change the copy nor restart it, as they restart SQLite's online backup. The connection is opened for the
 * purpose and closed. `readOnly`: opened read-only (openReadOnly), for the `backup` of a data directory this user
 * cannot write; VACUUM INTO only reads its database, and nothing is created beside it.
 */
export function copyDatabase(location: DbLocation, file: string, readOnly = false): void {
  const db = readOnly ? openReadOnly(location.dataDir) : openDb(location.dataDir, { addonFile: location.addonFile });
  const immutable = readsImmutable(db);
  // Taken once the open has chosen to read without locks, so that a -wal gone just before it is not a change.
  const before = immutable ? databaseFingerprint(location.dataDir) : undefined;
  try {
    // The copy holds what the database holds (password and key hashes, the session signing secret): it is created
    // for its owner alone (0600), not with the umask's 0644, and VACUUM INTO fills it.
    closeSync(openSync(file, "wx", 0o600));
    vacuumInto(db, file);
  } catch (e) {
    // A damaged database is the database's failure; anything else here (a full disk, a folder this user cannot
    // write) is the copy's.
    if (isDamagedDatabase(e)) throw immutable ? markImmutableRead(e) : e;
    throw new BackupTargetError(file, e);
  } finally {
    db.close();
  }
  // Read as immutable, without locks (no -wal beside the database, and this user may not make the -shm): a server
  // that started meanwhile could have changed pages under the copy, and a copy whose rows disagree can still pass the
  // integrity check. The file and its companions must be as they were before the copy began.
  if (immutable && before !== databaseFingerprint(location.dataDir))
    throw markImmutableRead(
      Object.assign(new Error("it or the files beside it changed while it was copied"), {
        code: "SQLITE_CORRUPT",
      }),
    );
}

/**
 * What changes when anything writes a data directory's database: the file's inode, size and modification time (in
 * nanoseconds), and whether a -wal, -shm or -journal lies beside it. Best effort: a write within one tick of the
 * file system's clock that keeps the size is not seen.
 */
export function databaseFingerprint(dataDir: string): string {
  const file = path.join(dataDir, DB_FILE);
  const parts: string[] = [];
  for (const name of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`])
    try {
      const s = statSync(name, { bigint: true });
      parts.push(`${s.ino}:${s.size}:${s.mtimeNs}`);
    } catch {
      parts.push("-");
    }
  return parts.join("|");
}

/** A backup that could not be written where it was to go: `reason` says why, without the file's name. */
export class BackupTargetError extends Error {
  readonly reason: string;
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    const reason = systemErrorReason(cause) ?? (cause as Error).message ?? String(cause);
    super(`cannot write ${file}: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Makes a copy self-contained (rollback journal, so no -wal/-shm files travel beside it) and checks its integrity;
 * throws when the check fails.
 */
export function checkCopy(file: string, addonFile?: string): void {
  const copy = openDb(path.dirname(file), { file: path.basename(file), addonFile, mustExist: true });
  try {
    useRollbackJournal(copy);
    const result = integrityCheck(copy);
    if (result !== "ok") throw new Error(`the backup failed its integrity check: ${String(result)}`);
  } finally {
    copy.close();
  }
}
