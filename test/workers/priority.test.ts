import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe.runIf(process.platform === "linux")("worker threads", () => {
  it("of the background pool run at a lower priority; the foreground pool's and the main thread keep theirs", () => {
    // In a process of its own: threads of other tests in this one would blur the count.
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/priority-child.ts")],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
    );
    const seen = JSON.parse(out) as { before: number; afterForeground: number; afterBackground: number; main: number };
    expect(seen.before).toBe(0);
    expect(seen.afterForeground).toBe(0);
    expect(seen.afterBackground).toBe(1);
    expect(seen.main).toBe(0);
  });
});
