/** Durable answers without an fsync on the HTTP thread: grouped WAL fsyncs, and checkpoints on another connection. */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Checkpointer, type CheckpointResult, checkpointWal } from "../../src/db/checkpoints.js";
import { type SyncFs, WalSync } from "../../src/db/durability.js";
import { migrate } from "../../src/db/migrate.js";
import { DB_FILE, openDb } from "../../src/db/open.js";
import { threadWriter } from "../../src/domain/writer.js";
import { WriteTurns } from "../../src/http/turns.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";
import { tempDir } from "../helpers/cli.js";
import { makeHarness } from "../helpers/harness.js";

/** File operations whose fsyncs complete when the test says so. */
function manualFs() {
  const waiting: ((error: NodeJS.ErrnoException | null) => void)[] = [];
  let opens = 0;
  let fail: NodeJS.ErrnoException | null = null;
  const files: SyncFs = {
    open: (_file, callback) => {
      opens++;
      setImmediate(() => callback(null, 42));
    },
    fsync: (_fd, callback) => {
      waiting.push(callback);
    },
  };
  return {
    files,
    opens: () => opens,
    pending: () => waiting.length,
    failNext(error: NodeJS.ErrnoException) {
      fail = error;
    },
    /** Completes the oldest fsync. */
    finish() {
      const error = fail;
      fail = null;
      waiting.shift()?.(error);
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("WalSync", () => {
  it("groups the writes that arrive during an fsync into the next one", async () => {
    const fake = manualFs();
    const sync = new WalSync("/data/db-wal", fake.files);
    const done: string[] = [];
    const first = sync.sync().then(() => done.push("first"));
    await tick();
    expect(fake.pending()).toBe(1);
    // Three writes commit while the first fsync runs: it may have started before them, so they wait for one more.
    const later = [1, 2, 3].map((n) => sync.sync().then(() => done.push(`later ${n}`)));
    await tick();
    expect(fake.pending()).toBe(1);
    fake.finish();
    await first;
    expect(done).toEqual(["first"]);
    await tick();
    expect(fake.pending()).toBe(1);
    fake.finish();
    await Promise.all(later);
    expect(done).toEqual(["first", "later 1", "later 2", "later 3"]);
    expect(sync.syncs).toBe(2);
    expect(fake.opens()).toBe(1);
  });

  it("while the writer thread has operations under way, waits for them so that their commits share the fsync", async () => {
    const fake = manualFs();
    let inFlight = 2;
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const sync = new WalSync("/data/db-wal", fake.files, undefined, {
      busy: () => inFlight > 0,
      settled: () => settled,
      maxMs: 60_000,
    });
    const done: string[] = [];
    void sync.sync().then(() => done.push("first"));
    await tick();
    // Not begun: the two operations under way will commit first.
    expect(fake.pending()).toBe(0);
    // Their commits land while it gathers: the fsync not yet begun covers them.
    inFlight = 0;
    for (const n of [1, 2]) void sync.sync().then(() => done.push(`joined ${n}`));
    settle();
    for (let i = 0; i < 4; i++) await tick();
    expect(fake.pending()).toBe(1);
    // One that commits after the fsync began needs the next.
    void sync.sync().then(() => done.push("after"));
    fake.finish();
    await tick();
    expect(done).toEqual(["first", "joined 1", "joined 2"]);
    await tick();
    expect(fake.pending()).toBe(1);
    fake.finish();
    await tick();
    expect(done).toEqual(["first", "joined 1", "joined 2", "after"]);
    expect(sync.syncs).toBe(2);
  });

  it("covers, in one fsync, the writer thread's operations whose callers ask for it after a few awaits", async () => {
    const fake = manualFs();
    // The writer thread's pool, its operations ended by the test.
    const ends: (() => void)[] = [];
    const pool: WorkerPool = {
      run: ((_name: string, task: { ops: unknown[] }) =>
        new Promise((resolve) =>
          ends.push(() => resolve(task.ops.map(() => ({ ok: true, value: undefined })))),
        )) as never,
      close: async () => {},
    };
    const writer = threadWriter(pool, { dataDir: "/nowhere" });
    const sync = new WalSync("/data/db-wal", fake.files, undefined, {
      busy: () => writer.inFlight > 0,
      settled: () => writer.settled(),
      maxMs: 60_000,
    });
    // As the pipeline answers a finalization: the operation, a few hops (handler, idempotency, operate), the sync.
    const answered: number[] = [];
    for (const n of [1, 2, 3])
      void (async () => {
        await writer.run("open", undefined);
        await Promise.resolve();
        await Promise.resolve();
        await sync.sync();
        answered.push(n);
      })();
    await tick();
    expect(writer.inFlight).toBe(3);
    // The first ends and asks for a sync while two are still to run (together, asked for while it ran): the fsync
    // waits for them.
    ends.shift()?.();
    await tick();
    expect(fake.pending()).toBe(0);
    expect(ends.length).toBe(1);
    ends.shift()?.();
    for (let i = 0; i < 4; i++) await tick();
    expect(fake.pending()).toBe(1);
    fake.finish();
    for (let i = 0; i < 2; i++) await tick();
    expect(answered).toEqual([1, 2, 3]);
    expect(sync.syncs).toBe(1);
    expect(fake.pending()).toBe(0);
  });

  it("gathers for at most maxMs, and not at all when the writer thread is idle", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const fake = manualFs();
      let busy = false;
      const sync = new WalSync("/data/db-wal", fake.files, undefined, {
        busy: () => busy,
        settled: () => new Promise<void>(() => {}),
        maxMs: 30,
      });
      const idle = sync.sync();
      await tick();
      await tick();
      expect(fake.pending()).toBe(1);
      fake.finish();
      await idle;
      // The writer never settles: the fsync begins once maxMs has passed.
      busy = true;
      const capped = sync.sync();
      await tick();
      vi.advanceTimersByTime(29);
      await tick();
      expect(fake.pending()).toBe(0);
      vi.advanceTimersByTime(1);
      await tick();
      await tick();
      expect(fake.pending()).toBe(1);
      fake.finish();
      await capped;
      expect(sync.syncs).toBe(2);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("after a failed fsync, acknowledges no write until a restart", async () => {
    const fake = manualFs();
    const failures: Error[] = [];
    const sync = new WalSync("/data/db-wal", fake.files, (e) => failures.push(e));
    const failed = sync.sync();
    await tick();
    fake.failNext(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
    fake.finish();
    await expect(failed).rejects.toThrow("EIO");
    // The kernel may have dropped the pages it could not write: a later fsync's success would prove nothing.
    await expect(sync.sync()).rejects.toThrow("EIO");
    await tick();
    expect(fake.pending()).toBe(0);
    expect(failures).toHaveLength(1);
  });

  it("syncs a real WAL file, and treats a missing one as nothing to sync", async () => {
    const dir = tempDir("cs-walsync-");
    const missing = new WalSync(path.join(dir, "nothing-wal"));
    await missing.sync();
    expect(missing.syncs).toBe(0);
    const db = openDb(dir, { groupCommit: true });
    migrate(db);
    const sync = new WalSync(`${path.join(dir, DB_FILE)}-wal`);
    await sync.sync();
    expect(sync.syncs).toBe(1);
    sync.close();
    db.close();
  });
});

describe("the server's connection", () => {
  it("never checkpoints by itself; the checkpointer's connection does, while the first keeps writing", async () => {
    const dir = tempDir("cs-ckpt-");
    const db = openDb(dir, { groupCommit: true });
    migrate(db);
    expect(db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
    // A safety net far beyond what the checkpointer lets the WAL reach (256 MiB).
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(65_536);
    db.exec("CREATE TABLE t (x TEXT)");
    const insert = db.prepare("INSERT INTO t (x) VALUES (?)");
    const big = "x".repeat(20_000);
    for (let i = 0; i < 400; i++) insert.run(big);
    const wal = `${path.join(dir, DB_FILE)}-wal`;
    // Far past the default threshold of 1,000 pages, and still all in the WAL.
    const grown = statSync(wal).size;
    expect(grown).toBeGreaterThan(4096 * 1000 * 2);

    const checkpointer = new Checkpointer(inlinePool(), { dataDir: dir }, memoryLogger(), { everyMs: 10_000 });
    await checkpointer.run();
    expect(checkpointer.runs).toBe(1);
    // The frames are in the database file now: the next write starts the WAL over instead of growing it.
    insert.run("after");
    for (let i = 0; i < 50; i++) insert.run(big);
    expect(statSync(wal).size).toBe(grown);
    const result = checkpointWal({ dataDir: dir });
    expect(result.busy).toBe(0);
    expect(result.checkpointed).toBe(result.walFrames);
    await checkpointer.stop();
    expect((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(451);
    db.close();
    // Closing the last connection folds the WAL into the database file.
    expect(existsSync(wal)).toBe(false);
    const again = openDb(dir, { readonly: true });
    expect((again.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(451);
    again.close();
  });
});

describe("the checkpointer", () => {
  it("catches up, then holds the write turns for a last checkpoint when commits kept the WAL from starting over", async () => {
    const turns = new WriteTurns();
    const seen: boolean[] = [];
    const answers = [
      { busy: 0, walFrames: 20_000, checkpointed: 20_000 }, // long, and it grew: commits keep it from starting over
      { busy: 0, walFrames: 20_200, checkpointed: 20_200 }, // at once: copies what landed during the first
      { busy: 0, walFrames: 20_300, checkpointed: 20_300 }, // held: nothing lands in between
      { busy: 0, walFrames: 40, checkpointed: 40 }, // the next write started the WAL over
      { busy: 0, walFrames: 9_000, checkpointed: 9_000 }, // long and growing again
      { busy: 0, walFrames: 9_100, checkpointed: 9_100 },
      { busy: 0, walFrames: 9_150, checkpointed: 9_150 }, // held
      { busy: 0, walFrames: 9_150, checkpointed: 9_150 }, // idle: long but unchanged, left alone
    ];
    let finish = () => {};
    const pool: WorkerPool = {
      run: (name) => {
        expect(name).toBe("checkpointWal");
        seen.push(turns.held);
        const answer = answers.shift() as never;
        // The held checkpoint ends when the test says so.
        if (turns.held) return new Promise((resolve) => (finish = () => resolve(answer)));
        return Promise.resolve(answer);
      },
      close: async () => {},
    };
    const checkpointer = new Checkpointer(pool, { dataDir: "/unused" }, memoryLogger(), {
      writes: turns,
      everyMs: 10_000,
      resetFrames: 8_192,
    });
    const first = checkpointer.run();
    for (let i = 0; i < 5; i++) await tick();
    expect(seen).toEqual([false, false, true]);
    // A write asking for its turn now waits for the held checkpoint to end.
    let granted = false;
    const write = turns.next().then(() => {
      granted = true;
    });
    for (let i = 0; i < 5; i++) await tick();
    expect(turns.held).toBe(true);
    expect(granted).toBe(false);
    finish();
    await first;
    await write;
    expect(granted).toBe(true);
    await checkpointer.run();
    const third = checkpointer.run();
    for (let i = 0; i < 5; i++) await tick();
    finish();
    await third;
    await checkpointer.run();
    expect(seen).toEqual([false, false, true, false, false, false, true, false]);
    expect(checkpointer.runs).toBe(8);
    expect(checkpointer.heldRuns).toBe(2);
  });

  it("holds nothing when a reader keeps frames from being copied or the WAL started over, and releases on failure", async () => {
    const turns = new WriteTurns();
    const seen: boolean[] = [];
    const answers: (CheckpointResult | Error)[] = [
      { busy: 0, walFrames: 20_000, checkpointed: 12_000 }, // long and growing: catch up
      { busy: 0, walFrames: 20_400, checkpointed: 12_000 }, // a reader still needs frames: holding would not help
      { busy: 0, walFrames: 30_000, checkpointed: 30_000 }, // growing again
      { busy: 0, walFrames: 300, checkpointed: 300 }, // it started over meanwhile: nothing to hold for
      { busy: 0, walFrames: 9_000, checkpointed: 9_000 }, // growing again
      { busy: 0, walFrames: 9_100, checkpointed: 9_100 },
      new Error("disk I/O error"), // the held checkpoint fails
      { busy: 0, walFrames: 9_200, checkpointed: 9_200 }, // the next tick tries again
      { busy: 0, walFrames: 9_250, checkpointed: 9_250 },
      { busy: 0, walFrames: 9_260, checkpointed: 9_260 }, // held
    ];
    const pool: WorkerPool = {
      run: () => {
        seen.push(turns.held);
        const answer = answers.shift();
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer as never);
      },
      close: async () => {},
    };
    const logger = memoryLogger();
    const checkpointer = new Checkpointer(pool, { dataDir: "/unused" }, logger, {
      writes: turns,
      everyMs: 10_000,
      resetFrames: 8_192,
    });
    await checkpointer.run();
    await checkpointer.run();
    expect(seen).toEqual([false, false, false, false]);
    await checkpointer.run();
    // The failed held checkpoint let the writes go and was logged.
    expect(turns.held).toBe(false);
    expect(JSON.stringify(logger.lines)).toContain("disk I/O error");
    await checkpointer.run();
    expect(seen).toEqual([false, false, false, false, false, false, true, false, false, true]);
    expect(checkpointer.heldRuns).toBe(1);
    expect(turns.held).toBe(false);
  });
});

/** A harness whose fsyncs complete when the test releases them; counts the syncs asked for. */
function heldSyncs() {
  const h = makeHarness();
  let releaseLast = () => {};
  let count = 0;
  h.services.durability = {
    sync: () => {
      count++;
      return new Promise<void>((resolve) => {
        releaseLast = resolve;
      });
    },
  };
  return { h, key: h.key(), asked: () => count, release: () => releaseLast() };
}

describe("the pipeline", () => {
  it("answers a write only once it is on disk; a read waits for nothing", async () => {
    const { h, key, asked, release } = heldSyncs();
    let answered = false;
    const write = h
      .send("POST", "/api/v1/memories", { auth: key, body: { kind: "context", title: "m", content: "c" } })
      .then((r) => {
        answered = true;
        return r;
      });
    for (let i = 0; i < 1000 && asked() === 0; i++) await tick();
    expect(asked()).toBe(1);
    for (let i = 0; i < 5; i++) await tick();
    expect(answered).toBe(false);
    // Meanwhile a read is answered.
    expect((await h.send("GET", "/api/v1/memories", { auth: key })).status).toBe(200);
    expect(asked()).toBe(1);
    release();
    expect((await write).status).toBe(201);
  });

  it("sends a stream's done event only once the stored record is on disk", async () => {
    const { h, key, asked, release } = heldSyncs();
    const res = await h.app.handle(
      new Request("http://test.local/api/v1/generate", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ template_id: 2, user_direction: "A LinkedIn post about hiring", stream: true }),
      }),
    );
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // The stream is pulled: once every delta is read, the record is stored and the stream waits for the fsync.
    let pending = reader.read();
    for (let i = 0; i < 10_000 && asked() === 0; i++) {
      const next = await Promise.race([pending, tick().then(() => null)]);
      if (next === null) continue;
      if (next.done) break;
      text += decoder.decode(next.value);
      pending = reader.read();
    }
    expect(asked()).toBe(1);
    // Nothing more comes while the fsync is held.
    for (let i = 0; i < 5; i++) {
      const next = await Promise.race([pending, tick().then(() => null)]);
      if (next === null) continue;
      if (next.done) break;
      text += decoder.decode(next.value);
      pending = reader.read();
    }
    expect(text).toMatch(/event: delta/);
    expect(text).not.toMatch(/event: done/);
    release();
    for (let next = await pending; !next.done; next = await reader.read()) text += decoder.decode(next.value);
    expect(text).toMatch(/event: done/);
  });
});
