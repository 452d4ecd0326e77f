/**
 * Idle worker threads past a pool's minimum end after its idle timeout (workers/pool.ts IDLE_TIMEOUT_MS), giving back
 * their heaps; the next task starts a thread again and is answered.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { IDLE_TIMEOUT_MS } from "../../src/workers/pool.js";
import { FIXTURE_TIMEOUT_MS } from "../helpers/fixture-process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface Scenario {
  before: number;
  busy: number;
  idle: number;
  after: number;
  last: { ok: boolean };
}

/** Runs the fixture (real worker threads, in a process of its own) with threads ended after `idleMs` idle. */
function run(idleMs: number) {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/idle-exit-child.ts")],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "", IDLE_MS: String(idleMs) } },
  );
  return JSON.parse(out) as Record<"background" | "foreground", Scenario>;
}

describe.runIf(process.platform === "linux")("an idle worker thread", { timeout: FIXTURE_TIMEOUT_MS }, () => {
  it("ends after the idle timeout unless it is the pool's minimum, and the next task still runs", () => {
    const { background, foreground } = run(1_000);
    // The background pool keeps none: its two threads end; the foreground pool keeps its warm one, started before.
    for (const seen of [background, foreground]) {
      expect(seen.busy).toBeGreaterThan(seen.before);
      expect(seen.idle).toBe(seen.before);
    }
    expect(background.after).toBeGreaterThan(background.idle);
    for (const seen of [background, foreground]) {
      expect(seen.last).toEqual({ ok: true });
      expect(seen.after).toBeGreaterThanOrEqual(seen.idle);
    }
  });

  it("ends well within the minute the pools waited before", () => {
    expect(IDLE_TIMEOUT_MS).toBeLessThanOrEqual(10_000);
  });
});
