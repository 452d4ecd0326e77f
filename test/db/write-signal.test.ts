/**
 * The server's two writing connections share a flag (src/db/open.ts writeSignal): the writer thread's transactions
 * raise it, and the HTTP thread's wait for it to fall instead of sleeping in SQLite's busy handler.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { DB_FILE, openDb, waitWhileRaised } from "../../src/db/open.js";
import { closeThreadStore, threadStore } from "../../src/db/thread-store.js";
import { threadWriter } from "../../src/domain/writer.js";
import type { WorkerPool } from "../../src/workers/pool.js";
import { tempDir } from "../helpers/cli.js";

/** A writer on another thread: raises the flag, holds a write transaction for `holdMs`, commits, lowers it. */
const WRITER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file);
const flag = workerData.flag;
Atomics.store(flag, 0, 1);
db.exec("BEGIN IMMEDIATE");
db.prepare("INSERT INTO kv(k, v) VALUES ('writer', 1)").run();
parentPort.postMessage("began");
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
db.exec("COMMIT");
Atomics.store(flag, 0, 0);
Atomics.notify(flag, 0);
db.close();
`;

/** Starts WRITER on the data directory's database; resolves once its transaction has begun. */
async function writerHolding(dir: string, flag: Int32Array, holdMs = 100): Promise<Worker> {
  const worker = new Worker(WRITER, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve("better-sqlite3"),
      file: path.join(dir, DB_FILE),
      flag,
      holdMs,
    },
  });
  await new Promise<void>((resolve) => worker.once("message", () => resolve()));
  return worker;
}

describe("the write flag", () => {
  it("lets a transaction wait for the writer's commit where SQLite would have answered busy", async () => {
    const dir = tempDir("cs-signal-");
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const db = openDb(dir, { groupCommit: true, writeSignal: { flag, role: "waiter" } });
    migrate(db);
    db.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)");
    // No busy handler: without the flag, a transaction that finds the writer's in progress fails at once.
    db.pragma("busy_timeout = 0");
    const worker = await writerHolding(dir, flag);
    expect(Atomics.load(flag, 0)).toBe(1);
    const plain = openDb(dir, { groupCommit: true });
    plain.pragma("busy_timeout = 0");
    expect(() => plain.transaction(() => plain.prepare("INSERT INTO kv(k, v) VALUES ('plain', 1)").run())()).toThrow(
      /locked|busy/i,
    );
    db.transaction(() => db.prepare("INSERT INTO kv(k, v) VALUES ('waiter', 2)").run())();
    expect(db.prepare("SELECT k FROM kv ORDER BY k").pluck().all()).toEqual(["waiter", "writer"]);
    await new Promise((resolve) => worker.once("exit", resolve));
    plain.close();
    db.close();
  });

  it("makes a write outside a transaction wait for the writer's commit as well", async () => {
    const dir = tempDir("cs-signal-");
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const db = openDb(dir, { groupCommit: true, writeSignal: { flag, role: "waiter" } });
    db.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)");
    db.pragma("busy_timeout = 0");
    const insert = db.prepare("INSERT INTO kv(k, v) VALUES (?, ?) RETURNING k");
    const worker = await writerHolding(dir, flag);
    const plain = openDb(dir, { groupCommit: true });
    plain.pragma("busy_timeout = 0");
    expect(() => plain.prepare("INSERT INTO kv(k, v) VALUES ('plain', 1)").run()).toThrow(/locked|busy/i);
    // A read goes on while the writer holds its transaction (WAL): it does not wait for the flag.
    expect(db.prepare("SELECT count(*) FROM kv").pluck().get()).toBe(0);
    expect(Atomics.load(flag, 0)).toBe(1);
    expect(insert.get("single", 1)).toEqual({ k: "single" });
    expect(Atomics.load(flag, 0)).toBe(0);
    expect(db.prepare("UPDATE kv SET v = v + 1").run().changes).toBe(2);
    await new Promise((resolve) => worker.once("exit", resolve));
    plain.close();
    db.close();
  });

  it("is raised by the writer's connection for each outermost transaction, and lowered after a rollback", () => {
    const dir = tempDir("cs-signal-");
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const db = openDb(dir, { groupCommit: true, writeSignal: { flag, role: "writer" } });
    db.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)");
    const seen: number[] = [];
    db.transaction(() => {
      seen.push(Atomics.load(flag, 0));
      db.transaction(() => seen.push(Atomics.load(flag, 0)))();
      seen.push(Atomics.load(flag, 0));
    })();
    expect(seen).toEqual([1, 1, 1]);
    expect(Atomics.load(flag, 0)).toBe(0);
    expect(() =>
      db.transaction(() => {
        db.prepare("INSERT INTO kv(k, v) VALUES ('a', 1)").run();
        throw new Error("no");
      })(),
    ).toThrow("no");
    expect(Atomics.load(flag, 0)).toBe(0);
    expect(db.prepare("SELECT count(*) FROM kv").pluck().get()).toBe(0);
    db.close();
  });

  it("is the writer thread's to raise: its group-commit store raises it, a reading store has none", () => {
    const dir = tempDir("cs-signal-");
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const location = { dataDir: dir, writeSignal: flag };
    const setup = openDb(dir);
    migrate(setup);
    setup.close();
    const writer = threadStore(location, { groupCommit: true });
    expect(writer.transaction(() => Atomics.load(flag, 0))).toBe(1);
    expect(Atomics.load(flag, 0)).toBe(0);
    closeThreadStore(location);
    const checkpoints = threadStore(location);
    expect(checkpoints.transaction(() => Atomics.load(flag, 0))).toBe(0);
    closeThreadStore(location);
  });

  it("is lowered when the writer thread fails mid-operation, and a raised flag is waited for at most its timeout", async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    // The thread ended while its transaction had the flag raised.
    Atomics.store(flag, 0, 1);
    const dead: WorkerPool = {
      run: (() => Promise.reject(new Error("worker exited"))) as never,
      close: async () => {},
    };
    const writer = threadWriter(dead, { dataDir: "/nowhere", writeSignal: flag });
    await expect(writer.run("open", undefined)).rejects.toThrow("worker exited");
    expect(Atomics.load(flag, 0)).toBe(0);
    // A flag nobody lowers holds a transaction back only until the timeout; then it tries anyway.
    Atomics.store(flag, 0, 1);
    waitWhileRaised(flag, 20);
    expect(Atomics.load(flag, 0)).toBe(1);
  });

  it("keeps better-sqlite3's transaction function: this, arguments, read-only variants", () => {
    const dir = tempDir("cs-signal-");
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const db = openDb(dir, { groupCommit: true, writeSignal: { flag, role: "writer" } });
    const tx = db.transaction(function (this: { base: number } | undefined, n: number) {
      return (this?.base ?? 0) + n;
    });
    expect(tx.call({ base: 40 }, 2)).toBe(42);
    expect(tx.immediate).toBe(tx);
    expect(tx.default).toBe(tx);
    expect(tx.deferred(1)).toBe(1);
    expect(() => {
      (tx as unknown as { immediate: unknown }).immediate = null;
    }).toThrow();
    db.close();
  });
});
