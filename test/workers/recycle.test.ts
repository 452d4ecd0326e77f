/**
 * A worker thread whose heap grew past the limit is replaced once its task is answered (workers/recycle.ts); the
 * tasks queued behind it run on the new thread, and a thread that did not grow is kept.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RECYCLE_HEAP_MB } from "../../src/workers/recycle.js";
import { FIXTURE_TIMEOUT_MS } from "../helpers/fixture-process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface Scenario {
  smallOnly: { ok: boolean };
  keptForSmall: boolean;
  largeOne: { ok: boolean };
  behind: { ok: boolean }[];
  after: { ok: boolean };
  ended: number;
  started: number;
}

/** Runs the fixture (real worker threads, in a process of its own) with threads replaced past `recycleMb`. */
function run(recycleMb: number) {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/recycle-child.ts")],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "", RECYCLE_MB: String(recycleMb) } },
  );
  return JSON.parse(out) as Record<"foreground" | "background", Scenario>;
}

describe.runIf(process.platform === "linux")("a worker thread that grew", { timeout: FIXTURE_TIMEOUT_MS }, () => {
  it("is replaced after its task, which is answered, as are those queued behind it", () => {
    // A warm idle thread holds well under 64 MB; the large conversion grows it to about 200.
    for (const [kind, seen] of Object.entries(run(64))) {
      expect(seen.keptForSmall, kind).toBe(true);
      expect([seen.smallOnly, seen.largeOne, ...seen.behind, seen.after], kind).toEqual(Array(6).fill({ ok: true }));
      expect(seen.ended, kind).toBeGreaterThanOrEqual(1);
      expect(seen.started, kind).toBeGreaterThanOrEqual(1);
    }
  });

  it("is kept while its heap stays under the limit", () => {
    for (const [kind, seen] of Object.entries(run(4096))) {
      expect([seen.smallOnly, seen.largeOne, ...seen.behind, seen.after], kind).toEqual(Array(6).fill({ ok: true }));
      expect({ ended: seen.ended, started: seen.started }, kind).toEqual({ ended: 0, started: 0 });
    }
  });

  it("has a default limit above a warm idle thread's heap", () => {
    expect(RECYCLE_HEAP_MB).toBeGreaterThan(64);
  });
});
