import { describe, expect, it } from "vitest";
import type { SqlConnection } from "../../src/db/connection.js";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { RowCache, rowLookupsOf, UncachedRows } from "../../src/db/row-cache.js";
import { tempDir } from "../helpers/cli.js";

/** Two connections to one file (the server's and the command line's), and a cache over the first. */
function setup(otherWritersMs = 250, maxRows = 10_000) {
  const dir = tempDir("cs-rowcache-");
  const db = openDb(dir);
  migrate(db);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  db.prepare("INSERT INTO t (id, v) VALUES (1, 'one'), (2, 'two'), (3, 'three')").run();
  const other = openDb(dir);
  let now = 0;
  const cache = new RowCache(db, otherWritersMs, maxRows, () => now);
  const byId = db.prepare<[number], { id: number; v: string }>("SELECT * FROM t WHERE id = ?");
  let loads = 0;
  const get = (id: number) =>
    cache.get(`t:${id}`, () => {
      loads++;
      return byId.get(id);
    });
  return {
    db,
    other,
    get,
    loads: () => loads,
    advance: (ms: number) => {
      now += ms;
    },
    close() {
      other.close();
      db.close();
    },
  };
}

describe("RowCache", () => {
  it("reads a row once while the database is unchanged", () => {
    const s = setup();
    expect(s.get(1)?.v).toBe("one");
    expect(s.get(1)?.v).toBe("one");
    s.advance(10_000);
    expect(s.get(1)?.v).toBe("one");
    expect(s.loads()).toBe(1);
    s.close();
  });

  it("reads again after any write on its own connection, at once", () => {
    const s = setup();
    s.get(1);
    s.db.prepare("UPDATE t SET v = 'uno' WHERE id = 1").run();
    expect(s.get(1)?.v).toBe("uno");
    // A write to another row or table empties the cache too.
    s.db.prepare("UPDATE t SET v = 'dos' WHERE id = 2").run();
    expect(s.get(1)?.v).toBe("uno");
    expect(s.loads()).toBe(2 + 1);
    s.close();
  });

  it("sees another process's write within its interval, never later", () => {
    const s = setup(250);
    s.get(1);
    s.other.prepare("UPDATE t SET v = 'revoked' WHERE id = 1").run();
    // Within the interval the kept row may still be served …
    s.advance(100);
    expect(s.get(1)?.v).toBe("one");
    // … and once it has passed, the change is seen.
    s.advance(150);
    expect(s.get(1)?.v).toBe("revoked");
    s.close();
  });

  it("keeps no misses, and starts over when full", () => {
    const s = setup(250, 2);
    expect(s.get(99)).toBeUndefined();
    expect(s.get(99)).toBeUndefined();
    expect(s.loads()).toBe(2);
    s.get(1);
    s.get(2);
    expect(s.loads()).toBe(4);
    // Full at two rows: the third empties the cache before it is kept.
    s.get(3);
    s.get(1);
    expect(s.loads()).toBe(6);
    s.get(3);
    s.get(1);
    expect(s.loads()).toBe(6);
    s.close();
  });
});

describe("rowLookupsOf", () => {
  it("caches on SQLite and reads every time on PostgreSQL, where other servers write unseen", () => {
    const s = setup();
    expect(rowLookupsOf(s.db)).toBeInstanceOf(RowCache);
    const postgres = { ...s.db, dialect: "postgres" } as unknown as SqlConnection;
    const lookups = rowLookupsOf(postgres);
    expect(lookups).toBeInstanceOf(UncachedRows);
    let loads = 0;
    const load = () => ({ n: ++loads });
    expect(lookups.get("k", load)).toEqual({ n: 1 });
    expect(lookups.get("k", load)).toEqual({ n: 2 });
    s.close();
  });
});
