import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURE_TIMEOUT_MS } from "../helpers/fixture-process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface Outcome {
  ok: boolean;
  name?: string;
  message?: string;
}

/** Runs the fixture (real worker threads, in a process of its own) with a limit of `limitMs` of CPU time. */
function run(limitMs: number) {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/limit-child.ts")],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "", LIMIT_MS: String(limitMs) } },
  );
  return JSON.parse(out) as Record<"foreground" | "background", Scenario> & {
    finished: { first: Outcome; next: Outcome; ended: number };
  };
}

interface Scenario {
  longOne: Outcome;
  shortOnes: Outcome[];
  order: number[];
  waitedMs: number;
  after: Outcome;
  unlimited: Outcome;
  ended: number;
}

describe("a limited task on a worker pool", { timeout: FIXTURE_TIMEOUT_MS }, () => {
  it("is stopped, with its thread, once it has used the limit's CPU time; the tasks behind it are not", () => {
    // The long scoring takes about 2 s of CPU on the development machine: ten times the limit.
    // The background pool keeps no idle thread: the tasks behind the stopped one must not wait for the next task.
    const all = run(200);
    const { finished, ...pools } = all;
    for (const [kind, seen] of Object.entries(pools)) {
      expect(seen.longOne, kind).toMatchObject({ ok: false, name: "TaskLimitError" });
      expect(seen.longOne.message, kind).toMatch(/scoreText task used more than 0.2 s/);
      // The short tasks waited behind it for longer than the limit: waiting is not counted.
      expect(seen.waitedMs, kind).toBeGreaterThan(200);
      expect(seen.shortOnes, kind).toEqual(Array(5).fill({ ok: true }));
      // In the order they were sent.
      expect(seen.order, kind).toEqual([0, 1, 2, 3, 4]);
      // A new thread answers the tasks that follow.
      expect(seen.after, kind).toEqual({ ok: true });
      expect(seen.unlimited, kind).toEqual({ ok: true });
      if (process.platform === "linux") expect(seen.ended, kind).toBeGreaterThanOrEqual(1);
    }
    // A task that returned past the limit before the watch looked is answered, its thread kept, and the task queued
    // behind it runs (ending that thread failed it with "worker exited").
    expect(finished).toEqual({ first: { ok: true }, next: { ok: true }, ended: 0 });
  });

  it("runs to the end under a limit it stays below, and no thread ends", () => {
    const { finished, ...pools } = run(600_000);
    expect(finished).toEqual({ first: { ok: true }, next: { ok: true }, ended: 0 });
    for (const [kind, seen] of Object.entries(pools)) {
      expect(seen.longOne, kind).toEqual({ ok: true });
      expect(seen.shortOnes, kind).toEqual(Array(5).fill({ ok: true }));
      expect(seen.order, kind).toEqual([0, 1, 2, 3, 4]);
      expect(seen.ended, kind).toBe(0);
    }
  });
});

describe("an error thrown on a pool thread", () => {
  it("keeps its code across the thread (SQLITE_BUSY must still become 503 service_busy)", async () => {
    const { default: runTask } = await import("../../src/workers/worker.js");
    const { withCode } = await import("../../src/workers/pool.js");
    // A database file that is not one: better-sqlite3 throws SQLITE_NOTADB, with its code.
    const dir = mkdtempSync(path.join(os.tmpdir(), "cs-code-"));
    writeFileSync(path.join(dir, "content-service.db"), "not a database, ".repeat(1_000));
    let thrown: unknown;
    try {
      runTask({
        name: "graphRead",
        input: {
          db: { dataDir: dir },
          query: { kind: "overview", workspaceId: "ws_x", type: null, limit: 1, minWeight: 1 },
        },
      });
    } catch (e) {
      thrown = e;
    }
    rmSync(dir, { recursive: true, force: true });
    const code = (thrown as { code?: string }).code;
    expect(code).toMatch(/^SQLITE_/);
    // What crosses back from a thread is a structured clone, which keeps an Error's cause but no other property.
    expect((thrown as Error).cause).toEqual({ code });
    expect((withCode(structuredClone(thrown)) as { code?: string }).code).toBe(code);
    const plain = structuredClone(
      Object.assign(new Error("locked", { cause: { code: "SQLITE_BUSY" } }), { code: "x" }),
    );
    expect((plain as { code?: string }).code).toBeUndefined();
    expect((withCode(plain) as { code?: string }).code).toBe("SQLITE_BUSY");
  });

  it("keeps a PostgreSQL error's class across the thread (PgUnavailableError must still become 503, not 500)", async () => {
    const { default: runTask } = await import("../../src/workers/worker.js");
    const { withCode } = await import("../../src/workers/pool.js");
    const { PgError, PgUnavailableError } = await import("../../src/db/pg/errors.js");
    const dir = mkdtempSync(path.join(os.tmpdir(), "cs-pg-code-"));
    let thrown: unknown;
    try {
      runTask({
        name: "graphRead",
        input: {
          // Nothing listens on port 1: the connection is refused.
          db: { dataDir: dir, databaseUrl: "postgres://nobody@127.0.0.1:1/none" },
          query: { kind: "overview", workspaceId: "ws_x", type: null, limit: 1, minWeight: 1 },
        },
      });
    } catch (e) {
      thrown = e;
    }
    rmSync(dir, { recursive: true, force: true });
    expect(thrown).toBeInstanceOf(PgUnavailableError);
    const crossed = withCode(structuredClone(thrown));
    expect(crossed).toBeInstanceOf(PgUnavailableError);
    expect((crossed as Error).message).toBe((thrown as Error).message);
    const refused = withCode(structuredClone(new Error("deadlock", { cause: { code: "40P01", kind: "PgError" } })));
    expect(refused).toBeInstanceOf(PgError);
    expect((refused as { code?: string }).code).toBe("40P01");
  });
});
