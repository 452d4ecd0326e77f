/**
 * The store (src/db/store.ts): the named queries over one connection, with no handle to it and no better-sqlite3
 * type in its interface, so that another storage engine can stand behind it.
 */
import type Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore, type Store } from "../../src/db/store.js";

/** What better-sqlite3 hands out: a connection, a statement, a run's result, a transaction function. */
type Sqlite =
  | Database.Database
  | Database.Statement<unknown[], unknown>
  | Database.RunResult
  | { deferred: unknown; immediate: unknown };

/** Whether `T` is a better-sqlite3 type or holds one as a member or as a function's result, four levels down. */
type Leaks<T, Depth extends unknown[] = []> = T extends Sqlite
  ? true
  : Depth["length"] extends 4
    ? false
    : T extends (...args: never[]) => infer R
      ? Leaks<R, [...Depth, 0]>
      : T extends object
        ? true extends { [K in keyof T]-?: Leaks<T[K], [...Depth, 0]> }[keyof T]
          ? true
          : false
        : false;

/** Compiles only when no member of the Store (nor what its functions return) is a better-sqlite3 type. */
const storeNamesNoSqliteType: [Leaks<Store>] extends [false] ? true : never = true;

function migrated() {
  const db = openDb(":memory:");
  migrate(db);
  return db;
}

describe("the store", () => {
  it("names no better-sqlite3 type in its interface (checked by tsc) and holds no handle to its connection", () => {
    expect(storeNamesNoSqliteType).toBe(true);
    const db = migrated();
    const store = createStore(db);
    expect(Object.values(store as Record<string, unknown>).includes(db)).toBe(false);
    expect("db" in store).toBe(false);
    db.close();
  });

  it("answers the readiness ping while its connection is open, and throws once it is closed", () => {
    const db = migrated();
    const store = createStore(db);
    expect(() => store.misc.ping()).not.toThrow();
    db.close();
    expect(() => store.misc.ping()).toThrow(/not open/);
  });

  it("tells whether there is an account at all", () => {
    const db = migrated();
    const store = createStore(db);
    expect(store.accounts.any()).toBe(false);
    store.accounts.create("A", "business", new Date().toISOString());
    expect(store.accounts.any()).toBe(true);
    db.close();
  });
});
