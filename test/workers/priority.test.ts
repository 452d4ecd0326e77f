import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const HAVE_CHRT = spawnSync("chrt", ["--help"], { stdio: "ignore" }).status === 0;

describe.runIf(process.platform === "linux")("worker threads", () => {
  it("of the background pool run at a lower priority, the writer's at its own; the foreground pool's and the main thread keep theirs", () => {
    // In a process of its own: threads of other tests in this one would blur the count.
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/priority-child.ts")],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
    );
    const seen = JSON.parse(out) as {
      before: number;
      afterForeground: number;
      afterBackground: number;
      idleBefore: number;
      idleAfter: number;
      writers: number;
      main: { nice: number; policy: number };
    };
    expect(seen.before).toBe(0);
    expect(seen.afterForeground).toBe(0);
    expect(seen.afterBackground).toBe(1);
    // The writer's thread (domain/writer.ts) at its own niceness.
    expect(seen.writers).toBe(1);
    // An idle pool's thread in SCHED_IDLE, where chrt(1) is installed (otherwise it keeps its niceness only).
    expect(seen.idleBefore).toBe(0);
    expect(seen.idleAfter).toBe(HAVE_CHRT ? 1 : 0);
    expect(seen.main).toEqual({ nice: 0, policy: 0 });
  });
});
