/**
 * Large JSON answers are written in pieces, one per pass of the event loop (http/json-pieces.ts), and a page of large
 * texts is read a row at a time in turns (routes/common.ts pageInTurns): the text is JSON.stringify's, byte for byte,
 * and a request arriving while large answers are made is answered before they end.
 */
import { describe, expect, it } from "vitest";
import {
  consumedArrayStream,
  jsonBody,
  jsonLengthFloor,
  PIECE_CHARS,
  PIECED_JSON_CHARS,
  streamedValue,
} from "../../src/http/json-pieces.js";
import { makeHarness } from "../helpers/harness.js";

/** The text of a body as jsonBody gives it, and whether it came as a stream. */
async function textOf(value: unknown): Promise<{ text: string; streamed: boolean }> {
  const body = jsonBody(value);
  if (typeof body === "string") return { text: body, streamed: false };
  return { text: await new Response(body).text(), streamed: true };
}

const long = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

describe("a JSON answer's body", () => {
  it("is JSON.stringify's text, in one piece, when small", async () => {
    const value = { data: [{ id: 1, text: "short" }], has_more: false, next_cursor: null };
    expect(jsonBody(value)).toBe(JSON.stringify(value));
  });

  const large: [string, unknown][] = [
    [
      "a page of long texts, with members JSON leaves out",
      {
        data: Array.from({ length: 6 }, (_, i) => ({
          id: i,
          content: long(`Text ${i} “quoted” — naïve "escaped" \\ \n\t\u0001 `, 500_000),
          gone: undefined,
          fn: () => 1,
          at: new Date(Date.UTC(2026, 0, i + 1)),
          nested: { list: [1, undefined, null, () => 2, "x"], flag: true },
        })),
        has_more: true,
        next_cursor: "abc",
      },
    ],
    [
      "a string whose surrogate pairs straddle every piece's end",
      { text: `${"a".repeat(PIECE_CHARS - 1)}${"😀".repeat(PIECED_JSON_CHARS)}`, lone: "\ud800x\udc00" },
    ],
    ["a top-level array of strings", Array.from({ length: 40 }, (_, i) => long(`${i}é`, 100_000))],
    ["an object without a prototype", Object.assign(Object.create(null), { a: long("z", 3 * PIECED_JSON_CHARS) })],
  ];

  it.each(large)("is JSON.stringify's text, streamed, for %s", async (_name, value) => {
    const { text, streamed } = await textOf(value);
    expect(streamed).toBe(true);
    expect(text === JSON.stringify(value)).toBe(true);
  });

  it("gives an in-process caller the value a streamed body is the JSON of, and nothing for another body", () => {
    const value = { text: long("v", 2 * PIECED_JSON_CHARS) };
    const body = jsonBody(value);
    expect(typeof body).not.toBe("string");
    expect(streamedValue(body as ReadableStream<Uint8Array>)?.value).toBe(value);
    expect(streamedValue(new ReadableStream<Uint8Array>())).toBeUndefined();
    expect(streamedValue(null)).toBeUndefined();
  });
});

describe("the least length of a value's JSON", () => {
  it("is JSON.stringify's length without escapes and numbers' digits, never more", () => {
    const plain = { a: "text", list: [1, "two", null, true, false, { n: 3 }], skipped: undefined, when: new Date(0) };
    const digits = JSON.stringify(plain).length - JSON.stringify(new Date(0)).length + 2;
    expect(jsonLengthFloor(plain)).toBe(digits);
    const values: unknown[] = [
      'quote " and \\ and \u0001',
      [undefined, () => 1, Symbol("s")],
      { f: () => 1, n: 123456, nested: [[[]], {}], 'k"ey': "é😀" },
      Array.from({ length: 50 }, (_, i) => ({ id: i * 1000, title: "x".repeat(i) })),
    ];
    for (const value of values) expect(jsonLengthFloor(value)).toBeLessThanOrEqual(JSON.stringify(value).length);
    expect(jsonLengthFloor([undefined])).toBe(JSON.stringify([undefined]).length);
  });
});

describe("an array's JSON streamed as its items are let go", () => {
  const itemsOf = () => [
    { id: 1, text: long("first “one” — ", 3 * PIECE_CHARS) },
    undefined,
    () => 1,
    "short",
    { id: 2, text: long("second 😀 \\ ", 3 * PIECE_CHARS) },
  ];

  it("is JSON.stringify's text, and each slot is emptied once its item's JSON is made", async () => {
    const items = itemsOf();
    const reader = consumedArrayStream(items).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const first = await reader.read();
    text += decoder.decode(first.value, { stream: true });
    // The first piece is the first item's: the later ones are still held.
    expect(items[0]).toBeUndefined();
    expect(items[4]).toBeDefined();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text === JSON.stringify(itemsOf())).toBe(true);
    expect(items.every((item) => item === undefined)).toBe(true);
  });
});

describe("large answers beside a small request", () => {
  it("let a /healthz sent after them be answered before they end, lists and MCP batches alike", async () => {
    const h = makeHarness();
    const key = h.key();
    for (let i = 0; i < 6; i++) {
      const content = long(`Content ${i} — planning the quarter, “quoted”. `, 500_000);
      const res = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: `Long ${i}`, content } });
      expect(res.status).toBe(201);
    }
    const done: string[] = [];
    const get = (path: string, name: string, auth?: string) =>
      h.app
        .handle(new Request(`http://test.local${path}`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} }), {
          remoteAddress: "127.0.0.1",
        })
        .then(async (res) => {
          const text = await res.text();
          done.push(name);
          return { status: res.status, text, length: res.headers.get("content-length") };
        });
    const lists = Array.from({ length: 4 }, (_, i) => get("/api/v1/contents?limit=100", `list ${i}`, key));
    const health = get("/healthz", "healthz");
    const answers = await Promise.all([...lists, health]);
    expect(done[0]).toBe("healthz");
    // The lists are whole, and alike: 6 contents, the last page.
    const [first, ...others] = answers.slice(0, 4);
    expect(first.status).toBe(200);
    expect(first.length).toBeNull();
    const page = JSON.parse(first.text);
    // Through the pipeline, the answer's stream still carries its value (MCP tool calls take it: mcp/budget.ts).
    const res = await h.app.handle(
      new Request("http://test.local/api/v1/contents?limit=100", { headers: { authorization: `Bearer ${key}` } }),
      { remoteAddress: "127.0.0.1" },
    );
    const answered = streamedValue(res.body);
    expect(JSON.stringify(answered?.value) === (await res.text())).toBe(true);
    expect(page.data).toHaveLength(6);
    expect(page.has_more).toBe(false);
    for (const other of others) expect(other.text === first.text).toBe(true);
    expect(answers[4].status).toBe(200);

    // An MCP batch of two lists: its JSON answer too, with the answers in the order of the requests.
    done.length = 0;
    const calls = [2, 1].map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list_contents", arguments: { limit: 3 } },
    }));
    const batch = h.app
      .handle(
        new Request("http://test.local/api/v1/mcp", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(calls),
        }),
        { remoteAddress: "127.0.0.1" },
      )
      .then(async (res) => {
        const text = await res.text();
        done.push("mcp");
        return { status: res.status, text };
      });
    const [mcp] = await Promise.all([batch, get("/healthz", "healthz")]);
    expect(done).toEqual(["healthz", "mcp"]);
    expect(mcp.status).toBe(200);
    const replies = JSON.parse(mcp.text);
    expect(replies.map((r: { id: number }) => r.id)).toEqual([2, 1]);
    for (const reply of replies) {
      expect(reply.result.isError).toBeUndefined();
      expect(reply.result.structuredContent.data).toHaveLength(3);
      expect(JSON.parse(reply.result.content[0].text)).toEqual(reply.result.structuredContent);
    }
  });
});
