/** The JSON logger's output when stdout is a file: written off the thread, in order, nothing lost at drain or exit. */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileSink } from "../../src/http/log.js";

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
