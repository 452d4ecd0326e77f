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

const niced = () => [...niceness().values()].filter((n) => n === WORKER_NICENESS).length;
const task = { text: "One short sentence. Another one here.", keywords: [], traits: null };

describe.runIf(process.platform === "linux")("worker threads", () => {
  it("of the background pool run at a lower priority; the foreground pool's and this thread keep theirs", async () => {
    const before = niced();
    const foreground = piscinaPool(1);
    const background = piscinaPool(1, { background: true });
    try {
      await foreground.run("scoreText", task);
      expect(niced()).toBe(before);
      await background.run("scoreText", task);
      expect(niced()).toBe(before + 1);
      expect(niceness().get(process.pid)).toBe(0);
    } finally {
      await foreground.close();
      await background.close();
    }
  });
});
