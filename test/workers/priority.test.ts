import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { piscinaPool } from "../../src/workers/pool.js";
import { WORKER_NICENESS } from "../../src/workers/worker.js";

/** The niceness of each thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function niceness(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      // The command name may hold spaces: fields are counted after its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(tid), Number(fields[16]));
    } catch {}
  }
  return out;
}

describe.runIf(process.platform === "linux")("worker threads", () => {
  it("run at a lower priority than the thread that answers requests", async () => {
    const before = [...niceness().values()].filter((n) => n === WORKER_NICENESS).length;
    const pool = piscinaPool(1);
    try {
      await pool.run("scoreText", { text: "One short sentence. Another one here.", keywords: [], traits: null });
      const after = niceness();
      expect([...after.values()].filter((n) => n === WORKER_NICENESS).length).toBe(before + 1);
      // This thread, the one that serves HTTP, keeps its priority.
      expect(after.get(process.pid)).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
