/**
 * The connection the query modules need (src/db/connection.ts): a better-sqlite3 connection is one, so that the
 * SQLite store needs no adapter, and a transaction's kinds behave as the store's callers expect.
 */
import { describe, expect, it } from "vitest";
import type { SqlConnection } from "../../src/db/connection.js";
import { type Db, openDb } from "../../src/db/open.js";

/** Compiles only while better-sqlite3's connection has every member of SqlConnection, with compatible types. */
const sqliteIsAConnection: Db extends SqlConnection ? true : never = true;

describe("a SqlConnection", () => {
  it("is what a better-sqlite3 connection is (checked by tsc)", () => {
    expect(sqliteIsAConnection).toBe(true);
  });

  it("runs a transaction's body once and nests a savepoint that rolls back alone", () => {
    const db: SqlConnection = openDb(":memory:");
    db.prepare("CREATE TABLE t (v INTEGER)").run();
    const insert = db.prepare<[number]>("INSERT INTO t VALUES (?)");
    const inner = db.transaction(() => {
      insert.run(2);
      throw new Error("undo the inner part");
    });
    db.transaction(() => {
      insert.run(1);
      expect(() => inner()).toThrow(/inner/);
      expect(db.inTransaction).toBe(true);
    }).immediate();
    expect(db.prepare<[], number>("SELECT v FROM t").pluck().all()).toEqual([1]);
    expect(db.inTransaction).toBe(false);
  });
});
