/**
 * The PostgreSQL migrations (sql/postgres/, rules in its README.md) held equal to SQLite's (sql/): the same file names;
 * after every file, the same tables, columns in order, types, nullability, defaults, primary and foreign keys, indexes
 * and triggers; the same rows after the same writes through the triggers that keep counters (storage usage, graph
 * totals and queue, graph versions, id sequences), cascades included; the same rows refused; and the same data
 * migrations of rows written before them.
 * PostgreSQL comes from CONTENT_SERVICE_TEST_DATABASE_URL (a role that may create databases): each test makes a
 * database of its own there and drops it. Without the variable the tests are skipped, and with CI set they fail.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { knownMigrations, migrate } from "../../src/db/migrate.js";
import { type Db, openDb } from "../../src/db/open.js";
import { STORAGE_SIZES } from "../../src/db/storage.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SQLITE_DIR = path.join(ROOT, "sql");
const PG_DIR = path.join(ROOT, "sql", "postgres");
const DATABASE_URL = process.env.CONTENT_SERVICE_TEST_DATABASE_URL;

/** The migration files of a folder, in order. */
function migrationFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort();
}

describe("sql/postgres/", () => {
  it("holds a file of the same name for each file of sql/, and no other", () => {
    expect(migrationFiles(PG_DIR)).toEqual(migrationFiles(SQLITE_DIR));
  });
});

// BIGINT (and the NUMERIC of a sum) as numbers, as better-sqlite3 gives them: the values here are small.
const NUMBERS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 || oid === 1700
      ? Number
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

/** A database of its own on the test server, and how to drop it. */
interface PgDatabase {
  client: pg.Client;
  drop(): Promise<void>;
}

/** Creates an empty UTF8 database with a random name (the "C" collation, as the README says) and connects to it. */
async function freshDatabase(url: string): Promise<PgDatabase> {
  const name = `cs_schema_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: target.href, types: NUMBERS });
  await client.connect();
  return {
    client,
    async drop() {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}

/** Applies PostgreSQL migration files in order, each in its own transaction. */
async function applyPg(client: pg.Client, names: string[]): Promise<void> {
  for (const name of names) {
    await client.query("BEGIN");
    try {
      await client.query(readFileSync(path.join(PG_DIR, name), "utf8"));
      await client.query("COMMIT");
    } catch (e) {
      await client.query("ROLLBACK");
      throw new Error(`${name}: ${(e as Error).message}`);
    }
  }
}

/** One column as both engines are compared: PostgreSQL's type name for SQLite's declared one. */
interface Column {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
  generated: boolean;
}

/** One table's shape. */
interface Table {
  columns: Column[];
  primaryKey: string[];
  foreignKeys: string[];
  /** How many CHECK constraints it has. */
  checks: number;
}

/** An index other than a primary key's; its columns as `col`, `col DESC` or `lower(col)`. */
interface Index {
  table: string;
  columns: string[];
  unique: boolean;
  partial: boolean;
}

/**
 * A trigger's table, timing, event and `UPDATE OF` columns (sorted), whether a WHEN condition says when it runs (one
 * with a subquery is its function's test on PostgreSQL, README.md); all are FOR EACH ROW.
 */
interface Trigger {
  table: string;
  timing: string;
  event: string;
  columns: string[];
  when: boolean;
  forEachRow: boolean;
}

/** What the comparison reads of a schema. */
interface Schema {
  tables: Record<string, Table>;
  indexes: Record<string, Index>;
  triggers: Record<string, Trigger>;
}

/** SQLite's declared types and what each is on PostgreSQL (information_schema's data_type). */
const PG_TYPE: Record<string, string> = {
  INTEGER: "bigint",
  TEXT: "text",
  BLOB: "bytea",
  REAL: "double precision",
};

/** SQLite's ON DELETE actions as pg_constraint.confdeltype says them. */
const ON_DELETE: Record<string, string> = {
  a: "NO ACTION",
  r: "RESTRICT",
  c: "CASCADE",
  n: "SET NULL",
  d: "SET DEFAULT",
};

const foreignKey = (columns: string[], table: string, target: string[], onDelete: string) =>
  `(${columns.join(", ")}) -> ${table}(${target.join(", ")}) ON DELETE ${onDelete}`;

/** The schema of an SQLite database, through its pragmas and sqlite_master. */
function sqliteSchema(db: Db): Schema {
  const names = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'schema_migrations'",
    )
    .pluck()
    .all() as string[];
  const schema: Schema = { tables: {}, indexes: {}, triggers: {} };
  for (const table of names) {
    schema.tables[table] = sqliteTable(db, table);
    Object.assign(schema.indexes, sqliteIndexes(db, table));
  }
  const triggers = db.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'").all() as {
    name: string;
    tbl_name: string;
    sql: string;
  }[];
  for (const t of triggers) {
    const [, timing, event, of] = /\b(BEFORE|AFTER)\s+(INSERT|DELETE|UPDATE)(?:\s+OF\s+(.+?))?\s+ON\s/is.exec(t.sql)!;
    const columns = of ? of.split(",").map((c) => c.trim()) : [];
    const condition = /\bWHEN\b([\s\S]*)/i.exec(t.sql.split(/\bBEGIN\b/i)[0]!)?.[1];
    const when = condition !== undefined && !/\bSELECT\b/i.test(condition);
    schema.triggers[t.name] = { table: t.tbl_name, timing, event, columns: columns.sort(), when, forEachRow: true };
  }
  return schema;
}

/**
 * One SQLite table. A primary key's columns count as NOT NULL: PostgreSQL's are, and SQLite's INTEGER PRIMARY KEY is
 * too (the rowid); a TEXT one could hold NULL in a rowid table, which no code stores.
 */
function sqliteTable(db: Db, table: string): Table {
  const info = db.prepare(`PRAGMA table_xinfo(${table})`).all() as {
    name: string;
    type: string;
    notnull: number;
    dflt_value: string | null;
    pk: number;
    hidden: number;
  }[];
  const columns = info.map((c) => ({
    name: c.name,
    type: PG_TYPE[c.type] ?? `unmapped ${c.type}`,
    notNull: c.notnull === 1 || c.pk > 0,
    default: c.dflt_value,
    generated: c.hidden === 2 || c.hidden === 3,
  }));
  const primaryKey = info
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  const fks = db.prepare(`PRAGMA foreign_key_list(${table})`).all() as {
    id: number;
    table: string;
    from: string;
    to: string;
    on_delete: string;
  }[];
  const foreignKeys = [...new Set(fks.map((f) => f.id))].map((id) => {
    const parts = fks.filter((f) => f.id === id);
    return foreignKey(
      parts.map((f) => f.from),
      parts[0]!.table,
      parts.map((f) => f.to),
      parts[0]!.on_delete,
    );
  });
  const sql = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
    .pluck()
    .get(table) as string;
  return { columns, primaryKey, foreignKeys: foreignKeys.sort(), checks: sql.match(/\bCHECK\s*\(/gi)?.length ?? 0 };
}

/**
 * A SQLite table's indexes, without the primary key's. A UNIQUE constraint's (sqlite_autoindex_*) is named as
 * PostgreSQL names a unique constraint, `<table>_<columns>_key`; a NOCASE column in it is `lower(col)` there.
 */
function sqliteIndexes(db: Db, table: string): Record<string, Index> {
  const list = db.prepare(`PRAGMA index_list(${table})`).all() as {
    name: string;
    unique: number;
    origin: string;
    partial: number;
  }[];
  const indexes: Record<string, Index> = {};
  for (const index of list.filter((i) => i.origin !== "pk")) {
    const keys = (
      db.prepare(`PRAGMA index_xinfo(${index.name})`).all() as {
        name: string;
        desc: number;
        coll: string;
        key: number;
      }[]
    ).filter((k) => k.key === 1);
    const columns = keys.map((k) => `${k.coll === "NOCASE" ? `lower(${k.name})` : k.name}${k.desc ? " DESC" : ""}`);
    const name = index.origin === "u" ? `${table}_${keys.map((k) => k.name).join("_")}_key` : index.name;
    indexes[name] = { table, columns, unique: index.unique === 1, partial: index.partial === 1 };
  }
  return indexes;
}

/** PostgreSQL's column defaults without their casts (`''::text`), as SQLite writes them. */
const bareDefault = (value: string | null) => (value === null ? null : value.replace(/::[a-z ]+$/, ""));

/** The schema of the PostgreSQL database, through information_schema and pg_catalog. */
async function pgSchema(client: pg.Client): Promise<Schema> {
  const schema: Schema = { tables: {}, indexes: {}, triggers: {} };
  const columns = await client.query(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, is_generated FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  for (const c of columns.rows) {
    schema.tables[c.table_name] ??= { columns: [], primaryKey: [], foreignKeys: [], checks: 0 };
    schema.tables[c.table_name]!.columns.push({
      name: c.column_name,
      type: c.data_type,
      notNull: c.is_nullable === "NO",
      default: bareDefault(c.column_default),
      generated: c.is_generated === "ALWAYS",
    });
  }
  for (const i of await pgIndexes(client)) {
    if (i.primary) schema.tables[i.table]!.primaryKey = i.columns;
    else schema.indexes[i.name] = { table: i.table, columns: i.columns, unique: i.unique, partial: i.partial };
  }
  for (const f of await pgForeignKeys(client))
    schema.tables[f.table]!.foreignKeys.push(foreignKey(f.columns, f.target_table, f.target, ON_DELETE[f.action]!));
  for (const table of Object.values(schema.tables)) table.foreignKeys.sort();
  const checks = await client.query<{ table: string }>(
    `SELECT conrelid::regclass::text AS table FROM pg_constraint
     WHERE contype = 'c' AND connamespace = current_schema()::regnamespace`,
  );
  for (const { table } of checks.rows) schema.tables[table]!.checks++;
  for (const t of await pgTriggers(client)) {
    const { name, ...trigger } = t;
    schema.triggers[name] = { ...trigger, columns: trigger.columns.sort() };
  }
  return schema;
}

/** Every index of the schema's tables, its key columns as pg_get_indexdef writes them (unquoted), `DESC` added. */
async function pgIndexes(client: pg.Client) {
  const result = await client.query<{
    name: string;
    table: string;
    columns: string[];
    unique: boolean;
    primary: boolean;
    partial: boolean;
  }>(
    `SELECT i.relname AS name, t.relname AS table, x.indisunique AS unique, x.indisprimary AS primary,
       x.indpred IS NOT NULL AS partial,
       array(SELECT replace(pg_get_indexdef(x.indexrelid, k, true), '"', '')
           || CASE WHEN x.indoption[k - 1] & 1 = 1 THEN ' DESC' ELSE '' END
         FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k) AS columns
     FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid JOIN pg_class AS t ON t.oid = x.indrelid
     WHERE t.relnamespace = current_schema()::regnamespace`,
  );
  return result.rows;
}

/** Every foreign key of the schema's tables, with its columns in order and its ON DELETE action's letter. */
async function pgForeignKeys(client: pg.Client) {
  const columnsOf = (rel: string, keys: string) =>
    `array(SELECT a.attname::text FROM unnest(${keys}) WITH ORDINALITY AS k(num, ord)
       JOIN pg_attribute AS a ON a.attrelid = ${rel} AND a.attnum = k.num ORDER BY k.ord)`;
  const result = await client.query<{
    table: string;
    columns: string[];
    target_table: string;
    target: string[];
    action: string;
  }>(
    `SELECT c.conrelid::regclass::text AS table, ${columnsOf("c.conrelid", "c.conkey")} AS columns,
       c.confrelid::regclass::text AS target_table, ${columnsOf("c.confrelid", "c.confkey")} AS target,
       c.confdeltype AS action
     FROM pg_constraint AS c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`,
  );
  return result.rows;
}

/** Every trigger the migrations made (not the foreign keys' own), its timing and event read from tgtype's bits. */
async function pgTriggers(client: pg.Client) {
  const result = await client.query<Trigger & { name: string }>(
    `SELECT t.tgname AS name, c.relname AS table,
       CASE WHEN t.tgtype & 2 = 2 THEN 'BEFORE' ELSE 'AFTER' END AS timing,
       CASE WHEN t.tgtype & 4 = 4 THEN 'INSERT' WHEN t.tgtype & 8 = 8 THEN 'DELETE'
         WHEN t.tgtype & 16 = 16 THEN 'UPDATE' END AS event,
       array(SELECT a.attname::text FROM unnest(t.tgattr::int2[]) AS k(num)
         JOIN pg_attribute AS a ON a.attrelid = t.tgrelid AND a.attnum = k.num) AS columns,
       t.tgqual IS NOT NULL AS when, t.tgtype & 1 = 1 AS "forEachRow"
     FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
     WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`,
  );
  return result.rows;
}

/** Every text column whose collation is not "C" (README: SQLite compares text as bytes). */
async function textColumnsNotC(client: pg.Client): Promise<string[]> {
  const result = await client.query(
    `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'
     ORDER BY 1`,
  );
  return result.rows.map((r) => r.name);
}

/** A value both engines take as a statement parameter. */
type Param = string | number | null | Buffer;

/** The same statements through an SQLite and a PostgreSQL database; `?` parameters, written for both dialects. */
class BothEngines {
  constructor(
    readonly sqlite: Db,
    readonly pg: pg.Client,
  ) {}

  /** Runs a statement on both, which must both succeed. */
  async run(sql: string, params: Param[] = []): Promise<void> {
    this.sqlite.prepare(sql).run(...params);
    await this.pg.query(dollars(sql), params);
  }

  /**
   * Runs a statement that both must refuse; per engine "refused" where a constraint or a trigger refused it, else
   * "accepted" or the other error (a statement one dialect cannot read is no refusal).
   */
  async refused(sql: string, params: Param[] = []): Promise<{ sqlite: string; pg: string }> {
    const said = { sqlite: "accepted", pg: "accepted" };
    try {
      this.sqlite.prepare(sql).run(...params);
    } catch (e) {
      const code = String((e as { code?: unknown }).code);
      said.sqlite = code.startsWith("SQLITE_CONSTRAINT") ? "refused" : `${code}: ${(e as Error).message}`;
    }
    try {
      await this.pg.query(dollars(sql), params);
    } catch (e) {
      // Class 23: integrity constraint violations; P0001: a trigger's RAISE EXCEPTION.
      const code = String((e as { code?: unknown }).code);
      said.pg = code.startsWith("23") || code === "P0001" ? "refused" : `${code}: ${(e as Error).message}`;
    }
    return said;
  }

  /** The rows a query returns on each, to be compared. */
  async rows(sql: string): Promise<{ sqlite: unknown[]; pg: unknown[] }> {
    return { sqlite: this.sqlite.prepare(sql).all(), pg: (await this.pg.query(sql)).rows };
  }
}

/** `?` parameters as PostgreSQL's `$1, $2…` (no statement here has a `?` in a literal). */
function dollars(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The rows the counting triggers keep, each query ordered by its table's key. */
const COUNTERS = [
  "SELECT * FROM storage_usage ORDER BY account_id",
  "SELECT * FROM graph_nodes ORDER BY workspace_id, entity",
  "SELECT * FROM graph_edges ORDER BY workspace_id, source, target",
  "SELECT * FROM graph_queue ORDER BY workspace_id, kind, source_id",
  "SELECT * FROM graph_pending ORDER BY workspace_id",
  "SELECT * FROM graph_versions ORDER BY workspace_id",
  "SELECT * FROM id_sequences ORDER BY name",
];

/** Expects the counters equal on both engines; `step` names the moment in a failure. */
async function expectSameCounters(both: BothEngines, step: string): Promise<void> {
  for (const sql of COUNTERS) {
    const { sqlite, pg: onPg } = await both.rows(sql);
    expect(onPg, `${step}: ${sql}`).toEqual(sqlite);
  }
}

/** Expects every table's rows equal on both engines, each in its primary key's order. */
async function expectSameTables(both: BothEngines): Promise<void> {
  for (const [table, shape] of Object.entries(sqliteSchema(both.sqlite).tables)) {
    const { sqlite, pg: onPg } = await both.rows(`SELECT * FROM ${table} ORDER BY ${shape.primaryKey.join(", ")}`);
    expect(onPg, table).toEqual(sqlite);
  }
}

const opened: { drop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.drop();
});

/** A migrated SQLite database and a PostgreSQL one given the first `count` files of each (all by default). */
async function bothMigrated(count?: number): Promise<BothEngines> {
  const sqlite = openDb(":memory:");
  migrate(sqlite, knownMigrations().slice(0, count));
  const database = await freshDatabase(DATABASE_URL!);
  opened.push({
    async drop() {
      sqlite.close();
      await database.drop();
    },
  });
  await applyPg(database.client, migrationFiles(PG_DIR).slice(0, count));
  return new BothEngines(sqlite, database.client);
}

/** PostgreSQL's side of migrate()'s recountUnknownStorage: the accounts left NULL counted by STORAGE_SIZES. */
async function recountUnknownOnPg(client: pg.Client): Promise<void> {
  const sum = Object.values(STORAGE_SIZES)
    .map((sql) => `coalesce((${sql.replaceAll("@id", "storage_usage.account_id")}), 0)`)
    .join(" + ");
  await client.query(`UPDATE storage_usage SET used_bytes = ${sum} WHERE used_bytes IS NULL`);
}

/** A small deterministic random number generator (mulberry32), so that a failing sequence can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const T = "2026-03-01T10:00:00.000Z";
/** The next id of a table with a row in id_sequences, as the query modules take it. */
const nextId = (table: string) => `(SELECT seq + 1 FROM id_sequences WHERE name = '${table}')`;

if (!DATABASE_URL && process.env.CI) {
  it("finds PostgreSQL (CI: .ci/run starts it and sets CONTENT_SERVICE_TEST_DATABASE_URL)", () => {
    expect.fail("CONTENT_SERVICE_TEST_DATABASE_URL is not set: the PostgreSQL schema cannot be checked");
  });
} else if (!DATABASE_URL) {
  it.skip("the PostgreSQL schema: skipped, CONTENT_SERVICE_TEST_DATABASE_URL is not set (a postgres:// URL of a role that may create databases)", () => {});
} else {
  describe("the PostgreSQL schema after every migration", () => {
    it("has SQLite's tables, columns, types, keys, indexes and triggers", async () => {
      const both = await bothMigrated();
      const expected = sqliteSchema(both.sqlite);
      expect(Object.keys(expected.tables).length).toBeGreaterThan(30);
      expect(await pgSchema(both.pg)).toEqual(expected);
    });

    it("collates every text column as bytes", async () => {
      const both = await bothMigrated();
      expect(await textColumnsNotC(both.pg)).toEqual([]);
    });

    it("seeds the same built-in templates, and gives the next template the id after them", async () => {
      const both = await bothMigrated();
      await expectSameTables(both);
      await both.run(
        `INSERT INTO templates (account_id, name, category, description, format, sections, target_words, tone,
           created_at) VALUES (NULL, 'Mine', 'blog', 'd', 'post', '[]', 10, 'professional', ?)`,
        [T],
      );
      const { sqlite, pg: onPg } = await both.rows("SELECT id FROM templates WHERE name = 'Mine'");
      expect(onPg).toEqual(sqlite);
    });
  });

  describe("the PostgreSQL constraints", () => {
    it("refuse what SQLite's refuse and take what they take", async () => {
      const both = await bothMigrated();
      await both.run(
        `INSERT INTO accounts (id, name, plan, created_at) VALUES (${nextId("accounts")}, 'A', 'pro', ?)`,
        [T],
      );
      await both.run(
        "INSERT INTO workspaces (id, account_id, name, is_default, created_at) VALUES ('w1', 1, 'W', 1, ?)",
        [T],
      );
      const user = `INSERT INTO users (id, account_id, email, password_hash, role, created_at)
        VALUES (${nextId("users")}, 1, ?, 'h', 'admin', '${T}')`;
      await both.run(user, ["Émile@A.test"]);
      const template = `INSERT INTO templates (name, category, description, format, sections, target_words, tone,
        created_at) VALUES ('t', 'c', 'd', 'post', ?, 10, 'professional', '${T}')`;
      await both.run(
        `INSERT INTO reference_materials (id, account_id, workspace_id, title, content, source_type, word_count,
           created_at) VALUES (${nextId("reference_materials")}, 1, 'w1', 'r', 'c', 'text', 1, ?)`,
        [T],
      );
      const doc =
        "INSERT INTO graph_documents (id, workspace_id, reference_id, content_id, version, extracted_at) VALUES (1, 'w1', ?, ?, 0, 'x')";
      await both.run(doc, [1, null]);
      const pair =
        "INSERT INTO graph_pairs (document_id, workspace_id, source, target, weight) VALUES (1, 'w1', ?, ?, 1)";
      const refusedRows: [string, Param[]][] = [
        [user, ["Émile@a.TEST"]],
        [template, ['{"a": 1}']],
        [template, ["[1,"]],
        ["INSERT INTO workspaces (id, account_id, name, is_default, created_at) VALUES ('w2', 1, 'W', 1, ?)", [T]],
        ["INSERT INTO usage_daily (account_id, key_id, day) VALUES (1, '', ?)", ["2026-1-01"]],
        ["INSERT INTO usage_daily (account_id, key_id, day) VALUES (1, '', ?)", ["2026-01-01x"]],
        ["INSERT INTO accounts (id, name, plan, created_at) VALUES (9, 'B', 'gold', ?)", [T]],
        [doc.replace("(1,", "(2,"), [null, null]],
        [pair, ["b", "a"]],
        [pair, ["a", "a"]],
        // Bytes order: "Z" (0x5a) comes before "a" (0x61), where en_US would put it after.
        [pair, ["a", "Z"]],
        [
          `INSERT INTO images (account_id, filename, mime_type, size_bytes, width, height, source, sha256, data, created_at)
           VALUES (1, 'f', 'image/png', 4, 1, 1, 'upload', 's', ?, '${T}')`,
          [Buffer.from([1, 2, 3])],
        ],
        [
          "INSERT INTO idempotency_keys (account_id, caller, idempotency_key, fingerprint, status, headers, body, created_at, expires_at) VALUES (1, 'c', 'k', 'f', 200, ?, ?, 'x', 'y')",
          ["{", Buffer.from("b")],
        ],
      ];
      for (const [sql, params] of refusedRows)
        expect(await both.refused(sql, params), `${sql} ${JSON.stringify(params)}`).toEqual({
          sqlite: "refused",
          pg: "refused",
        });
      // NOCASE folds ASCII letters only: another é is another address on both.
      await both.run(user, ["émile@a.test"]);
      await both.run("INSERT INTO usage_daily (account_id, key_id, day) VALUES (1, '', ?)", ["2026-01-01"]);
      await both.run(pair, ["Z", "a"]);
      // Without its id_sequences row, an insert is refused rather than given a deleted record's id.
      await both.run("DELETE FROM id_sequences WHERE name = 'memories'");
      expect(
        await both.refused(
          `INSERT INTO memories (id, account_id, workspace_id, kind, title, content, created_at, updated_at)
           VALUES (${nextId("memories")}, 1, 'w1', 'voice', 't', 'c', ?, ?)`,
          [T, T],
        ),
      ).toEqual({ sqlite: "refused", pg: "refused" });
      await expectSameTables(both);
    });
  });

  describe("the PostgreSQL triggers", () => {
    it("count storage as SQLite's do through writes, edits, replays and cascades", async () => {
      const both = await bothMigrated();
      await recordsSequence(both);
      await expectSameTables(both);
    });

    it.each([1, 2, 3])("keep the graph's totals and queue as SQLite's do (seed %i)", async (seed) => {
      const both = await bothMigrated();
      await graphSequence(both, random(seed));
      await expectSameTables(both);
    });
  });

  describe("the PostgreSQL data migrations", () => {
    it("turn rows written before them into the rows SQLite's make", async () => {
      const both = await bothMigrated(6);
      await oldRows(both);
      migrate(both.sqlite);
      await applyPg(both.pg, migrationFiles(PG_DIR).slice(6));
      await recountUnknownOnPg(both.pg);
      await expectSameTables(both);
      // A document saved before 0013 and 0023 leaves: the version and totals it never counted up.
      await both.run("DELETE FROM graph_documents WHERE id = 3");
      await expectSameTables(both);
      const { pg: quota } = await both.rows("SELECT * FROM analysis_quota_used ORDER BY account_id, month");
      expect(quota).toEqual([
        { account_id: 1, month: "2026-01", used: 2 },
        { account_id: 1, month: "2026-02", used: 1 },
      ]);
    });
  });
}

/** Accounts, workspaces, users and the records whose bytes storage_usage counts, written, edited and deleted. */
async function recordsSequence(both: BothEngines): Promise<void> {
  const step = (name: string) => expectSameCounters(both, name);
  for (const name of ["A", "B"])
    await both.run(`INSERT INTO accounts (id, name, plan, created_at) VALUES (${nextId("accounts")}, ?, 'pro', ?)`, [
      name,
      T,
    ]);
  for (const [ws, account] of [
    ["w1", 1],
    ["w2", 1],
    ["w3", 2],
  ] as const)
    await both.run("INSERT INTO workspaces (id, account_id, name, created_at) VALUES (?, ?, ?, ?)", [
      ws,
      account,
      ws,
      T,
    ]);
  await step("accounts");
  const content = `INSERT INTO contents (id, account_id, workspace_id, title, content, status, created_at, updated_at)
    VALUES (${nextId("contents")}, ?, ?, ?, ?, ?, '${T}', '${T}')`;
  await both.run(content, [1, "w1", "Café 漢字", "draft text 🚀", "draft"]);
  await both.run(content, [1, "w2", "Second", "x".repeat(300), "finalized"]);
  await both.run(content, [2, "w3", "Other", "ü", "generated"]);
  await step("contents");
  const version = `INSERT INTO content_versions (id, content_id, version, kind, title, text, details, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, '${T}')`;
  await both.run(version, [1, 1, 1, "generated", "Café", "generated text é", '{"model":"m"}']);
  await both.run("UPDATE contents SET version_count = 1, status = 'generated', text_version = 1 WHERE id = 1");
  await both.run(version, [2, 1, 2, "finalized", "Final", "final ✓", null]);
  await both.run("UPDATE contents SET version_count = 2, status = 'finalized', finalized_content = ? WHERE id = 1", [
    "final ✓",
  ]);
  await both.run("UPDATE contents SET title = ?, content = '' WHERE id = 1", ["Renamed 漢"]);
  await both.run("UPDATE contents SET status = 'published', published_at = ? WHERE id = 1", [T]);
  await step("versions and edits");
  const reference = `INSERT INTO reference_materials (id, account_id, workspace_id, title, content, source_type,
    word_count, created_at) VALUES (${nextId("reference_materials")}, ?, ?, ?, ?, 'text', 3, '${T}')`;
  await both.run(reference, [1, "w1", "Ref", "Flat roofs é."]);
  await both.run(reference, [1, "w2", "Ref 2", "Ballast."]);
  const passage =
    "INSERT INTO reference_passages (id, reference_id, position, text, word_count) VALUES (?, ?, ?, ?, 1)";
  await both.run(passage, [1, 1, 0, "Flat roofs"]);
  await both.run(passage, [2, 1, 1, "é."]);
  await both.run(passage, [3, 2, 0, "Ballast."]);
  const image = `INSERT INTO images (id, account_id, filename, mime_type, size_bytes, width, height, source, prompt,
    sha256, data, created_at) VALUES (?, ?, 'p.png', 'image/png', ?, 2, 2, ?, ?, 's', ?, '${T}')`;
  await both.run(image, [1, 1, 5, "upload", null, Buffer.from([1, 2, 3, 4, 5])]);
  await both.run(image, [2, 2, 2, "generated", "a cat", Buffer.from([9, 9])]);
  const conversion = `INSERT INTO conversions (id, account_id, workspace_id, content_id, target_format, output, posts,
    subject, created_at) VALUES (${nextId("conversions")}, ?, ?, ?, ?, ?, ?, ?, '${T}')`;
  await both.run(conversion, [1, "w1", 1, "social_thread", "1/ é", '["1/ é"]', null]);
  await both.run(conversion, [1, "w2", 2, "email", "Body", null, "Subject ✉"]);
  const memory = `INSERT INTO memories (id, account_id, workspace_id, kind, title, content, created_at, updated_at)
    VALUES (${nextId("memories")}, ?, ?, 'voice', ?, ?, '${T}', '${T}')`;
  await both.run(memory, [1, "w1", "Tone", "Plain é"]);
  await both.run(memory, [1, "w2", "Other", "Short"]);
  await both.run("UPDATE memories SET content = ? WHERE id = 1", ["Longer: ".repeat(5)]);
  await step("references, images, conversions, memories");
  const kept = `INSERT INTO idempotency_keys (account_id, caller, idempotency_key, fingerprint, status, headers, body,
      created_at, expires_at) VALUES (?, 'k1', ?, 'f', 201, '{}', ?, '${T}', '2026-03-02')
    ON CONFLICT (account_id, caller, idempotency_key) DO UPDATE SET body = excluded.body`;
  await both.run(kept, [1, "a", Buffer.from("answer é")]);
  await both.run(kept, [1, "a", Buffer.from("a longer answer")]);
  await both.run(kept, [1, "b", Buffer.from("b")]);
  await both.run("DELETE FROM idempotency_keys WHERE idempotency_key = 'b'");
  await step("idempotency answers");
  await both.run("DELETE FROM memories WHERE id = 2");
  await both.run("DELETE FROM images WHERE id = 1");
  await both.run("DELETE FROM conversions WHERE id = 1");
  await both.run("DELETE FROM reference_passages WHERE id = 2");
  await both.run("DELETE FROM content_versions WHERE id = 1");
  await step("single deletions");
  await both.run("DELETE FROM contents WHERE id = 1");
  await both.run("DELETE FROM reference_materials WHERE id = 1");
  await step("parents deleted with their children");
  await both.run("DELETE FROM workspaces WHERE id = 'w2'");
  await step("a workspace deleted");
  await both.run("DELETE FROM accounts WHERE id = 2");
  await step("an account deleted");
  await both.run(content, [1, "w1", "New", "after the deletions", "draft"]);
  await both.run(`INSERT INTO users (id, account_id, email, password_hash, role, created_at)
    VALUES (${nextId("users")}, 1, 'u@a.test', 'h', 'member', '${T}')`);
  await step("ids after the deletions");
  // An id below the largest (a restore's, say) leaves the sequence at the largest.
  await both.run(reference.replace(nextId("reference_materials"), "?"), [1, 1, "w1", "Old", "restored"]);
  await step("an older id inserted");
}

const ENTITIES = ["acme", "globex", "new-york", "jane-doe", "planning-review", "ballast-mounts", "q3-roadmap"];

/** One document's rows for a random extraction over a few shared entities, with labels and types that differ. */
function extraction(next: () => number) {
  const ids = ENTITIES.filter(() => next() < 0.5);
  const mentions = ids.map((id) => ({
    entity: id,
    label: next() < 0.5 ? id.toUpperCase() : id,
    type: next() < 0.5 ? "proper_noun" : "key_phrase",
    mentions: 1 + Math.floor(next() * 4),
  }));
  const pairs: { source: string; target: string; weight: number }[] = [];
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++)
      if (next() < 0.5) {
        const [source, target] = [ids[i]!, ids[j]!].sort();
        pairs.push({ source: source!, target: target!, weight: 1 + Math.floor(next() * 3) });
      }
  return { mentions, pairs };
}

/** The graph's sources: references and contents of two workspaces, a workspace's own deletion last. */
async function graphSources(both: BothEngines): Promise<void> {
  await both.run(`INSERT INTO accounts (id, name, plan, created_at) VALUES (${nextId("accounts")}, 'A', 'pro', ?)`, [
    T,
  ]);
  for (const ws of ["w1", "w2"])
    await both.run("INSERT INTO workspaces (id, account_id, name, created_at) VALUES (?, 1, ?, ?)", [ws, ws, T]);
  for (let i = 0; i < 8; i++)
    await both.run(
      `INSERT INTO reference_materials (id, account_id, workspace_id, title, content, source_type, word_count,
         created_at) VALUES (${nextId("reference_materials")}, 1, ?, 'r', 'text', 'text', 1, ?)`,
      [i % 2 === 0 ? "w1" : "w2", T],
    );
  for (let i = 0; i < 4; i++)
    await both.run(
      `INSERT INTO contents (id, account_id, workspace_id, title, content, status, created_at, updated_at)
       VALUES (${nextId("contents")}, 1, ?, 't', 'c', ?, ?, ?)`,
      [i % 2 === 0 ? "w1" : "w2", i < 2 ? "finalized" : "draft", T, T],
    );
}

/** Saves a document of a source: its row, its mention and pair rows in one statement each, its queue row settled. */
async function saveDocument(
  both: BothEngines,
  doc: { id: number; ws: string; kind: "reference" | "content"; source: number; version: number },
  rows: ReturnType<typeof extraction>,
): Promise<void> {
  const column = doc.kind === "reference" ? "reference_id" : "content_id";
  await both.run(
    `INSERT INTO graph_documents (id, workspace_id, ${column}, version, extracted_at) VALUES (?, ?, ?, ?, ?)`,
    [doc.id, doc.ws, doc.source, doc.version, T],
  );
  if (rows.mentions.length > 0)
    await both.run(
      `INSERT INTO graph_mentions (document_id, workspace_id, entity, label, search, type, mentions) VALUES
       ${rows.mentions.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      rows.mentions.flatMap((m) => [doc.id, doc.ws, m.entity, m.label, m.label.toLowerCase(), m.type, m.mentions]),
    );
  if (rows.pairs.length > 0)
    await both.run(
      `INSERT INTO graph_pairs (document_id, workspace_id, source, target, weight) VALUES
       ${rows.pairs.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
      rows.pairs.flatMap((p) => [doc.id, doc.ws, p.source, p.target, p.weight]),
    );
  await both.run("DELETE FROM graph_queue WHERE workspace_id = ? AND kind = ? AND source_id = ?", [
    doc.ws,
    doc.kind,
    doc.source,
  ]);
}

/** A content's workspace and version now, as a document of it records them. */
function contentNow(both: BothEngines, id: number): { ws: string; version: number } {
  return both.sqlite
    .prepare("SELECT workspace_id AS ws, version_count AS version FROM contents WHERE id = ?")
    .get(id) as {
    ws: string;
    version: number;
  };
}

/**
 * Documents added and removed at random (alone, with their source, or an entity's mentions across documents in one
 * statement), contents moving in and out of the graph's statuses and on to new versions, queue rows settled, then a
 * content moved and deleted and a workspace deleted: the counters compared after each step.
 */
async function graphSequence(both: BothEngines, next: () => number): Promise<void> {
  await graphSources(both);
  await expectSameCounters(both, "sources");
  const pick = <V>(list: V[]) => list[Math.floor(next() * list.length)]!;
  const documents: { id: number; source: number; kind: "reference" | "content" }[] = [];
  const has = (kind: string, source: number) => documents.some((d) => d.kind === kind && d.source === source);
  let nextDoc = 1;
  let references = [1, 2, 3, 4, 5, 6, 7, 8];
  const contents = [1, 2, 3, 4];
  for (let step = 0; step < 50; step++) {
    const roll = next();
    const freeReferences = references.filter((r) => !has("reference", r));
    const freeContents = contents.filter((c) => !has("content", c));
    if (roll < 0.3 && freeReferences.length > 0) {
      const source = pick(freeReferences);
      documents.push({ id: nextDoc, source, kind: "reference" });
      const ws = source % 2 === 1 ? "w1" : "w2";
      await saveDocument(both, { id: nextDoc++, ws, kind: "reference", source, version: 0 }, extraction(next));
    } else if (roll < 0.45 && freeContents.length > 0) {
      const source = pick(freeContents);
      documents.push({ id: nextDoc, source, kind: "content" });
      await saveDocument(
        both,
        { id: nextDoc++, kind: "content", source, ...contentNow(both, source) },
        extraction(next),
      );
    } else if (roll < 0.55 && documents.length > 0) {
      const doc = pick(documents);
      documents.splice(documents.indexOf(doc), 1);
      await both.run("DELETE FROM graph_documents WHERE id = ?", [doc.id]);
    } else if (roll < 0.6 && freeReferences.length < references.length) {
      const source = pick(references.filter((r) => has("reference", r)));
      references = references.filter((r) => r !== source);
      documents.splice(
        documents.findIndex((d) => d.kind === "reference" && d.source === source),
        1,
      );
      await both.run("DELETE FROM reference_materials WHERE id = ?", [source]);
    } else if (roll < 0.7) {
      // One statement removing an entity's rows of several documents: PostgreSQL runs its row triggers after it.
      await both.run("DELETE FROM graph_mentions WHERE workspace_id = ? AND entity = ?", [
        pick(["w1", "w2"]),
        pick(ENTITIES),
      ]);
    } else if (roll < 0.8) {
      await both.run("DELETE FROM graph_queue WHERE kind = 'content' AND source_id = ?", [pick(contents)]);
    } else {
      await both.run("UPDATE contents SET status = ?, version_count = version_count + ? WHERE id = ?", [
        pick(["draft", "finalized", "published"]),
        next() < 0.5 ? 1 : 0,
        pick(contents),
      ]);
    }
    await expectSameCounters(both, `step ${step}`);
  }
  await both.run("UPDATE contents SET workspace_id = 'w2' WHERE id = 1");
  await expectSameCounters(both, "a content moved");
  await both.run("DELETE FROM contents WHERE id = 2");
  await expectSameCounters(both, "a content deleted");
  await both.run("DELETE FROM workspaces WHERE id = 'w1'");
  await expectSameCounters(both, "a workspace deleted");
}

/**
 * Rows of the schema of 0001-0006, before the migrations that copy, count or drop them: learning jobs over two
 * months (0007's quota), records whose largest ids seed id_sequences (0011, 0020), an entity id over 200 bytes (0014),
 * accounts to count (0019, 0021: NULL, then counted), documents in and out of date (0023's totals and queue).
 */
async function oldRows(both: BothEngines): Promise<void> {
  await both.run(
    "INSERT INTO accounts (id, name, plan, created_at) VALUES (1, 'A', 'pro', ?), (3, 'B', 'starter', ?)",
    [T, T],
  );
  await both.run(
    "INSERT INTO workspaces (id, account_id, name, created_at) VALUES ('w1', 1, 'W', ?), ('w3', 3, 'W', ?)",
    [T, T],
  );
  await both.run(
    "INSERT INTO users (id, account_id, email, password_hash, role, created_at) VALUES (4, 1, 'a@a.test', 'h', 'admin', ?)",
    [T],
  );
  const content = `INSERT INTO contents (id, account_id, workspace_id, title, content, finalized_content, status,
    version_count, created_at, updated_at) VALUES (?, 1, 'w1', 'Café', ?, ?, ?, ?, '${T}', '${T}')`;
  await both.run(content, [5, "text é", "final", "finalized", 2]);
  await both.run(content, [6, "draft", null, "draft", 0]);
  await both.run(content, [7, "published", "final 7", "published", 1]);
  await both.run(
    "INSERT INTO content_versions (content_id, version, kind, title, text, created_at) VALUES (5, 1, 'generated', 'v', 'vé', ?)",
    [T],
  );
  const job = `INSERT INTO learning_jobs (id, account_id, workspace_id, content_id, status, input, created_at)
    VALUES (?, 1, 'w1', 5, 'succeeded', '{}', ?)`;
  await both.run(job, ["j1", "2026-01-05T00:00:00.000Z"]);
  await both.run(job, ["j2", "2026-01-20T00:00:00.000Z"]);
  await both.run(job, ["j3", "2026-02-01T00:00:00.000Z"]);
  await both.run(
    "INSERT INTO memories (id, account_id, workspace_id, kind, title, content, created_at, updated_at) VALUES (8, 1, 'w1', 'voice', 't', 'c', ?, ?)",
    [T, T],
  );
  const reference = `INSERT INTO reference_materials (id, account_id, workspace_id, title, content, source_type,
    word_count, created_at) VALUES (?, 1, 'w1', 'r', 'roofs', 'text', 1, '${T}')`;
  await both.run(reference, [9]);
  await both.run(reference, [10]);
  await both.run("INSERT INTO reference_passages (reference_id, position, text, word_count) VALUES (9, 0, 'roofs', 1)");
  await both.run(
    "INSERT INTO conversions (id, account_id, workspace_id, content_id, target_format, output, created_at) VALUES (11, 1, 'w1', 5, 'html', '<p>é</p>', ?)",
    [T],
  );
  const documents = `INSERT INTO graph_documents (id, workspace_id, reference_id, content_id, version, extracted_at)
    VALUES (1, 'w1', 9, NULL, 0, '${T}'), (2, 'w1', NULL, 5, 1, '${T}'), (3, 'w1', NULL, 7, 1, '${T}')`;
  await both.run(documents);
  const long = `${"x".repeat(199)}é`;
  await both.run(
    `INSERT INTO graph_mentions (document_id, workspace_id, entity, label, search, type, mentions) VALUES
     (1, 'w1', 'acme', 'Acme', 'acme', 'proper_noun', 2), (2, 'w1', 'acme', 'ACME', 'acme', 'key_phrase', 5),
     (3, 'w1', 'acme', 'acme', 'acme', 'key_phrase', 5), (1, 'w1', 'roof', 'roof', 'roof', 'key_phrase', 1),
     (2, 'w1', ?, 'long', 'long', 'key_phrase', 1)`,
    [long],
  );
  await both.run(
    "INSERT INTO graph_pairs (document_id, workspace_id, source, target, weight) VALUES (1, 'w1', 'acme', 'roof', 2), (3, 'w1', 'acme', 'roof', 1), (2, 'w1', 'acme', ?, 1)",
    [long],
  );
  await both.run(
    "INSERT INTO idempotency_keys (account_id, caller, idempotency_key, fingerprint, status, headers, body, created_at, expires_at) VALUES (3, 'c', 'k', 'f', 200, '{}', ?, 'x', 'y')",
    [Buffer.from("kept é")],
  );
}
