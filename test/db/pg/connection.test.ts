/**
 * The store's connection on a real PostgreSQL (src/db/pg/connection.ts, statement.ts): statements read and write
 * as better-sqlite3's do, with SQLite's parameters, integer columns as numbers, the server's refusals as PgError
 * with their SQLSTATE, and lastInsertRowid refused with the way out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPostgresUrl, openPostgres, type PgConnection } from "../../../src/db/pg/connection.js";
import { PgError } from "../../../src/db/pg/errors.js";
import { NO_ROWID_MESSAGE } from "../../../src/db/pg/statement.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";

describe("openPostgres", () => {
  it("takes only a postgres:// URL, and says what one looks like", () => {
    expect(["postgres://u:p@h:5432/d", "postgresql://h/d"].map(isPostgresUrl)).toEqual([true, true]);
    expect(["mysql://h/d", "/var/lib/data", ""].map(isPostgresUrl)).toEqual([false, false, false]);
    expect(() => openPostgres("sqlite:///tmp/x.db")).toThrow(/postgres:\/\/user:password@host:port\/database/);
  });
});

describePostgres("a PgConnection's statements", () => {
  let database: TestDatabase;
  let db: PgConnection;

  beforeAll(async () => {
    database = await testDatabase();
    db = openPostgres(database.url);
    db.exec(`
      CREATE TABLE items (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, size BIGINT, score NUMERIC,
        data BYTEA, meta TEXT);
      INSERT INTO items (name, size, score, meta) VALUES ('a', 1, 0.5, '{"k":1}'), ('b', 2, 1.5, NULL);
    `);
  });

  afterAll(async () => {
    db?.close();
    await database?.drop();
  });

  it("reads one row, every row, each row, and the first column alone", () => {
    expect(db.prepare("SELECT id, name, size FROM items WHERE name = ?").get("a")).toEqual({
      id: 1,
      name: "a",
      size: 1,
    });
    expect(db.prepare("SELECT name FROM items WHERE name = ?").get("none")).toBeUndefined();
    expect(db.prepare("SELECT name, size FROM items ORDER BY id").all()).toEqual([
      { name: "a", size: 1 },
      { name: "b", size: 2 },
    ]);
    expect([...db.prepare<[], { name: string }>("SELECT name FROM items ORDER BY id").iterate()]).toEqual([
      { name: "a" },
      { name: "b" },
    ]);
    const names = db.prepare<[], string>("SELECT name FROM items ORDER BY id").pluck();
    expect(names.all()).toEqual(["a", "b"]);
    expect(names.pluck(false).get()).toEqual({ name: "a" });
  });

  it("reads integers, counts and numerics as numbers, JSON as its text, bytes as a Buffer", () => {
    const bytes = Buffer.from([0, 1, 254, 255]);
    db.prepare("UPDATE items SET data = ? WHERE name = 'a'").run(bytes);
    const row = db
      .prepare(
        "SELECT size, score, meta, data, (SELECT COUNT(*) FROM items) AS n, 1 = 1 AS yes FROM items WHERE name = 'a'",
      )
      .get() as Record<string, unknown>;
    expect(row).toEqual({ size: 1, score: 0.5, meta: '{"k":1}', data: bytes, n: 2, yes: 1 });
    expect(Buffer.isBuffer(row.data)).toBe(true);
    expect(db.prepare("SELECT '{\"a\": [1]}'::jsonb AS j").pluck().get()).toBe('{"a": [1]}');
  });

  it("binds positional, named and mixed parameters", () => {
    const byName = db.prepare("SELECT name FROM items WHERE size = @size AND name = :name AND size = $size").pluck();
    expect(byName.get({ size: 2, name: "b" })).toBe("b");
    expect(db.prepare("SELECT name FROM items WHERE size = ? OR size = ? ORDER BY id").pluck().all(1, 2)).toEqual([
      "a",
      "b",
    ]);
    expect(db.prepare("SELECT name FROM items WHERE size = @size AND name = ?").pluck().get({ size: 1 }, "a")).toBe(
      "a",
    );
    expect(db.prepare("SELECT size FROM items WHERE size = ?").pluck().get(2n)).toBe(2);
  });

  it("leaves a literal holding ? and @x as it is", () => {
    expect(db.prepare("SELECT '? and @x and :y' || ? AS s").pluck().get("!")).toBe("? and @x and :y!");
  });

  it("reports the rows a run changed, and refuses lastInsertRowid with the way to the id", () => {
    const result = db.prepare("UPDATE items SET size = size + 1 WHERE size < ?").run(100);
    expect(result.changes).toBe(2);
    expect(() => result.lastInsertRowid).toThrow(NO_ROWID_MESSAGE);
    expect(db.prepare("INSERT INTO items (name) VALUES (?) RETURNING id").pluck().get("c")).toBe(3);
    expect(db.prepare("DELETE FROM items WHERE name = ?").run("none").changes).toBe(0);
  });

  it("refuses get() on a statement that returns no data, as better-sqlite3 does", () => {
    expect(() => db.prepare("UPDATE items SET size = size WHERE name = 'a'").get()).toThrow(
      "This statement does not return data. Use run() instead",
    );
  });

  it("throws the server's refusal as a PgError with its SQLSTATE and constraint", () => {
    const insert = db.prepare("INSERT INTO items (name) VALUES (?)");
    const error = (() => {
      try {
        insert.run("a");
      } catch (e) {
        return e;
      }
    })() as PgError;
    expect(error).toBeInstanceOf(PgError);
    expect({ code: error.code, constraint: error.constraint }).toEqual({ code: "23505", constraint: "items_name_key" });
    expect(error.detail).toMatch(/\(name\)=\(a\) already exists/);
    expect(() => db.prepare("SELECT nope FROM items").all()).toThrow(expect.objectContaining({ code: "42703" }));
  });

  it("prepares a text again once another connection changed its table: at once outside a transaction", () => {
    const other = openPostgres(database.url);
    try {
      db.exec("CREATE TABLE wide (id INT); INSERT INTO wide VALUES (1)");
      const all = db.prepare("SELECT * FROM wide");
      expect(all.all()).toEqual([{ id: 1 }]);
      other.exec("ALTER TABLE wide ADD COLUMN extra INT DEFAULT 7");
      expect(all.all()).toEqual([{ id: 1, extra: 7 }]);
      other.exec("ALTER TABLE wide ADD COLUMN more INT DEFAULT 8");
      // Inside a transaction the failed statement has aborted it: the error is the caller's, the next call works.
      expect(() => db.transaction(() => all.all())()).toThrow(expect.objectContaining({ code: "0A000" }));
      expect(all.all()).toEqual([{ id: 1, extra: 7, more: 8 }]);
    } finally {
      other.close();
    }
  });

  it("refuses a value PostgreSQL and SQLite cannot bind, before sending it", () => {
    expect(() => db.prepare("SELECT ? AS v").get(true)).toThrow(TypeError);
  });
});
