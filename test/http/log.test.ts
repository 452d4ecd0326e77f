/** The JSON logger's output when stdout is a file: written off the thread, in order, nothing lost at drain or exit. */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FLUSH_GAP_MS, fileSink, jsonLogger } from "../../src/runtime/log.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "cs-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("file sink", () => {
  it("writes every text in the order given, and drain waits for all of it", async () => {
    const file = path.join(dir, "sink.log");
    const fd = openSync(file, "w");
    const sink = fileSink(fd);
    const expected: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const text = `${"x".repeat(i % 97)} ${i}\n`;
      expected.push(text);
      sink.write(text);
      // Some texts arrive while a write is in flight, some after it ended.
      if (i % 250 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await sink.drain();
    expect(readFileSync(file, "utf8")).toBe(expected.join(""));
    closeSync(fd);
  });
});

describe("a JSON logger whose stdout is a file", () => {
  it("writes every line in order, including those still in memory when the process exits", () => {
    const file = path.join(dir, "child.log");
    const fd = openSync(file, "w");
    try {
      execFileSync(process.execPath, ["--import", "tsx", path.join(ROOT, "test/http/fixtures/log-child.ts")], {
        cwd: ROOT,
        stdio: ["ignore", fd, "inherit"],
        env: { ...process.env, NODE_OPTIONS: "" },
      });
    } finally {
      closeSync(fd);
    }
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(Array.from({ length: 1500 }, (_, i) => i));
  });
});

describe("a JSON logger under a load", () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it("writes a line after a quiet spell at the end of its turn, then at most every FLUSH_GAP_MS, losing none", async () => {
    const writes: { at: number; text: string }[] = [];
    const logger = jsonLogger((text) => writes.push({ at: performance.now(), text }));
    logger.info("first", { i: 0 });
    await turn();
    expect(writes.map((w) => w.text)).toHaveLength(1);

    // A line about every millisecond for a while (far below the 64 KiB that is written at once): a write per turn
    // would be one per line.
    const started = performance.now();
    let i = 1;
    while (performance.now() - started < 6 * FLUSH_GAP_MS) {
      logger.info("line", { i: i++ });
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const elapsed = performance.now() - started;
    // The last lines go out by themselves once the gap has passed.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_GAP_MS * 3));

    const lines = writes.flatMap((w) => w.text.trimEnd().split("\n")).map((l) => (JSON.parse(l) as { i: number }).i);
    expect(lines).toEqual(Array.from({ length: i }, (_, n) => n));
    expect(i).toBeGreaterThan(writes.length * 2);
    // Writes are spaced by the gap (a timer may fire up to a millisecond early by the loop's clock).
    for (let n = 1; n < writes.length; n++)
      expect(writes[n].at - writes[n - 1].at).toBeGreaterThanOrEqual(FLUSH_GAP_MS - 2);
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(elapsed / (FLUSH_GAP_MS - 2)) + 3);
  });

  it("keeps the gap after what it wrote at once (64 KiB)", async () => {
    const writes: { at: number; text: string }[] = [];
    const logger = jsonLogger((text) => writes.push({ at: performance.now(), text }));
    logger.info("a");
    await turn();
    // Within the gap: this line waits for a timer, which the 64 KiB write below must not leave behind.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_GAP_MS * 0.75));
    logger.info("b");
    logger.info("big", { pad: "x".repeat(70_000) });
    logger.info("c");
    await new Promise((resolve) => setTimeout(resolve, FLUSH_GAP_MS * 3));
    expect(writes.map((w) => w.text.match(/"message":"(\w+)"/g)?.length)).toEqual([1, 2, 1]);
    expect(writes[2].text).toContain('"message":"c"');
    expect(writes[2].at - writes[1].at).toBeGreaterThanOrEqual(FLUSH_GAP_MS - 2);
  });

  it("writes what it holds at once when drained", async () => {
    const writes: string[] = [];
    const logger = jsonLogger((text) => writes.push(text));
    logger.info("a");
    await turn();
    logger.info("b");
    expect(writes).toHaveLength(1);
    await logger.drain?.();
    expect(writes.join("")).toContain('"message":"b"');
  });
});
