/** The SQL of backups and `restore`: a copy's checks, the copy itself, and a database's settling (db/backup-copy.ts, cli/maintenance.ts). */
import type { Db } from "./open.js";

/** SQLite's integrity check of the whole database: "ok", or its findings. */
export function integrityCheck(db: Db): unknown {
  return db.pragma("integrity_check", { simple: true });
}

/** Whether the database has the table of applied migrations, which every content-service database has. */
export function hasMigrationsTable(db: Db): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined
  );
}

/** Copies the database into `file`, a new one, as one consistent snapshot: what a WAL beside it holds included. */
export function vacuumInto(db: Db, file: string): void {
  db.prepare("VACUUM INTO ?").run(file);
}

/** Moves everything the WAL holds into the database file and empties the WAL. */
export function checkpointTruncate(db: Db): void {
  db.pragma("wal_checkpoint(TRUNCATE)");
}

/** Switches `db` to a rollback journal, so that no -wal or -shm file stays beside its file once it is closed. */
export function useRollbackJournal(db: Db): void {
  db.pragma("journal_mode = DELETE");
}
