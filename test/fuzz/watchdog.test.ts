/** The fuzz run's watchdog (watchdog.ts): a request that blocks the event loop is reported with its seed, then ended. */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { watchdog } from "./watchdog.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Blocks this thread, as a handler looping on the event loop would, until `done()` or 20 s have passed. */
function blockUntil(done: () => boolean): void {
  const until = Date.now() + 20_000;
  while (Date.now() < until && !done());
}

/** A watchdog writing to a file, and what it wrote so far. */
function watched(reportAfterMs: number) {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "watchdog-")), "stderr");
  const fd = openSync(file, "w");
  const dog = watchdog(reportAfterMs, 600_000, fd);
  return {
    dog,
    written: () => readFileSync(file, "utf8"),
    stop: async () => {
      await dog.stop();
      closeSync(fd);
    },
  };
}

describe("fuzz watchdog", () => {
  it("reports a request whose answer does not come, with its operation and seed, while the thread is blocked", async () => {
    const w = watched(100);
    w.dog.begin("getUsage (seed 1234): GET /api/v1/usage?to=9999-12-31");
    // Written while this thread is blocked: nothing here has a chance to run.
    blockUntil(() => w.written().includes("\n", 1));
    const report = w.written();
    w.dog.end();
    await w.stop();
    expect(report).toContain("fuzz: no answer after 0.1 s to getUsage (seed 1234): GET /api/v1/usage?to=9999-12-31");
    expect(report.match(/no answer/g)).toHaveLength(1);
  });

  it("says nothing of requests that are answered", async () => {
    const w = watched(200);
    for (let i = 0; i < 20; i++) {
      w.dog.begin(`op (seed ${i}): GET /x`);
      await Promise.resolve();
      w.dog.end();
    }
    // Long past the report's time, with no request waiting.
    await new Promise((r) => setTimeout(r, 1_000));
    await w.stop();
    expect(w.written()).toBe("");
  });

  it("ends a process whose request never comes back, after saying which", () => {
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "test/fuzz/fixtures/hang-child.ts")],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(child.signal).toBe("SIGKILL");
    expect(child.stderr).toContain("fuzz: no answer after 0.1 s to hangingOp (seed 42): GET /api/v1/never");
    expect(child.stderr).toContain("fuzz: still no answer after 0.6 s; ending the test process");
  });
});
