/**
 * A tool call's answer is read as text in pieces (mcp/result-text.ts resultText), and a streamed answer's text is made
 * from its value (http/json-pieces.ts jsonText): the text is Response.text()'s, character for character, and the
 * large work is done over several passes of the event loop, not in one block; through an MCP batch, a tool's text
 * is the route's answer byte for byte.
 */
import { describe, expect, it } from "vitest";
import { jsonBody, jsonText, PIECED_JSON_CHARS } from "../../src/http/json-pieces.js";
import { DECODE_BYTES, resultText } from "../../src/mcp/result-text.js";
import { passCounter } from "../helpers/event-loop.js";
import { makeHarness } from "../helpers/harness.js";

/** A response whose body comes in exactly these chunks. */
function chunked(chunks: Uint8Array[]): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    }),
  );
}

/** The bytes cut every `size` bytes, through multi-byte characters. */
function cut(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

const long = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

describe("a tool call's answer read in pieces", () => {
  const text = long("naïve — “quoted” 😀 résumé ", 3 * DECODE_BYTES);
  const bytes = new TextEncoder().encode(text);
  const cases: [string, Uint8Array[]][] = [
    ["in chunks cut through multi-byte characters", cut(bytes, 1_001)],
    ["in one chunk larger than DECODE_BYTES", [bytes]],
    ["with a BOM and malformed bytes", [new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0xff, 0xe2, 0x82]), bytes]],
    ["with a BOM cut across two chunks", [new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf, 0x62])]],
    ["empty", []],
  ];

  it.each(cases)("is Response.text()'s text, %s", async (_name, chunks) => {
    const expected = await chunked(chunks).text();
    expect((await resultText(chunked(chunks))) === expected).toBe(true);
  });

  it("is empty for a response without a body", async () => {
    expect(await resultText(new Response(null, { status: 204 }))).toBe("");
  });

  it("decodes a chunk larger than DECODE_BYTES over several passes of the event loop", async () => {
    const passes = passCounter();
    const read = await resultText(chunked([bytes]));
    passes.stop();
    expect(read === text).toBe(true);
    expect(passes.now()).toBeGreaterThanOrEqual(Math.floor(bytes.byteLength / DECODE_BYTES) - 1);
  });
});

describe("a streamed answer's text made from its value", () => {
  const value = {
    data: Array.from({ length: 5 }, (_, i) => ({ id: i, content: long(`Text ${i} “q” — "e" \\ \n 😀 `, 600_000) })),
    lone: "\ud800x\udc00",
    next_cursor: null,
  };

  it("is JSON.stringify's text and the stream's, made over several passes of the event loop", async () => {
    const passes = passCounter();
    const text = await jsonText(value);
    passes.stop();
    expect(text === JSON.stringify(value)).toBe(true);
    const body = jsonBody(value);
    expect(typeof body).not.toBe("string");
    expect(text === (await new Response(body).text())).toBe(true);
    expect(passes.now()).toBeGreaterThan(PIECED_JSON_CHARS / (128 * 1024));
  });
});

describe("an MCP tool's text through a batch", () => {
  it("is the route's answer byte for byte, for a page of long texts streamed in pieces", async () => {
    const h = makeHarness();
    const key = h.key();
    for (let i = 0; i < 5; i++) {
      const content = long(`Content ${i} — planning the quarter, “quoted” 😀. `, 500_000);
      expect(
        (await h.send("POST", "/api/v1/contents", { auth: key, body: { title: `Long ${i}`, content } })).status,
      ).toBe(201);
    }
    const handle = (path: string, init: RequestInit = {}) =>
      h.app.handle(
        new Request(`http://test.local${path}`, {
          ...init,
          headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
        }),
        { remoteAddress: "127.0.0.1" },
      );
    const page = await (await handle("/api/v1/contents?limit=100")).text();
    expect(page.length).toBeGreaterThan(PIECED_JSON_CHARS);
    const calls = [1, 2].map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list_contents", arguments: { limit: 100 } },
    }));
    const res = await handle("/api/v1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(calls),
    });
    expect(res.status).toBe(200);
    const replies = JSON.parse(await res.text()) as { result: { content: { text: string }[] } }[];
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(reply.result.content[0].text === page).toBe(true);
  });
});
