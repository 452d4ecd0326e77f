/**
 * Multipart bodies are parsed in slices a macrotask apart (so a 5 MiB upload never holds the HTTP thread), by undici's
 * rules of what a field and a file are, with each file's characters counted as its bytes arrive.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { MULTIPART_SLICE, parseBody, type UploadedFile } from "../../src/http/body.js";
import { utf8CharLength } from "../../src/runtime/chars.js";

const BOUNDARY = "cs-boundary";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A body of parts, each its header lines and its content. */
function body(...parts: [string[], string | Buffer][]): Buffer {
  return Buffer.concat([
    ...parts.flatMap(([headers, content]) => [
      Buffer.from(`--${BOUNDARY}\r\n${headers.join("\r\n")}\r\n\r\n`),
      Buffer.isBuffer(content) ? content : Buffer.from(content),
      Buffer.from("\r\n"),
    ]),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ]);
}

const parse = (bytes: Uint8Array) =>
  parseBody({ bytes, contentType: CONTENT_TYPE, multipart: true, upload: true }) as Promise<Record<string, unknown>>;

/** What undici's formData gives for the same body, in the same shape. */
async function undici(bytes: Buffer): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(bytes), { headers: { "content-type": CONTENT_TYPE } }).formData();
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (name in out) continue;
    out[name] =
      typeof value === "string"
        ? value
        : { filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  return out;
}

/** A parsed body in undici's shape (bytes as a Buffer, no count). */
const comparable = (parsed: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(parsed).map(([name, v]) => {
      if (typeof v === "string") return [name, v];
      const { filename, type, bytes } = v as UploadedFile;
      return [name, { filename, type, bytes: Buffer.from(bytes) }];
    }),
  );

const disposition = (rest: string) => `Content-Disposition: form-data; ${rest}`;

async function malformed(bytes: Buffer) {
  const error = await parse(bytes).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe("validation_failed");
  expect((error as ApiError).message).toBe("The multipart/form-data body cannot be read.");
  await expect(undici(bytes)).rejects.toThrow();
}

describe("parsing a multipart body", () => {
  it.each([
    ["a non-ASCII filename", body([[disposition('name="file"; filename="résumé – 文書 😀.md"')], "# Hi"])],
    ["a file with no Content-Type (text/plain)", body([[disposition('name="file"; filename="a.md"')], "x"])],
    [
      "a file's Content-Type, lowercased",
      body([[disposition('name="file"; filename="a.html"'), "Content-Type: TEXT/HTML"], "<p>x</p>"]),
    ],
    [
      "fields in UTF-8, the first of a name winning",
      body([[disposition('name="title"')], "Été 😀"], [[disposition('name="title"')], "second"]),
    ],
    ["a field's byte order mark dropped", body([[disposition('name="title"')], "\uFEFFhi"])],
    [
      "an application/octet-stream part without a filename, a field",
      body([[disposition('name="title"'), "Content-Type: application/octet-stream"], "raw"]),
    ],
    [
      "a file then a field of the same name: the file",
      body([[disposition('name="file"; filename="a.txt"')], "one"], [[disposition('name="file"')], "two"]),
    ],
  ])("gives what undici gives for %s", async (_, bytes) => {
    expect(comparable(await parse(bytes))).toEqual(await undici(bytes));
  });

  it("refuses a body cut mid-part, as undici does", async () => {
    const whole = body([[disposition('name="file"; filename="a.md"')], "x".repeat(200_000)]);
    await malformed(whole.subarray(0, 150_000));
  });

  it("refuses a part without a name, and a body without its boundary, as undici does", async () => {
    await malformed(body([[disposition('filename="a.md"')], "x"]));
    await malformed(Buffer.from("no boundary here"));
  });

  it("counts a file's characters as undici's bytes would be counted, multi-byte text cut across slices", async () => {
    // 1 + 2 + 3 + 4 bytes a round: slice boundaries fall inside sequences of every length.
    const text = "aé€😀".repeat(Math.ceil((3 * MULTIPART_SLICE) / 10));
    const bytes = body([[disposition('name="file"; filename="a.txt"')], text]);
    const file = (await parse(bytes)).file as UploadedFile;
    expect(Buffer.from(file.bytes).toString()).toBe(text);
    expect(file.chars).toBe(utf8CharLength(file.bytes));
    expect(file.chars).toBe([...text].length);
  });

  it("lets the event loop turn while it parses 5 MiB", async () => {
    const bytes = body([[disposition('name="file"; filename="a.md"')], "![".repeat(2_600_000)]);
    let turns = 0;
    let parsing = true;
    const tick = () => {
      turns++;
      if (parsing) setImmediate(tick);
    };
    setImmediate(tick);
    const parsed = await parse(bytes);
    parsing = false;
    expect((parsed.file as UploadedFile).chars).toBe(5_200_000);
    // One turn at least between slices: the parse is never one block.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(bytes.length / MULTIPART_SLICE) - 1);
  });
});
