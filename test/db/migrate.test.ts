import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  knownMigrations,
  MigrationMismatchError,
  migrate,
  parseMigrations,
  pendingMigrations,
} from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { cli, tempDir } from "../helpers/cli.js";

describe("migrations", () => {
  it("applies each numbered file once, in order, and records it", () => {
    const db = openDb(":memory:");
    const applied = migrate(db);
    expect(applied).toEqual(knownMigrations().map((m) => m.name));
    expect(migrate(db)).toEqual([]);
    const rows = db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all();
    expect(rows).toEqual(knownMigrations().map((m) => ({ version: m.version, name: m.name })));
  });

  it("0014 removes the entity ids over 200 bytes an older graph kept, with their pairs, and nothing else", () => {
    const db = openDb(":memory:");
    const upTo13 = knownMigrations().filter((m) => m.version <= 13);
    migrate(db, upTo13);
    db.pragma("foreign_keys = OFF");
    const long = `${"é".repeat(100)}x`; // 201 bytes, 101 characters
    db.prepare(
      "INSERT INTO graph_documents (id, workspace_id, content_id, version, extracted_at) VALUES (1, 'ws_1', 1, 1, 'now')",
    ).run();
    const mention = db.prepare(
      "INSERT INTO graph_mentions (document_id, workspace_id, entity, label, search, type, mentions) VALUES (1, 'ws_1', ?, ?, ?, 'proper_noun', 2)",
    );
    for (const id of [long, "acme-corp", "b".repeat(200)]) mention.run(id, id, id);
    const pair = db.prepare(
      "INSERT INTO graph_pairs (document_id, workspace_id, source, target, weight) VALUES (1, 'ws_1', ?, ?, 1)",
    );
    pair.run("acme-corp", long);
    pair.run("acme-corp", "b".repeat(200));
    db.pragma("foreign_keys = ON");
    expect(migrate(db)).toContain("0014_entity_id_bytes.sql");
    const entities = db.prepare("SELECT entity FROM graph_mentions ORDER BY entity").pluck().all();
    expect(entities).toEqual(["acme-corp", "b".repeat(200)]);
    expect(db.prepare("SELECT target FROM graph_pairs").pluck().all()).toEqual(["b".repeat(200)]);
  });

  it("rolls back a migration that fails, leaving nothing half-applied", () => {
    const db = openDb(":memory:");
    const bad = parseMigrations([
      { name: "0001_ok.sql", sql: "CREATE TABLE a (x INTEGER);" },
      { name: "0002_bad.sql", sql: "CREATE TABLE b (x INTEGER); INSERT INTO nope VALUES (1);" },
    ]);
    expect(() => migrate(db, bad)).toThrow();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
    expect(db.prepare("SELECT count(*) AS n FROM schema_migrations").get()).toEqual({ n: 1 });
  });

  it("refuses a database with a migration it does not know, or a changed one", () => {
    const db = openDb(":memory:");
    migrate(db);
    db.prepare("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 'x', 'now')").run();
    expect(() => pendingMigrations(db)).toThrow(MigrationMismatchError);

    const db2 = openDb(":memory:");
    migrate(db2);
    db2.prepare("UPDATE schema_migrations SET checksum = 'changed' WHERE version = 1").run();
    expect(() => pendingMigrations(db2)).toThrow(/differs/);
  });

  it("refuses numbering gaps and duplicates in sql/", () => {
    expect(() => parseMigrations([{ name: "0002_a.sql", sql: "" }])).toThrow(/gap/);
    expect(() =>
      parseMigrations([
        { name: "0001_a.sql", sql: "" },
        { name: "0001_b.sql", sql: "" },
      ]),
    ).toThrow();
  });

  it("sets the pragmas in openDb", () => {
    const db = openDb(tempDir());
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("synchronous", { simple: true })).toBe(2);
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
  });

  it("makes serve refuse to start on a database from a newer version", () => {
    const dir = tempDir();
    const db = openDb(dir);
    migrate(db);
    db.prepare("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 'x', 'now')").run();
    db.close();
    const run = cli(["serve", "--data-dir", dir, "--port", "0"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/0999_future\.sql.*refusing to start/);
  });

  it("names the database file in a migration it does not know, or a changed one, for every command", () => {
    const file = (dir: string) => path.join(dir, "content-service.db");
    const newer = tempDir();
    const db = openDb(newer);
    migrate(db);
    db.prepare("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 'x', 'now')").run();
    db.close();
    const changed = tempDir();
    const db2 = openDb(changed);
    migrate(db2);
    db2.prepare("UPDATE schema_migrations SET checksum = 'changed' WHERE version = 1").run();
    db2.close();
    const first = knownMigrations()[0].name;
    for (const [dir, line] of [
      [
        newer,
        `${file(newer)} has migration 0999_future.sql, which this program does not know (is it newer?); refusing to start`,
      ],
      [changed, `${file(changed)}: applied migration ${first} differs from this program's ${first}; refusing to start`],
    ])
      for (const args of [["serve", "--port", "0"], ["accounts", "list"], ["migrate"]]) {
        const run = cli([...args, "--data-dir", dir]);
        expect(run.status, args[0]).toBe(1);
        expect(
          run.stderr.split("\n").filter((l) => l.startsWith("error: ")),
          args[0],
        ).toEqual([`error: ${line}`]);
      }
    // restore names the backup it refuses, once.
    const target = tempDir();
    const run = cli(["restore", "--from", file(newer), "--data-dir", target]);
    expect(run.status).toBe(1);
    expect(run.stderr.split("\n").filter((l) => l.startsWith("error: "))).toEqual([
      `error: ${file(newer)} has migration 0999_future.sql, which this program does not know (is it newer?); refusing to restore`,
    ]);
  });

  it("refuses another program's database (tables, no schema_migrations), naming it, for serve as for the rest; an empty file is ours", () => {
    const dir = tempDir();
    const db = openDb(dir);
    db.exec("CREATE TABLE t (x)");
    db.close();
    const file = path.join(dir, "content-service.db");
    for (const args of [["serve", "--port", "0"], ["accounts", "list"], ["migrate"], ["init"]]) {
      const run = cli([...args, "--data-dir", dir]);
      expect(run.status, args[0]).toBe(1);
      // One line, naming the file (docs/cli.md: a database a command cannot use is named in that line).
      expect(run.stderr.split("\n").filter((l) => l.startsWith("error: "))).toEqual([
        `error: ${file} is not a content-service database (it has tables, e.g. "t", but no schema_migrations); ` +
          "refusing to use it: move it away or choose another --data-dir",
      ]);
    }
    const check = openDb(dir);
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(["t"]);
    check.close();
    const empty = openDb(":memory:");
    expect(migrate(empty)).toEqual(knownMigrations().map((m) => m.name));
  });
});
