/**
 * infoLineNow's start-up line never leaves part of a JSON line for a reader: a full non-blocking pipe (EAGAIN after a
 * partial write) had the rest dropped and the next line glued to the half written.
 */
import { describe, expect, it } from "vitest";
import { endCutLine, infoLineNow, jsonLogger, type LineOutput, type Sink, stdoutSink } from "../../src/runtime/log.js";

/**
 * A standard output that answers each write as `plan` says, in turn: a number takes at most that many bytes, an error
 * code throws it; once the plan is used up, `rest` (every byte by default). Sleeps are counted, not slept.
 */
function fakeOutput(plan: (number | "EAGAIN" | "EPIPE")[], rest: number | "EAGAIN" = Number.POSITIVE_INFINITY) {
  const chunks: Buffer[] = [];
  const slept: number[] = [];
  const out: LineOutput & { text(): string; slept: number[] } = {
    cut: false,
    slept,
    write(bytes, offset) {
      const step = plan.length > 0 ? plan.shift() : rest;
      if (typeof step === "string") throw Object.assign(new Error(step), { code: step });
      const part = bytes.subarray(offset, offset + (step ?? 0));
      chunks.push(Buffer.from(part));
      return part.length;
    },
    sleep: (ms) => void slept.push(ms),
    text: () => Buffer.concat(chunks).toString(),
  };
  return out;
}

const sum = (ms: number[]) => ms.reduce((a, b) => a + b, 0);

describe("infoLineNow on a full pipe", () => {
  it("written in part, then EAGAIN: waits and writes the rest, one whole JSON line", () => {
    const out = fakeOutput([10, "EAGAIN", "EAGAIN", 5, "EAGAIN"]);
    infoLineNow("database opened", { file: "/d/content-service.db" }, out);
    const text = out.text();
    expect(text.endsWith("\n")).toBe(true);
    expect(text.split("\n")).toHaveLength(2);
    expect(JSON.parse(text)).toMatchObject({
      level: "info",
      message: "database opened",
      file: "/d/content-service.db",
    });
    expect(out.slept.length).toBe(3);
    expect(out.cut).toBe(false);
  });

  it("written in part, then full for good: gives up after 2 s of waits, and the next line starts on a line of its own", () => {
    const out = fakeOutput([10], "EAGAIN");
    infoLineNow("database opened", {}, out);
    expect(out.text()).toHaveLength(10);
    expect(sum(out.slept)).toBeGreaterThanOrEqual(2000);
    expect(sum(out.slept)).toBeLessThan(2100);
    expect(Math.max(...out.slept)).toBe(50);
    expect(out.cut).toBe(true);
    // The pipe drains: the next line (this function's, or a JSON logger's through endCutLine) ends the cut one first.
    const next = fakeOutput([]);
    next.cut = true;
    infoLineNow("next", {}, next);
    const lines = (out.text() + next.text()).split("\n");
    expect(lines).toHaveLength(3);
    expect(() => JSON.parse(lines[0] ?? "")).toThrow();
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ message: "next" });
    expect(next.cut).toBe(false);
    expect(endCutLine(next)).toBe("");
  });

  it("full before its first byte: dropped whole after 100 ms of waits, nothing cut", () => {
    const out = fakeOutput([], "EAGAIN");
    infoLineNow("database opened", {}, out);
    expect(out.text()).toBe("");
    expect(sum(out.slept)).toBeGreaterThanOrEqual(100);
    expect(sum(out.slept)).toBeLessThan(2000);
    expect(out.cut).toBe(false);
  });

  it("a cut line still to end, the pipe full again: it is still to end", () => {
    const out = fakeOutput([], "EAGAIN");
    out.cut = true;
    infoLineNow("database opened", {}, out);
    expect(out.text()).toBe("");
    expect(out.cut).toBe(true);
    expect(endCutLine(out)).toBe("\n");
    expect(out.cut).toBe(false);
  });

  it("written in part, then the reader gone (EPIPE): stops at once, the line marked cut", () => {
    const out = fakeOutput([10, "EPIPE"]);
    infoLineNow("database opened", {}, out);
    expect(out.text()).toHaveLength(10);
    expect(out.slept).toEqual([]);
    expect(out.cut).toBe(true);
  });
});

/** A JSON logger's standard output that keeps each text written, in order (sync: at exit). */
function collectingSink() {
  const texts: string[] = [];
  const sink: Sink & { texts: string[] } = {
    texts,
    write: (text) => void texts.push(text),
    drain: () => Promise.resolve(),
    flushSync: (text) => void texts.push(text),
  };
  return sink;
}

describe("a JSON logger on standard output after infoLineNow", () => {
  it("after a line cut part-way, its next line starts on a line of its own, and the lines after it add nothing", async () => {
    const now = fakeOutput([10], "EAGAIN");
    infoLineNow("database opened", {}, now);
    expect(now.cut).toBe(true);
    const out = collectingSink();
    const logger = jsonLogger(undefined, stdoutSink(now, out));
    logger.info("after");
    await logger.drain?.();
    logger.info("again");
    await logger.drain?.();
    expect(out.texts).toHaveLength(2);
    expect(out.texts[0]?.startsWith("\n{")).toBe(true);
    expect(out.texts[1]?.startsWith("{")).toBe(true);
    expect(now.cut).toBe(false);
    const lines = (now.text() + out.texts.join("")).split("\n");
    expect(lines).toHaveLength(4);
    expect(() => JSON.parse(lines[0] ?? "")).toThrow();
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ level: "info", message: "after" });
    expect(JSON.parse(lines[2] ?? "")).toMatchObject({ level: "info", message: "again" });
    expect(lines[3]).toBe("");
  });

  it("without a cut, writes its lines alone, with no newline before them", async () => {
    const now = fakeOutput([]);
    infoLineNow("database opened", {}, now);
    const out = collectingSink();
    const logger = jsonLogger(undefined, stdoutSink(now, out));
    logger.info("after");
    await logger.drain?.();
    expect(out.texts).toHaveLength(1);
    expect(out.texts[0]?.startsWith("{")).toBe(true);
    expect(out.texts[0]?.split("\n")).toHaveLength(2);
    expect(JSON.parse(out.texts[0] ?? "")).toMatchObject({ message: "after" });
  });

  it("at exit (flushSync), the text after a cut line starts with a newline too, and only then", () => {
    const now = fakeOutput([]);
    now.cut = true;
    const out = collectingSink();
    const sink = stdoutSink(now, out);
    sink.flushSync('{"a":1}\n');
    sink.flushSync('{"b":2}\n');
    expect(out.texts).toEqual(['\n{"a":1}\n', '{"b":2}\n']);
    expect(now.cut).toBe(false);
  });
});
