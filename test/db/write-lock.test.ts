/**
 * Regression (found by `npm run bench`: learning jobs failed with "database is locked" while `content-service`
 * commands wrote to the same database): a transaction that reads and then writes must not fail when another
 * process commits between its first read and its first write. Deferred transactions did (SQLITE_BUSY_SNAPSHOT,
 * raised at once, without the busy timeout): a request in the server would have answered 500, a CLI command exit 1.
 * Every transaction of openDb now takes the write lock when it begins (BEGIN IMMEDIATE) and waits for it instead.
 */
import { describe, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { tempDir } from "../helpers/cli.js";

describe("write transactions and other writers", () => {
  it("a read-then-write transaction survives a commit by another connection between its read and its write", () => {
    const dir = tempDir();
    const server = openDb(dir);
    server.exec("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counter VALUES (1, 0)");
    const other = openDb(dir);
    // The other writer does not wait here (same thread): it either commits at once or is refused at once.
    other.pragma("busy_timeout = 0");
    let otherCommitted = false;
    const increment = server.transaction(() => {
      const { n } = server.prepare("SELECT n FROM counter WHERE id = 1").get() as { n: number };
      try {
        other.prepare("UPDATE counter SET n = n + 100 WHERE id = 1").run();
        otherCommitted = true;
      } catch (e) {
        expect((e as { code?: string }).code).toBe("SQLITE_BUSY");
      }
      server.prepare("UPDATE counter SET n = ? WHERE id = 1").run(n + 1);
    });
    expect(() => increment()).not.toThrow();
    // The transaction held the write lock from its start: the other writer was refused, nothing was lost.
    expect(otherCommitted).toBe(false);
    expect(other.prepare("SELECT n FROM counter WHERE id = 1").pluck().get()).toBe(1);
    other.close();
    server.close();
  });

  it("keeps the transaction function's variants and nesting", () => {
    const db = openDb(tempDir());
    db.exec("CREATE TABLE t (v INTEGER)");
    const inner = db.transaction((v: number) => db.prepare("INSERT INTO t VALUES (?)").run(v));
    const outer = db.transaction(() => {
      inner(1);
      inner.deferred(2);
    });
    outer();
    outer.immediate();
    expect(typeof outer.deferred).toBe("function");
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(4);
    expect(() =>
      db.transaction(() => {
        inner(3);
        throw new Error("rolled back");
      })(),
    ).toThrow("rolled back");
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(4);
    db.close();
  });
});
