/**
 * A worker thread whose heap a task grew gives it back once quiet (workers/worker.ts starts runtime/idle-gc.ts's
 * collector on every pool thread, whose timers run while it waits for tasks: pool.ts `atomics: "async"`).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURE_TIMEOUT_MS } from "../helpers/fixture-process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe.runIf(process.platform === "linux")(
  "a worker thread that grew and went quiet",
  { timeout: FIXTURE_TIMEOUT_MS },
  () => {
    it("gives back its garbage without being replaced", () => {
      const out = execFileSync(
        process.execPath,
        ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/idle-gc-child.ts")],
        { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
      );
      const { afterTask, afterIdle } = JSON.parse(out) as { afterTask: number; afterIdle: number };
      // The conversion leaves some 200 MB of heap, most of it garbage; measured 217 MB of the process, then 99.
      expect(afterTask - afterIdle).toBeGreaterThan(64);
    });
  },
);
