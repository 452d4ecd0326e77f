/** The SQL of a backup's copy and of its check (jobs/backups.ts copyDatabase and checkCopy run them). */
import type { Db } from "./open.js";

/**
 * Copies the database of `db` into `file` with VACUUM INTO: one read transaction, so the copy is a consistent
 * snapshot whatever other connections commit meanwhile. `file` must not hold a database (an empty file will do).
 */
export function vacuumInto(db: Db, file: string): void {
  db.prepare("VACUUM INTO ?").run(file);
}

/** Switches `db` to a rollback journal, so that no -wal or -shm file stays beside its file once it is closed. */
export function useRollbackJournal(db: Db): void {
  db.pragma("journal_mode = DELETE");
}

/** SQLite's integrity check of `db`: "ok", or the first problem it found. */
export function integrityCheck(db: Db): unknown {
  return db.pragma("integrity_check", { simple: true });
}
