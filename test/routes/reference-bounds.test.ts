/**
 * A reference material's text is held to its format's limit before it is converted (domain/references.ts
 * rawCharLimit): an input whose plain text could not fit is refused with the 400 the converted text's limit gives,
 * and the conversion task never runs, so it cannot hold a worker thread.
 */
import { describe, expect, it } from "vitest";
import { RAW_CHARS_PER_TEXT_CHAR, REFERENCE_LIMITS, rawCharLimit } from "../../src/domain/references.js";
import type { TaskName } from "../../src/workers/tasks.js";
import { type Answer, type Harness, makeHarness } from "../helpers/harness.js";
import { expectCode } from "../helpers/http.js";
import { hookedPool } from "../helpers/pools.js";

const BASE = "/api/v1/reference-materials";

/** A harness whose pool counts the tasks it runs by name. */
function counting() {
  const calls: Partial<Record<TaskName, number>> = {};
  const pool = hookedPool((name) => {
    calls[name] = (calls[name] ?? 0) + 1;
  });
  return { h: makeHarness({ pool }), calls };
}

/** Uploads `text` as a file named `name` (multipart/form-data). */
async function upload(h: Harness, name: string, text: string): Promise<Answer> {
  const form = new FormData();
  form.append("file", new Blob([text]), name);
  const res = await h.app.handle(
    new Request(`http://test.local${BASE}`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.key()}` },
      body: form,
    }),
    { remoteAddress: "127.0.0.1" },
  );
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** `units` repeated to exactly `chars` characters. */
function ofLength(unit: string, chars: number): string {
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

describe("the limit of a reference material's text before conversion", () => {
  it("is the plain-text limit times each format's factor, never past the body limit", () => {
    expect(rawCharLimit("text")).toBe(REFERENCE_LIMITS.contentChars * RAW_CHARS_PER_TEXT_CHAR.text);
    expect(rawCharLimit("markdown")).toBe(REFERENCE_LIMITS.contentChars * RAW_CHARS_PER_TEXT_CHAR.markdown);
    expect(rawCharLimit("html")).toBe(REFERENCE_LIMITS.bodyBytes);
  });

  // Each text's plain text is well within 500,000 characters: only its size before conversion may refuse it.
  const cases = [
    { format: "text", name: "notes.txt", unit: "w   \n" },
    { format: "markdown", name: "notes.md", unit: `w${" ".repeat(99)}\n` },
  ] as const;

  it.each(cases)("refuses $format one character past it, without converting it", async ({ format, name, unit }) => {
    const { h, calls } = counting();
    const res = await upload(h, name, ofLength(unit, rawCharLimit(format) + 1));
    expectCode(res, 400, "validation_failed");
    expect(res.body.details.issues[0]).toMatchObject({ path: "body.file" });
    expect(res.body.details.issues[0].message).toContain(`at most ${rawCharLimit(format)} characters of ${format}`);
    expect(calls.ingestText).toBeUndefined();
  });

  it.each(cases)("converts and keeps $format at the limit exactly", async ({ format, name, unit }) => {
    const { h, calls } = counting();
    const res = await upload(h, name, ofLength(unit, rawCharLimit(format)));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(calls.ingestText).toBe(1);
  });

  it("counts characters, not UTF-16 units: emoji at the limit are taken", async () => {
    const { h, calls } = counting();
    const emoji = "😀\n";
    const text = emoji.repeat(rawCharLimit("text") / 2);
    expect(text.length).toBeGreaterThan(rawCharLimit("text"));
    const res = await upload(h, "emoji.txt", text);
    // Its plain text is 1,000,000 characters, past 500,000: the converted text's check refuses it, after the task.
    expectCode(res, 400, "validation_failed");
    expect(res.body.details.issues[0].message).toContain("as plain text");
    expect(calls.ingestText).toBe(1);
  });
});
