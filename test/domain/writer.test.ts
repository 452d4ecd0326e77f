/** The writer's queue (src/domain/writer.ts): order, holds for the checkpointer, close, and errors crossing back. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Checkpointer } from "../../src/db/checkpoints.js";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { threadDb } from "../../src/db/thread-store.js";
import { ApiError } from "../../src/domain/errors.js";
import { zeroCounts } from "../../src/domain/usage.js";
import { inlineWriter, MAX_BATCH, runWrite, threadWriter } from "../../src/domain/writer.js";
import { memoryLogger } from "../../src/runtime/log.js";
import type { WorkerPool } from "../../src/workers/pool.js";
import { makeHarness } from "../helpers/harness.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A pool whose "write" tasks end when the test says so; records the operations in the order they began, and the
 * tasks (batches) they came in.
 */
function gatedPool() {
  const begun: string[] = [];
  const tasks: string[][] = [];
  const pending: (() => void)[] = [];
  const pool: WorkerPool = {
    run: ((name: string, input: { ops?: { op: string }[]; close?: boolean }) => {
      if (name === "checkpointWal")
        return Promise.resolve({
          busy: 0,
          walFrames: 20_000 + begun.length,
          checkpointed: 20_000 + begun.length,
        } as never);
      const ops = input.close ? ["close"] : (input.ops ?? []).map((o) => o.op);
      begun.push(...ops);
      tasks.push(ops);
      const answer = input.close ? { ok: true, value: null } : ops.map((op) => ({ ok: true, value: op }));
      return new Promise((resolve) => pending.push(() => resolve(answer as never)));
    }) as WorkerPool["run"],
    close: async () => {},
  };
  const finishAll = () => {
    for (const finish of pending.splice(0)) finish();
  };
  return { pool, begun, tasks, finishAll };
}

/** A migrated data directory with account 7, for usage rows (usageAdd) written through runWrite. */
function usageDir(prefix: string) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const db = openDb(dir);
  migrate(db);
  db.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES (7, 'Usage', 'pro', '2026-01-01')").run();
  db.close();
  return {
    location: { dataDir: dir },
    row: (day: string) => ({ account_id: 7, key_id: "", day, ...zeroCounts(), requests: 1 }),
    /** The days stored, read on a connection of its own. */
    days() {
      const check = openDb(dir, { readonly: true });
      const days = check.prepare("SELECT day FROM usage_daily ORDER BY day").pluck().all();
      check.close();
      return days;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe("the thread writer", () => {
  it("begins operations in the order asked, none while held, and settles when those begun have ended", async () => {
    const { pool, begun, tasks, finishAll } = gatedPool();
    const writer = threadWriter(pool, { dataDir: "/unused" });
    const first = writer.run("graphMarkUpdated", { workspaceId: "ws", now: "t" });
    await tick();
    expect(begun).toEqual(["graphMarkUpdated"]);
    const release = writer.hold();
    const later = [
      writer.run("learningClaim", { owner: "a", now: "t", leaseUntil: "t" }),
      writer.run("sessionsPurge", { now: "t" }),
    ];
    let settled = false;
    void writer.settled().then(() => {
      settled = true;
    });
    for (let i = 0; i < 3; i++) await tick();
    // Held: nothing new began, and the operation in progress has not ended yet.
    expect(begun).toEqual(["graphMarkUpdated"]);
    expect(settled).toBe(false);
    finishAll();
    await first;
    await tick();
    expect(settled).toBe(true);
    release();
    for (let i = 0; i < 3; i++) await tick();
    // The first released found the thread idle and went alone; the second, asked for while it ran, waits for it.
    expect(begun).toEqual(["graphMarkUpdated", "learningClaim"]);
    finishAll();
    for (let i = 0; i < 3; i++) await tick();
    expect(begun).toEqual(["graphMarkUpdated", "learningClaim", "sessionsPurge"]);
    finishAll();
    expect(await Promise.all(later)).toEqual(["learningClaim", "sessionsPurge"]);
    expect(tasks).toEqual([["graphMarkUpdated"], ["learningClaim"], ["sessionsPurge"]]);
    const closing = writer.close();
    await tick();
    finishAll();
    await closing;
    await expect(writer.run("sessionsPurge", { now: "t" })).rejects.toThrow(/closed/);
  });

  it("sends the operations asked for while the thread is busy together, at most MAX_BATCH, in order", async () => {
    const { pool, tasks, finishAll } = gatedPool();
    const writer = threadWriter(pool, { dataDir: "/unused" });
    const first = writer.run("sessionsPurge", { now: "t" });
    await tick();
    const waiting = Array.from({ length: MAX_BATCH + 2 }, (_, i) =>
      writer.run("learningClaim", { owner: `j${i}`, now: "t", leaseUntil: "t" }),
    );
    await tick();
    expect(tasks).toEqual([["sessionsPurge"]]);
    expect(writer.inFlight).toBe(MAX_BATCH + 3);
    finishAll();
    await first;
    for (let i = 0; i < 3; i++) await tick();
    expect(tasks.map((t) => t.length)).toEqual([1, MAX_BATCH]);
    finishAll();
    for (let i = 0; i < 3; i++) await tick();
    expect(tasks.map((t) => t.length)).toEqual([1, MAX_BATCH, 2]);
    finishAll();
    expect(await Promise.all(waiting)).toEqual(waiting.map(() => "learningClaim"));
    expect(writer.inFlight).toBe(0);
  });

  it("runs an image's write in a transaction of its own, the operations around it in batches", async () => {
    const { pool, tasks, finishAll } = gatedPool();
    const writer = threadWriter(pool, { dataDir: "/unused" });
    const first = writer.run("sessionsPurge", { now: "t" });
    await tick();
    const image = { accountId: 1, image: {} as never, now: "t" };
    const waiting = [
      writer.run("learningClaim", { owner: "a", now: "t", leaseUntil: "t" }),
      writer.run("learningClaim", { owner: "b", now: "t", leaseUntil: "t" }),
      writer.run("imageCreate", image),
      writer.run("imageCreate", image),
      writer.run("learningClaim", { owner: "c", now: "t", leaseUntil: "t" }),
    ];
    await tick();
    finishAll();
    await first;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 3; i++) await tick();
      finishAll();
    }
    await Promise.all(waiting);
    expect(tasks).toEqual([
      ["sessionsPurge"],
      ["learningClaim", "learningClaim"],
      ["imageCreate"],
      ["imageCreate"],
      ["learningClaim"],
    ]);
  });

  it("runs a batch in one transaction where a failing operation rolls back alone", () => {
    const { location, row: good, days, remove } = usageDir("cs-writer-batch-");
    try {
      const bad = { account_id: 999_999, key_id: "", day: "2026-01-02", ...zeroCounts() };
      const outcomes = runWrite({
        db: location,
        ops: [
          { op: "usageAdd", input: [good("2026-01-01")] },
          // Its first row is fine, its second is not: the operation rolls back whole, and alone.
          { op: "usageAdd", input: [good("2026-01-02"), bad] },
          { op: "usageAdd", input: [good("2026-01-03")] },
        ],
      });
      runWrite({ db: location, close: true });
      expect(outcomes).toMatchObject([
        { ok: true },
        { ok: false, name: "SqliteError", code: "SQLITE_CONSTRAINT_FOREIGNKEY" },
        { ok: true },
      ]);
      expect(days()).toEqual(["2026-01-01", "2026-01-03"]);
    } finally {
      remove();
    }
  });

  it("fails the whole batch when SQLite rolls back the transaction (disk full), running nothing after it", () => {
    const { location, row, days, remove } = usageDir("cs-writer-full-");
    try {
      // The worker task's own connection (cached per thread), with no room to grow.
      const db = threadDb(location, { groupCommit: true });
      const pages = db.pragma("page_count", { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
      const many = Array.from({ length: 5_000 }, (_, i) =>
        row(`2027-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")}`),
      ).map((r, i) => ({ ...r, key_id: `k${i}` }));
      const outcomes = runWrite({
        db: location,
        ops: [
          { op: "usageAdd", input: [row("2026-01-01")] },
          { op: "usageAdd", input: many },
          { op: "usageAdd", input: [row("2026-01-03")] },
        ],
      }) as { ok: boolean; code?: string }[];
      expect(db.inTransaction).toBe(false);
      expect(outcomes.map((o) => o.ok)).toEqual([false, false, false]);
      expect(outcomes[0].code).toBe("SQLITE_FULL");
      expect(days()).toEqual([]);
    } finally {
      // The cached connection, limited in size, goes even when an expectation failed.
      runWrite({ db: location, close: true });
      remove();
    }
  });

  it("fails every operation of a batch the thread could not run, lowers the write flag, and goes on", async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const answers: (() => Promise<unknown>)[] = [
      () => new Promise((resolve) => setImmediate(() => resolve([{ ok: true, value: 1 }]))),
      () => Promise.reject(new Error("worker exited")),
      () => Promise.resolve({ ok: true, value: "not a list" }),
      () => Promise.resolve([{ ok: true, value: 4 }]),
    ];
    const pool: WorkerPool = { run: (() => answers.shift()?.()) as never, close: async () => {} };
    const writer = threadWriter(pool, { dataDir: "/unused", writeSignal: flag });
    const first = writer.run("sessionsPurge", { now: "t" });
    // Asked for while the first runs: one batch, which the thread fails.
    const second = [writer.run("sessionsPurge", { now: "t" }), writer.run("sessionsPurge", { now: "t" })];
    Atomics.store(flag, 0, 1);
    await expect(first).resolves.toBe(1);
    for (const p of second) await expect(p).rejects.toThrow("worker exited");
    expect(Atomics.load(flag, 0)).toBe(0);
    // An answer of the wrong shape fails its callers instead of leaving them waiting.
    await expect(writer.run("sessionsPurge", { now: "t" })).rejects.toThrow(/answered 1 operations/);
    await expect(writer.run("sessionsPurge", { now: "t" })).resolves.toBe(4);
    expect(writer.inFlight).toBe(0);
  });

  it("closes only after the operations already asked for have run", async () => {
    const { pool, tasks, finishAll } = gatedPool();
    const writer = threadWriter(pool, { dataDir: "/unused" });
    const first = writer.run("sessionsPurge", { now: "t" });
    await tick();
    const queued = writer.run("learningClaim", { owner: "a", now: "t", leaseUntil: "t" });
    const closing = writer.close();
    await tick();
    expect(tasks).toEqual([["sessionsPurge"]]);
    finishAll();
    await first;
    for (let i = 0; i < 3; i++) await tick();
    expect(tasks).toEqual([["sessionsPurge"], ["learningClaim"]]);
    finishAll();
    await queued;
    for (let i = 0; i < 3; i++) await tick();
    expect(tasks).toEqual([["sessionsPurge"], ["learningClaim"], ["close"]]);
    finishAll();
    await closing;
  });

  it("lets the checkpointer run its WAL-resetting checkpoint only once the writer's operation in progress ended", async () => {
    const { pool, begun, finishAll } = gatedPool();
    const writer = threadWriter(pool, { dataDir: "/unused" });
    const checkpoints: number[] = [];
    const checkpointPool: WorkerPool = {
      run: ((name: string) => {
        checkpoints.push(begun.length);
        return pool.run(name as "checkpointWal", { dataDir: "/unused" });
      }) as WorkerPool["run"],
      close: async () => {},
    };
    const checkpointer = new Checkpointer(checkpointPool, { dataDir: "/unused" }, memoryLogger(), {
      writes: writer,
      everyMs: 10_000,
      resetFrames: 8,
    });
    const inProgress = writer.run("graphMarkUpdated", { workspaceId: "ws", now: "t" });
    await tick();
    // The first checkpoint finds a long, growing WAL: a second follows at once, then a third holds the writes and
    // waits for the operation in progress.
    const run = checkpointer.run();
    for (let i = 0; i < 3; i++) await tick();
    expect(checkpoints).toEqual([1, 1]);
    const queued = writer.run("learningClaim", { owner: "a", now: "t", leaseUntil: "t" });
    for (let i = 0; i < 3; i++) await tick();
    expect(checkpoints).toEqual([1, 1]);
    finishAll();
    await inProgress;
    await run;
    expect(checkpoints).toEqual([1, 1, 1]);
    expect(checkpointer.heldRuns).toBe(1);
    // The write asked for during the held checkpoint began after it.
    for (let i = 0; i < 3; i++) await tick();
    expect(begun).toEqual(["graphMarkUpdated", "learningClaim"]);
    finishAll();
    await queued;
  });

  it("rethrows an ApiError with its code and details, and another error with its name and code", async () => {
    const h = makeHarness();
    const writer = inlineWriter(h.services.store);
    const account = h.services.store.accounts.byId(h.a.id)!;
    const missing = writer.run("finalize", {
      account,
      boundWorkspaceId: null,
      req: { content_id: 424_242, finalized_content: "Text.", edit_seconds: 1 },
      nowMs: Date.now(),
    });
    await expect(missing).rejects.toBeInstanceOf(ApiError);
    await expect(missing).rejects.toMatchObject({ code: "content_not_found", details: { content_id: 424_242 } });

    // Through the worker task's outcome: a SQLite error (here a row of no account) keeps its name and code.
    const dir = mkdtempSync(path.join(tmpdir(), "cs-writer-unit-"));
    try {
      const db = openDb(dir);
      migrate(db);
      db.close();
      const row = { account_id: 999_999, key_id: "", day: "2026-01-01", ...zeroCounts() };
      const [outcome] = runWrite({ db: { dataDir: dir }, ops: [{ op: "usageAdd", input: [row] }] });
      runWrite({ db: { dataDir: dir }, close: true });
      expect(outcome).toMatchObject({ ok: false, name: "SqliteError", code: "SQLITE_CONSTRAINT_FOREIGNKEY" });
      const viaPool = threadWriter(
        { run: (async () => [outcome]) as unknown as WorkerPool["run"], close: async () => {} },
        { dataDir: dir },
      );
      await expect(viaPool.run("usageAdd", [row])).rejects.toMatchObject({
        name: "SqliteError",
        code: "SQLITE_CONSTRAINT_FOREIGNKEY",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the thread writer and the storage quota", () => {
  it("stores the writes of one batch only as far as the account's storage quota has room", () => {
    const { location, remove } = usageDir("cs-writer-quota-");
    try {
      const setup = openDb(location.dataDir);
      setup
        .prepare("INSERT INTO workspaces (id, account_id, name, is_default, created_at) VALUES ('w', 7, 'W', 1, 't')")
        .run();
      // Room for two drafts of 101 bytes (title and text), not three.
      setup.prepare("UPDATE accounts SET storage_bytes = 250 WHERE id = 7").run();
      setup.close();
      const draft = {
        accountId: 7,
        workspaceId: "w",
        templateId: null,
        title: "t",
        content: "x".repeat(100),
        now: "t",
      };
      const outcomes = runWrite({
        db: location,
        ops: Array.from({ length: 4 }, () => ({ op: "draftCreate" as const, input: draft })),
      });
      runWrite({ db: location, close: true });
      expect(outcomes.map((o) => o.ok)).toEqual([true, true, false, false]);
      expect(outcomes[2]).toMatchObject({
        apiError: {
          code: "storage_quota_exceeded",
          details: { limit_bytes: 250, used_bytes: 202, requested_bytes: 101 },
        },
      });
      const check = openDb(location.dataDir, { readonly: true });
      expect(check.prepare("SELECT count(*) FROM contents").pluck().get()).toBe(2);
      expect(check.prepare("SELECT used_bytes FROM storage_usage WHERE account_id = 7").pluck().get()).toBe(202);
      check.close();
    } finally {
      remove();
    }
  });
});
