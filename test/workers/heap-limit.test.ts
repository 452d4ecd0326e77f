/**
 * Every worker thread has a bounded heap (workers/limits.ts TASK_HEAP_LIMIT_MB): a task that needs more fails alone,
 * with its thread, the tasks behind it run on the thread that replaces it, and the request that waited for it answers
 * 422 processing_limit_exceeded.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TaskHeapLimitError } from "../../src/runtime/task-pool.js";
import { TASK_CPU_LIMIT_MS, TASK_HEAP_LIMIT_MB } from "../../src/workers/limits.js";
import { FIXTURE_TIMEOUT_MS } from "../helpers/fixture-process.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";
import { hookedPool } from "../helpers/pools.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface Outcome {
  ok: boolean;
  name?: string;
  message?: string;
}

/** Runs the fixture (real worker threads, in a process of its own) with threads of `heapMb` of heap. */
function run(heapMb: number) {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/heap-child.ts")],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "", HEAP_MB: String(heapMb) } },
  );
  return JSON.parse(out) as Record<
    "foreground" | "background",
    { largeOne: Outcome; smallOnes: Outcome[]; order: number[]; after: Outcome }
  >;
}

describe("a task past its thread's heap", { timeout: FIXTURE_TIMEOUT_MS }, () => {
  it("fails alone with TaskHeapLimitError; the tasks behind it and after it are answered", () => {
    for (const [kind, seen] of Object.entries(run(64))) {
      expect(seen.largeOne, kind).toMatchObject({ ok: false, name: "TaskHeapLimitError" });
      expect(seen.largeOne.message, kind).toMatch(/ingestText task needed more than the 64 MB/);
      expect(seen.smallOnes, kind).toEqual(Array(3).fill({ ok: true }));
      expect(seen.order, kind).toEqual([0, 1, 2]);
      expect(seen.after, kind).toEqual({ ok: true });
    }
  });

  it("runs to the end with the default heap", () => {
    for (const [kind, seen] of Object.entries(run(TASK_HEAP_LIMIT_MB)))
      expect(seen.largeOne, kind).toEqual({ ok: true });
  });

  it("answers the request 422 processing_limit_exceeded, with the limit", async () => {
    const pool = hookedPool((name) => {
      if (name === "ingestText" || name === "scoreText") throw new TaskHeapLimitError(name, TASK_CPU_LIMIT_MS, 64);
    });
    const h = makeHarness({ pool });
    const key = h.key();
    const requests: [string, unknown][] = [
      ["/api/v1/reference-materials", { content: "- a\n- b", format: "markdown" }],
      ["/api/v1/scoring", { text: "A short note." }],
    ];
    for (const [at, body] of requests) {
      const details = expectErrorBody(await h.send("POST", at, { auth: key, body }), 422, "processing_limit_exceeded");
      expect(details, at).toEqual({ error_code: "processing_limit_exceeded", limit_heap_mb: 64 });
    }
    expect((await h.send("GET", "/api/v1/reference-materials", { auth: key })).body.data).toEqual([]);
  });
});
