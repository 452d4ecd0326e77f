/**
 * Forward-only numbered migrations, each applied in a transaction and recorded: SQLite's from sql/, PostgreSQL's from
 * sql/postgres/ (one file of the same name for each, kept equal by test/db/pg/schema.test.ts).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sourceRoot } from "../runtime/assets.js";
import type { SqlConnection } from "./connection.js";
import { recountUnknownStorage } from "./storage.js";

/** One migration file: its number, name and SQL text. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

declare const __CS_EMBEDDED_MIGRATIONS__: { name: string; sql: string }[] | undefined;
declare const __CS_EMBEDDED_POSTGRES_MIGRATIONS__: { name: string; sql: string }[] | undefined;

/** A connection migrations run on: the store's, and scripts of several statements. */
export type MigratingConnection = SqlConnection & { exec(sql: string): unknown };

/** A migration file's name, `0001_init.sql`; sql/ holds other entries too (sql/postgres/, its README). */
const MIGRATION_FILE = /^\d{4}_[\w-]+\.sql$/;

/** Parses `0001_init.sql` style names into a sorted, gap-checked list. */
export function parseMigrations(files: { name: string; sql: string }[]): Migration[] {
  const list = files
    .filter((f) => MIGRATION_FILE.test(f.name))
    .map((f) => ({ version: Number(f.name.slice(0, 4)), name: f.name, sql: f.sql }))
    .sort((a, b) => a.version - b.version);
  list.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration numbering has a gap or duplicate at ${m.name}`);
  });
  return list;
}

/**
 * The migrations this program knows for a connection's engine: embedded by the build, or read from sql/ (or
 * sql/postgres/) when run from source.
 */
export function knownMigrations(db?: SqlConnection): Migration[] {
  const postgres = db?.dialect === "postgres";
  const embedded = postgres
    ? typeof __CS_EMBEDDED_POSTGRES_MIGRATIONS__ !== "undefined" && __CS_EMBEDDED_POSTGRES_MIGRATIONS__
    : typeof __CS_EMBEDDED_MIGRATIONS__ !== "undefined" && __CS_EMBEDDED_MIGRATIONS__;
  if (embedded) return parseMigrations(embedded);
  const dir = path.join(sourceRoot(), postgres ? "sql/postgres" : "sql");
  const names = readdirSync(dir).filter((name) => MIGRATION_FILE.test(name));
  return parseMigrations(names.map((name) => ({ name, sql: readFileSync(path.join(dir, name), "utf8") })));
}

function checksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/** Thrown when the database holds migrations this program does not know, or in another order. */
export class MigrationMismatchError extends Error {}

/** A connection that says what it reads: a SQLite file's name, a PostgreSQL database's URL without its password. */
type NamedConnection = SqlConnection & { readonly name: string };

/** The file a connection reads, named as the user gave it: a read-only one's URI (`file:///…?immutable=1`) as a path. */
export function fileOf(db: NamedConnection): string {
  const name = db.name;
  if (db.dialect === "postgres") return name;
  return name.startsWith("file:") ? fileURLToPath(name.replace(/\?.*$/s, "")) : name;
}

/** How each engine lists its own tables: whether the migrations' record is there, and any table at all. */
const CATALOG = {
  sqlite: {
    tracked: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
    anyTable: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' LIMIT 1",
    elsewhere: "move it away or choose another --data-dir",
  },
  postgres: {
    tracked:
      "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'",
    anyTable: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() LIMIT 1",
    elsewhere: "give --database-url a database of its own",
  },
};

/** Checks the applied migrations against the known ones; returns those still to apply. */
export function pendingMigrations(
  db: MigratingConnection & NamedConnection,
  known: Migration[] = knownMigrations(db),
): Migration[] {
  // Every refusal names the file (README: a database a command cannot use is named in that line).
  // A database with tables but no record of migrations is another program's (a file named content-service.db by
  // mistake): migrating it mixed this schema into it and made an account there.
  const catalog = CATALOG[db.dialect ?? "sqlite"];
  const tracked = db.prepare(catalog.tracked).get();
  if (!tracked) {
    const other = db.prepare(catalog.anyTable).get() as { name: string } | undefined;
    if (other)
      throw new MigrationMismatchError(
        `${fileOf(db)} is not a content-service database (it has tables, e.g. ${JSON.stringify(other.name)}, but no ` +
          `schema_migrations); refusing to use it: ${catalog.elsewhere}`,
      );
  }
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = db.prepare("SELECT version, name, checksum FROM schema_migrations ORDER BY version").all() as {
    version: number;
    name: string;
    checksum: string;
  }[];
  applied.forEach((row, i) => {
    const k = known[i];
    if (row.version !== i + 1 || !k)
      throw new MigrationMismatchError(
        `${fileOf(db)} has migration ${row.name}, which this program does not know (is it newer?); refusing to start`,
      );
    if (k.version !== row.version || k.name !== row.name || checksum(k.sql) !== row.checksum)
      throw new MigrationMismatchError(
        `${fileOf(db)}: applied migration ${row.name} differs from this program's ${k.name}; refusing to start`,
      );
  });
  return known.slice(applied.length);
}

/**
 * Applies every pending migration and returns the names applied. On SQLite each in its own transaction. On
 * PostgreSQL, where several servers may start at once on one database, the check and every migration are one write
 * transaction: its lock (db/pg/connection.ts) makes a second server wait, then find nothing pending.
 */
export function migrate(db: MigratingConnection & NamedConnection, known: Migration[] = knownMigrations(db)): string[] {
  if (db.dialect === "postgres") return db.transaction(() => applyPending(db, known))();
  return applyPending(db, known);
}

function applyPending(db: MigratingConnection & NamedConnection, known: Migration[]): string[] {
  const pending = pendingMigrations(db, known);
  const record = db.prepare("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)");
  for (const m of pending) {
    // Inside PostgreSQL's one transaction each migration is a savepoint of it (SqlTransaction's nesting).
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, checksum(m.sql), new Date().toISOString());
    }).immediate();
  }
  // What a migration adds as "not counted yet" is counted once its schema is in place (storage.ts).
  if (pending.length > 0) recountUnknownStorage(db);
  return pending.map((m) => m.name);
}
