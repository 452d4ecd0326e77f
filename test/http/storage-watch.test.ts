/**
 * A write that finds the disk full answers 507 storage_full (it had been 500 internal_error), stores nothing of
 * itself, and writes work again once there is room, without a restart. The disk is "full" here through SQLite's
 * max_page_count, which fails a write past it with SQLITE_FULL as a full disk does. /readyz then answers 503
 * storage_full until the data directory's file system (a fake statfs here) has 16 MiB free again, and the -wal's
 * size on top of them when a WAL checkpoint met the full disk.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Checkpointer, type CheckpointInput } from "../../src/db/checkpoints.js";
import type { StoreWriter } from "../../src/domain/writer.js";
import { toApiError } from "../../src/http/errors.js";
import { type FsStats, MIN_FREE_BYTES, StorageWatch } from "../../src/http/storage-watch.js";
import { lifecycle } from "../../src/routes/system.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { periodicJobFailed, startServer } from "../../src/server/start.js";
import type { WorkerPool } from "../../src/workers/pool.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("a full disk", () => {
  it("maps SQLITE_FULL to storage_full; a failed fsync's ENOSPC, which needs a restart, stays a 500", () => {
    expect(toApiError(Object.assign(new Error("full"), { code: "SQLITE_FULL" })).code).toBe("storage_full");
    for (const code of ["ENOSPC", "SQLITE_CORRUPT"])
      expect(toApiError(Object.assign(new Error("x"), { code })).code).toBe("internal_error");
  });

  it("answers a write 507 storage_full, keeps nothing of it, and takes writes again once there is room", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const db = h.db;
    const pages = db.pragma("page_count", { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    const count = () => (db.prepare("SELECT count(*) AS n FROM contents").get() as { n: number }).n;
    const before = count();
    const res = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "No room", content: "x".repeat(200_000) },
    });
    expectErrorBody(res, 507, "storage_full");
    expect(res.body.message).toMatch(/disk is full/);
    expect(count()).toBe(before);
    db.pragma("max_page_count = 1073741823");
    const again = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "Room", content: "x".repeat(200_000) },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });
});

/** A file system whose free space (and the -wal's size) the test sets; counts the statfs calls. */
function fakeDisk(freeBytes: number, data = "/data") {
  const disk = {
    free: freeBytes,
    wal: 0,
    calls: 0,
    fail: false,
    statfs: async (dir: string): Promise<FsStats> => {
      disk.calls++;
      expect(dir).toBe(data);
      if (disk.fail) throw Object.assign(new Error("EIO"), { code: "EIO" });
      return { bsize: 4096, bavail: Math.floor(disk.free / 4096) };
    },
    size: async (file: string): Promise<number> => {
      expect(file).toBe(path.join(data, "content-service.db-wal"));
      return disk.wal;
    },
  };
  return disk;
}

describe("readiness on a full disk", () => {
  it("answers 503 storage_full after a write met SQLITE_FULL, and 200 again once 16 MiB are free", async () => {
    const h = makeHarness();
    const disk = fakeDisk(0);
    h.services.storage = new StorageWatch("/data", disk.statfs);
    const key = h.key({ workspaceId: h.a.ws1 });
    const db = h.db;
    // Ready, and the file system is not asked while no write has met a full disk.
    expect((await h.send("GET", "/readyz")).status).toBe(200);
    expect(disk.calls).toBe(0);

    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
    const write = () =>
      h.send("POST", "/api/v1/contents", { auth: key, body: { title: "T", content: "x".repeat(200_000) } });
    expectErrorBody(await write(), 507, "storage_full");
    const full = await h.send("GET", "/readyz");
    expect(full.status).toBe(503);
    expect(full.body).toMatchObject({
      status: "storage_full",
      error_code: "storage_full",
      required_free_bytes: MIN_FREE_BYTES,
    });
    expect(disk.calls).toBe(1);

    // Room made, but less than 16 MiB: still not ready. A statfs that fails tells nothing: still not ready.
    db.pragma("max_page_count = 1073741823");
    disk.free = MIN_FREE_BYTES - 4096;
    expect((await h.send("GET", "/readyz")).status).toBe(503);
    disk.free = MIN_FREE_BYTES;
    disk.fail = true;
    expect((await h.send("GET", "/readyz")).status).toBe(503);
    disk.fail = false;
    expect((await h.send("GET", "/readyz")).body).toEqual({ status: "ready" });
    const calls = disk.calls;
    expect((await h.send("GET", "/readyz")).status).toBe(200);
    expect(disk.calls).toBe(calls);
    expect((await write()).status).toBe(201);
  });

  it("probes arriving together share one statfs; a write failing during it keeps the disk full", async () => {
    let answer: (s: FsStats) => void = () => {};
    let calls = 0;
    const watch = new StorageWatch("/data", () => {
      calls++;
      return new Promise<FsStats>((resolve) => {
        answer = resolve;
      });
    });
    expect(await watch.isFull()).toBe(false);
    watch.noteFull();
    const probes = [watch.isFull(), watch.isFull()];
    expect(calls).toBe(1);
    watch.noteFull();
    answer({ bsize: 4096n, bavail: 1_000_000n });
    expect(await Promise.all(probes)).toEqual([true, true]);
    // The next probe asks again, and the room it finds clears the mark.
    const next = watch.isFull();
    answer({ bsize: 4096n, bavail: 1_000_000n });
    expect(await next).toBe(false);
    expect(calls).toBe(2);
  });
});

describe("readiness after a WAL checkpoint met a full disk", () => {
  it("counts the -wal's size, stat when asked, on top of 16 MiB before it is ready again, and says so", async () => {
    const h = makeHarness();
    const disk = fakeDisk(MIN_FREE_BYTES);
    h.services.storage = new StorageWatch("/data", disk.statfs, disk.size);
    const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    const notReady = async (required: number) => {
      const res = await h.send("GET", "/readyz");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "storage_full", required_free_bytes: required });
      expect(res.body.message).toContain(`at least ${required} bytes`);
    };
    // A checkpoint copies the WAL's pages into the database file: 16 MiB free is not room for a 40 MiB WAL, and
    // a readiness cleared there would fail the next checkpoint again.
    disk.wal = 40 * 1024 * 1024;
    h.services.storage.noteIfFull(full, "checkpoint");
    await notReady(MIN_FREE_BYTES + disk.wal);
    disk.free = disk.wal + MIN_FREE_BYTES - 4096;
    await notReady(MIN_FREE_BYTES + disk.wal);
    // The -wal is measured at each check: it shrank (a checkpoint that got through started it over).
    disk.wal = 8 * 1024 * 1024;
    expect((await h.send("GET", "/readyz")).body).toEqual({ status: "ready" });

    // Cleared, a write's mark asks 16 MiB again, whatever the -wal holds.
    disk.wal = 40 * 1024 * 1024;
    disk.free = MIN_FREE_BYTES - 4096;
    h.services.storage.noteIfFull(full);
    await notReady(MIN_FREE_BYTES);
    disk.free = MIN_FREE_BYTES;
    expect((await h.send("GET", "/readyz")).status).toBe(200);
  });

  it("the server's own checkpointer marks /readyz, asking the -wal's size on top of 16 MiB until a checkpoint copies it all", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cs-full-"));
    let failing = true;
    // The checkpoints' thread as a full disk would make it answer (its error crosses back with its code); once room
    // is made, a checkpoint that copies every frame of the WAL.
    const checkpointPool: WorkerPool = {
      run: (async (_name: string, input: CheckpointInput) => {
        if (failing && !input.close)
          throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
        return { busy: 0, walFrames: 12, checkpointed: 12 };
      }) as WorkerPool["run"],
      close: async () => {},
    };
    const logger = memoryLogger();
    const server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger, checkpointPool });
    try {
      // 16 MiB free: room enough after a write's failure, not after a checkpoint's with a 40 MiB -wal.
      const disk = fakeDisk(MIN_FREE_BYTES, dir);
      disk.wal = 40 * 1024 * 1024;
      server.services.storage = new StorageWatch(dir, disk.statfs, disk.size);
      await vi.waitFor(() => expect(logger.lines.some((l) => l.message === "checkpoint failed")).toBe(true), {
        timeout: 10_000,
      });
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        status: "storage_full",
        required_free_bytes: MIN_FREE_BYTES + disk.wal,
      });
      // Room made: the next checkpoints get through and copy the whole WAL, which needs no margin any more; the -wal
      // keeps its size, and 16 MiB free is ready again.
      failing = false;
      await vi.waitFor(async () => expect((await fetch(`${server.url}/readyz`)).status).toBe(200), { timeout: 10_000 });
    } finally {
      await server.close();
      lifecycle.draining = false;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a checkpoint that leaves frames behind keeps the -wal's margin; one that copies them all ends it", async () => {
    const disk = fakeDisk(MIN_FREE_BYTES);
    disk.wal = 40 * 1024 * 1024;
    const watch = new StorageWatch("/data", disk.statfs, disk.size);
    watch.noteIfFull(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }), "checkpoint");
    expect(await watch.state()).toEqual({ full: true, requiredFreeBytes: MIN_FREE_BYTES + disk.wal });
    watch.noteCheckpointDone({ walFrames: 12, checkpointed: 5 });
    expect(await watch.state()).toEqual({ full: true, requiredFreeBytes: MIN_FREE_BYTES + disk.wal });
    watch.noteCheckpointDone({ walFrames: 12, checkpointed: 12 });
    expect(await watch.state()).toEqual({ full: false, requiredFreeBytes: MIN_FREE_BYTES });
  });
});

describe("a full disk met by background writes", () => {
  /** A harness whose writer fails the named operations with SQLITE_FULL, watched by a fake disk with no room. */
  function fullFor(ops: string[]) {
    const fail = new Set(ops);
    const h = makeHarness({
      writer: (inline): StoreWriter => ({
        run: (async (op: string, input: unknown) => {
          if (fail.has(op)) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
          return (inline.run as (op: string, input: unknown) => Promise<unknown>)(op, input);
        }) as StoreWriter["run"],
      }),
    });
    h.services.storage = new StorageWatch("/data", fakeDisk(0).statfs);
    return h;
  }

  async function finalizeOne(h: ReturnType<typeof makeHarness>) {
    const key = h.key();
    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Why written updates beat meetings", workspace_id: h.a.ws1, seed: 1 },
    });
    expect(gen.status, JSON.stringify(gen.body)).toBe(201);
    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: gen.body.content_id, finalized_content: `${gen.body.content}\n\nEdited.`, edit_seconds: 5 },
    });
    expect(fin.status, JSON.stringify(fin.body)).toBe(200);
  }

  it.each([
    ["a learning job's result", ["learningComplete"]],
    ["a learning job's claim", ["learningClaim"]],
    ["a knowledge graph update", ["graphRemoveStale", "graphSave", "graphMarkUpdated"]],
  ])("%s makes /readyz answer 503 storage_full", async (_what, ops) => {
    const h = fullFor(ops);
    expect((await h.send("GET", "/readyz")).status).toBe(200);
    await finalizeOne(h);
    await h.services.learning.idle();
    await h.services.graph.idle();
    const ready = await h.send("GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: "storage_full" });
  });

  it("an idempotent response's store makes /readyz answer 503 storage_full; the response itself still goes out", async () => {
    const h = fullFor(["idempotencySave"]);
    const res = await h.send("POST", "/api/v1/contents", {
      auth: h.key({ workspaceId: h.a.ws1 }),
      body: { title: "T", content: "x" },
      headers: { "idempotency-key": "k1" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const ready = await h.send("GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: "storage_full" });
  });

  it("a periodic job's (the idempotency purge's) makes /readyz answer 503 storage_full; another failure does not", async () => {
    const h = fullFor([]);
    const failed = periodicJobFailed(h.services);
    failed("idempotency-purge", Object.assign(new Error("busy"), { code: "SQLITE_BUSY" }));
    expect((await h.send("GET", "/readyz")).status).toBe(200);
    failed("idempotency-purge", Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
    expect((await h.send("GET", "/readyz")).status).toBe(503);
    expect(h.logger.lines.filter((l) => l.message === "periodic job failed")).toHaveLength(2);
  });

  it("a WAL checkpoint's makes /readyz answer 503 storage_full; another failure of it does not", async () => {
    const h = fullFor([]);
    let failure: Error = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    // The checkpoint's thread, failing as the test says (its error crosses back with its code: workers/pool.ts).
    const pool: WorkerPool = { run: () => Promise.reject(failure), close: async () => {} };
    const checkpointer = new Checkpointer(pool, { dataDir: "/data" }, h.logger, {
      everyMs: 10_000,
      failed: (e) => h.services.storage.noteIfFull(e, "checkpoint"),
    });
    await checkpointer.run();
    expect((await h.send("GET", "/readyz")).status).toBe(200);
    failure = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    await checkpointer.run();
    const ready = await h.send("GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: "storage_full" });
    expect(h.logger.lines.filter((l) => l.message === "checkpoint failed")).toHaveLength(2);
  });
});
