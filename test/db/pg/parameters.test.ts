/**
 * SQLite's parameters in PostgreSQL's terms (src/db/pg/parameters.ts), without a server: what translate() numbers
 * and what it leaves alone, and bind()'s values and refusals, which mirror better-sqlite3's.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { bind, translate } from "../../../src/db/pg/parameters.js";

describe("translate", () => {
  it("numbers positional parameters in order", () => {
    expect(translate("SELECT * FROM t WHERE a = ? AND b IN (?, ?)").text).toBe(
      "SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)",
    );
  });

  it("gives each named parameter one number, whatever its prefix and however often it is used", () => {
    const t = translate("UPDATE t SET a = @a, b = :b, c = $c WHERE a = @a OR c = $c");
    expect(t.text).toBe("UPDATE t SET a = $1, b = $2, c = $3 WHERE a = $1 OR c = $3");
    expect(t.slots).toEqual([
      { kind: "named", name: "a" },
      { kind: "named", name: "b" },
      { kind: "named", name: "c" },
    ]);
  });

  it.each([
    ["a string literal with an escaped quote", "SELECT 'it''s ? @x :y $z' || ?", "SELECT 'it''s ? @x :y $z' || $1"],
    ["an escape string", "SELECT E'\\' ? @x' || ?", "SELECT E'\\' ? @x' || $1"],
    [
      "a quoted identifier",
      'SELECT "odd ""?"" @col" FROM t WHERE a = ?',
      'SELECT "odd ""?"" @col" FROM t WHERE a = $1',
    ],
    ["a line comment", "SELECT ? -- what about ? and @x\n, ?", "SELECT $1 -- what about ? and @x\n, $2"],
    ["a nested block comment", "SELECT /* ? /* @x */ :y */ ?", "SELECT /* ? /* @x */ :y */ $1"],
    ["a cast", "SELECT @v::text, ?::int8", "SELECT $1::text, $2::int8"],
    ["a dollar-quoted string", "SELECT $$ ? @x $$, $q$ ? $q$, ?", "SELECT $$ ? @x $$, $q$ ? $q$, $1"],
  ])("leaves %s alone", (_what, sql, expected) => {
    expect(translate(sql).text).toBe(expected);
  });

  it("refuses numbered parameters, which would collide with its own", () => {
    expect(() => translate("SELECT $1")).toThrow(/not PostgreSQL's \$n/);
    expect(() => translate("SELECT ?1")).toThrow(/numbered parameters/);
  });

  it("computes a text's translation once", () => {
    const sql = "SELECT ? AS cached";
    expect(translate(sql)).toBe(translate(sql));
  });
});

describe("bind", () => {
  const sqlite = new Database(":memory:");

  /** What better-sqlite3 says of the same arguments: the value it binds, or its error. */
  function sqliteSays(sql: string, args: unknown[]): unknown {
    try {
      return Object.values(sqlite.prepare(sql).get(...args) as object);
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  }

  function pgSays(sql: string, args: unknown[]): unknown {
    try {
      return bind(translate(sql), args);
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  }

  it.each([
    ["positional values", "SELECT ? a, ? b", [1, "x"]],
    ["an array of values", "SELECT ? a, ? b", [[1, "x"]]],
    ["named values, extra keys ignored", "SELECT @a a, :b b", [{ a: 1, b: "x", c: 3 }]],
    ["named and positional together", "SELECT @a a, ? b", [{ a: 1 }, 2]],
    ["undefined, bound as NULL", "SELECT ? a, @b b", [undefined, { b: undefined }]],
    ["too few values", "SELECT ? a, ? b", [1]],
    ["too many values", "SELECT ? a", [1, 2]],
    ["an object where a value is wanted", "SELECT ? a", [{ a: 1 }]],
    ["a missing name", "SELECT @a a", [{}]],
    ["two objects of names", "SELECT @a a", [{ a: 1 }, { a: 2 }]],
    ["a boolean", "SELECT ? a", [true]],
    ["a date", "SELECT ? a", [new Date(0)]],
  ])("takes %s as better-sqlite3 does", (_what, sql, args) => {
    expect(pgSays(sql, args)).toEqual(sqliteSays(sql, args));
  });

  it("sends a bigint as its digits and bytes as they are", () => {
    const bytes = Buffer.from([0, 255]);
    expect(bind(translate("SELECT ?, ?"), [2n ** 60n, bytes])).toEqual(["1152921504606846976", bytes]);
  });
});
