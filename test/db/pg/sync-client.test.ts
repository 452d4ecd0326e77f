/**
 * The synchronous PostgreSQL client (src/db/pg/sync-client.ts, thread.ts) on a real server: answers and their
 * types, the server's refusals as PgError, a refused, lost or silent server as PgUnavailableError followed by
 * recovery, and a process that ends whether or not it closed its client.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PgError, PgUnavailableError } from "../../../src/db/pg/errors.js";
import { SyncPgClient } from "../../../src/db/pg/sync-client.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** The error a call throws. */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error("the call did not throw");
}

describePostgres("a SyncPgClient", () => {
  let database: TestDatabase;
  let client: SyncPgClient;
  let admin: SyncPgClient;

  beforeAll(async () => {
    database = await testDatabase();
    client = new SyncPgClient(database.url);
    admin = new SyncPgClient(database.url);
  });

  afterAll(async () => {
    client?.close();
    admin?.close();
    await database?.drop();
  });

  it("answers a statement with its rows in column order, their count and their columns", () => {
    const result = client.query("SELECT $1::int8 + 1 AS n, $2::text AS t, $3::bytea AS b", [
      41,
      "x",
      Buffer.from("hi"),
    ]);
    expect(result.rows).toEqual([[42, "x", Buffer.from("hi")]]);
    expect(Buffer.isBuffer(result.rows[0]![2])).toBe(true);
    expect(result.rowCount).toBe(1);
    expect(result.fields).toEqual([
      { name: "n", dataTypeID: 20 },
      { name: "t", dataTypeID: 25 },
      { name: "b", dataTypeID: 17 },
    ]);
  });

  it("runs a script of several statements", () => {
    client.exec("CREATE TABLE s (v INT); INSERT INTO s VALUES (1); INSERT INTO s VALUES (2)");
    expect(client.query("SELECT SUM(v) FROM s").rows).toEqual([[3]]);
  });

  it("throws what the server refused as a PgError carrying its SQLSTATE", () => {
    const error = thrown(() => client.query("SELECT 1 / 0")) as PgError;
    expect(error).toBeInstanceOf(PgError);
    expect({ code: error.code, message: error.message }).toEqual({ code: "22012", message: "division by zero" });
    expect(client.query("SELECT 1 AS still").rows).toEqual([[1]]);
  });

  it("throws a refused connection as PgUnavailableError", () => {
    const nowhere = new SyncPgClient("postgres://nobody:secret@127.0.0.1:1/none");
    try {
      const error = thrown(() => nowhere.connect()) as PgUnavailableError;
      expect(error).toBeInstanceOf(PgUnavailableError);
      expect(error.code).toBe("ECONNREFUSED");
    } finally {
      nowhere.close();
    }
  });

  it("throws PgUnavailableError for the first call after its connection was killed, and reconnects for the next", () => {
    const pid = client.query("SELECT pg_backend_pid()").rows[0]![0];
    expect(admin.query("SELECT pg_terminate_backend($1)", [pid]).rows).toEqual([[1]]);
    expect(thrown(() => client.query("SELECT 1"))).toBeInstanceOf(PgUnavailableError);
    const again = client.query("SELECT pg_backend_pid()").rows[0]![0];
    expect(again).not.toBe(pid);
  });

  it("throws PgUnavailableError when no answer comes within its bound, and answers again after", () => {
    const slow = new SyncPgClient(database.url, { answerTimeoutMs: 3_000 });
    try {
      // Started and connected first, so that the bound below is the statement's alone.
      slow.connect();
      const error = thrown(() => slow.query("SELECT pg_sleep(30)")) as PgUnavailableError;
      expect(error).toBeInstanceOf(PgUnavailableError);
      expect(error.code).toBe("ETIMEDOUT");
      expect(slow.query("SELECT 2").rows).toEqual([[2]]);
    } finally {
      slow.close();
    }
  });

  it("refuses calls once closed", () => {
    const closed = new SyncPgClient(database.url);
    closed.query("SELECT 1");
    closed.close();
    closed.close();
    expect(() => closed.query("SELECT 1")).toThrow("The PostgreSQL connection is closed");
  });

  it.each(["close", "leave"])("lets its process exit when the script ends (%s the client)", (mode) => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "test/db/pg/fixtures/exit.ts", database.url, mode], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 50_000,
    });
    expect({ status: run.status, signal: run.signal, stdout: run.stdout.trim() }).toEqual({
      status: 0,
      signal: null,
      stdout: "[[42]]",
    });
  });
});
