/**
 * Transactions of the store's connection on a real PostgreSQL (src/db/pg/connection.ts): commit and rollback, a
 * nested transaction as a savepoint that rolls back alone, a failed statement not silently losing a transaction's
 * writes, a read transaction's one snapshot, and write transactions of two processes serialized by the write lock.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { openPostgres, type PgConnection, WRITE_LOCK_KEY } from "../../../src/db/pg/connection.js";
import { PgError } from "../../../src/db/pg/errors.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");

describePostgres("a PgConnection's transactions", () => {
  let database: TestDatabase;
  let db: PgConnection;
  let other: PgConnection;

  beforeAll(async () => {
    database = await testDatabase();
    db = openPostgres(database.url);
    other = openPostgres(database.url);
    db.exec("CREATE TABLE log (id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE)");
  });

  beforeEach(() => {
    db.exec("TRUNCATE log RESTART IDENTITY");
  });

  afterAll(async () => {
    db?.close();
    other?.close();
    await database?.drop();
  });

  const names = () => db.prepare<[], string>("SELECT name FROM log ORDER BY id").pluck().all();
  const append = (name: string) => db.prepare("INSERT INTO log (name) VALUES (?)").run(name);

  it("commits the body's writes and returns its result, with its arguments and this", () => {
    const add = db.transaction(function (this: { suffix: string }, first: string, second: string) {
      append(first + this.suffix);
      expect(db.inTransaction).toBe(true);
      append(second + this.suffix);
      return "done";
    });
    expect(add.call({ suffix: "!" }, "a", "b")).toBe("done");
    expect(db.inTransaction).toBe(false);
    expect(names()).toEqual(["a!", "b!"]);
  });

  it("rolls back the body's writes when it throws, and rethrows", () => {
    expect(() =>
      db
        .transaction(() => {
          append("gone");
          throw new Error("the body failed");
        })
        .immediate(),
    ).toThrow("the body failed");
    expect(db.inTransaction).toBe(false);
    expect(names()).toEqual([]);
  });

  it("runs a nested transaction as a savepoint that rolls back alone", () => {
    const inner = db.transaction(() => {
      append("inner");
      throw new Error("undo the inner part");
    });
    db.transaction(() => {
      append("outer");
      expect(() => inner()).toThrow(/inner/);
      expect(db.inTransaction).toBe(true);
      db.transaction(() => append("kept"))();
    })();
    expect(names()).toEqual(["outer", "kept"]);
  });

  it("does not commit silently what a failed statement aborted; a savepoint around it saves the rest", () => {
    const duplicate = () => {
      append("a");
      append("a");
    };
    expect(() =>
      db.transaction(() => {
        append("lost");
        expect(duplicate).toThrow(expect.objectContaining({ code: "23505" }));
      })(),
    ).toThrow(expect.objectContaining({ code: "25P02" }));
    expect(names()).toEqual([]);
    db.transaction(() => {
      append("kept");
      expect(() => db.transaction(duplicate)()).toThrow(PgError);
    })();
    expect(names()).toEqual(["kept"]);
  });

  it("refuses a body that returns a promise, and undoes its writes", () => {
    expect(() => db.transaction(async () => append("async"))()).toThrow("Transaction function cannot return a promise");
    expect(names()).toEqual([]);
  });

  it("reads one snapshot in a read transaction while another connection commits, and refuses writes in it", () => {
    append("before");
    const seen = db
      .transaction(() => {
        const first = names();
        other.prepare("INSERT INTO log (name) VALUES (?)").run("meanwhile");
        return [first, names()];
      })
      .deferred();
    expect(seen).toEqual([["before"], ["before"]]);
    expect(names()).toEqual(["before", "meanwhile"]);
    expect(() => db.transaction(() => append("no")).deferred()).toThrow(expect.objectContaining({ code: "25006" }));
  });

  it("serializes two processes' write transactions: the second waits for the first's commit and reads it", async () => {
    let child: ReturnType<typeof runLockedWriter> | undefined;
    db.transaction(() => {
      append("first");
      child = runLockedWriter(database.url);
      // The child's transaction is queued behind this one's lock before this one commits.
      waitUntil(() => waitingForWriteLock(other) === 1);
      append("first again");
    })();
    const output = await child!.done;
    expect(JSON.parse(output)).toEqual(["first", "first again"]);
    expect(names()).toEqual(["first", "first again", "child"]);
  });

  it("ends the transaction when its connection is lost, refuses the rest of it, and works again after", () => {
    expect(() =>
      db.transaction(() => {
        append("lost");
        const pid = db.prepare("SELECT pg_backend_pid()").pluck().get();
        other.prepare("SELECT pg_terminate_backend(?)").run(pid);
        expect(() => append("after the loss")).toThrow(expect.objectContaining({ name: "PgUnavailableError" }));
        expect(db.inTransaction).toBe(false);
        append("still lost");
      })(),
    ).toThrow(/lost in this transaction/);
    expect(db.inTransaction).toBe(false);
    expect(names()).toEqual([]);
  });
});

/** How many connections wait for the write lock (PostgreSQL's lock table, not a clock). */
function waitingForWriteLock(db: PgConnection): number {
  return db
    .prepare<[number], number>(
      "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = ? AND NOT granted",
    )
    .pluck()
    .get(WRITE_LOCK_KEY)!;
}

/** Blocks until `condition` holds, looking every 20 ms; fails after 5,000 looks (the test's bound, not a timing). */
function waitUntil(condition: () => boolean): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let look = 0; look < 5_000; look++) {
    if (condition()) return;
    Atomics.wait(pause, 0, 0, 20);
  }
  throw new Error("the condition never held");
}

/** Starts test/db/pg/fixtures/locked-writer.ts; `done` is what it printed once it exited 0. */
function runLockedWriter(url: string): { done: Promise<string> } {
  const proc = spawn(process.execPath, ["--import", "tsx", "test/db/pg/fixtures/locked-writer.ts", url], { cwd: ROOT });
  let out = "";
  let err = "";
  proc.stdout.on("data", (chunk) => {
    out += chunk;
  });
  proc.stderr.on("data", (chunk) => {
    err += chunk;
  });
  const done = new Promise<string>((resolve, reject) => {
    proc.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`locked-writer exited ${code}: ${err}`))));
  });
  return { done };
}
