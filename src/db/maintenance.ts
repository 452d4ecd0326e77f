/** The SQL of `restore` (cli/maintenance.ts): a backup's checks, its copy into place, and the old database's settling. */
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
