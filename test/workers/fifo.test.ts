import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("a worker pool under a closed-loop load", () => {
  it("answers tasks in the order they were sent (first come, first served)", () => {
    // In a process of its own, with real worker threads (src/workers/pool.ts).
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "test/workers/fixtures/fifo-child.ts")],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
    );
    const { sent, answered } = JSON.parse(out) as { sent: number[]; answered: number[] };
    expect(answered).toHaveLength(400);
    // Tasks are numbered in the order sent; with one thread each is answered before any sent after it.
    const overtaken = answered.filter((n, i) => i > 0 && n < answered[i - 1]).length;
    expect(overtaken).toBe(0);
    expect(answered).toEqual(sent);
  });
});
