/**
 * Large JSON answers written in pieces. The one HTTP thread answers every request: a page of contents of 500,000
 * characters each is some 6 MB of JSON, 40-80 ms to serialise and as much to encode, and 85 of them at once held
 * /healthz for seconds. An answer past PIECED_JSON_CHARS is written as a stream instead: its JSON is made a piece of
 * about PIECE_CHARS at a time, as many pieces per pass of the event loop as LARGE_MS of the thread allows for all such
 * answers together (largeTurns), so that the requests that arrive meanwhile are read and answered between two pieces. The text is the one
 * JSON.stringify gives, byte for byte (test/http/json-pieces.test.ts); the answer goes chunked, without
 * Content-Length.
 */
import { Slots } from "./slots.js";
import { TimedTurns } from "./timed-turns.js";

/** Answers whose JSON may pass this many characters are written in pieces. */
export const PIECED_JSON_CHARS = 2 * 1024 * 1024;

/** About how many characters of JSON each piece holds (a millisecond or two of the thread's time). */
export const PIECE_CHARS = 128 * 1024;

/** The thread's time, in ms, that one pass of the event loop gives to large work (all of it together). */
export const LARGE_MS = 4;

/**
 * The turns of large work on the HTTP thread: pieces of large answers, and rows of pages of large texts
 * (routes/common.ts pageInTurns), in the order asked, up to LARGE_MS per pass of the event loop: a pass polls the
 * sockets again within some 5 ms however many large answers are being made. Apart from the writes' turns (turns.ts):
 * a write does not wait behind the pieces of a large read.
 */
export const largeTurns = new TimedTurns(LARGE_MS);

/**
 * How many pages of large texts are read at once (pageInTurns); the others wait for a slot. Their JSON, written as the
 * client reads it, takes no slot: a client that reads slowly would hold it.
 */
export const largeSlots = new Slots(2);

/**
 * Whether the JSON of `value` may have more than `limit` characters: strings counted by their length, other values
 * by a small bound. Stops counting once past the limit, so that a small answer costs a walk of itself only.
 */
function mayExceed(value: unknown, limit: number): boolean {
  let left = limit;
  const visit = (v: unknown): boolean => {
    if (typeof v === "string") left -= v.length + 2;
    else if (Array.isArray(v)) {
      left -= 2;
      for (const item of v) if (visit(item)) return true;
    } else if (v !== null && typeof v === "object") {
      left -= 2;
      for (const key in v) {
        left -= key.length + 4;
        if (visit((v as Record<string, unknown>)[key])) return true;
      }
    } else left -= 24;
    return left < 0;
  };
  return visit(value);
}

/**
 * The fewest characters the JSON of `value` can have: each string's characters and quotes (escapes only add), the
 * structure and keys of arrays and object literals, one character for a number, what JSON leaves out nothing, and
 * two for anything else (a Date's toJSON). For a caller that refuses what cannot fit before making its text
 * (mcp/budget.ts); test/http/json-pieces.test.ts holds it at most JSON.stringify's length.
 */
export function jsonLengthFloor(value: unknown, inArray = false): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number" || typeof value === "bigint") return 1;
  if (typeof value === "boolean") return value ? 4 : 5;
  if (value === null) return 4;
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return inArray ? 4 : 0;
  if (!isSplittable(value)) return 2;
  if (Array.isArray(value))
    return value.reduce((n: number, item, i) => n + (i > 0 ? 1 : 0) + jsonLengthFloor(item, true), 2);
  let n = 2;
  let members = 0;
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
    n += (members++ > 0 ? 1 : 0) + key.length + 3 + jsonLengthFloor(member);
  }
  return n;
}

/** An array or an object literal's JSON is written member by member; anything else (a Date: toJSON) whole. */
function isSplittable(v: unknown): v is Record<string, unknown> | unknown[] {
  if (v === null || typeof v !== "object" || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * The JSON of a value in parts, as JSON.stringify writes it: a large array item by item, a large object member by
 * member, a long string in slices (never between the two halves of a surrogate pair, which would be escaped), what is
 * small whole. `inArray`: a value JSON leaves out (undefined, a function) is written null, as in an array.
 */
function* parts(value: unknown, inArray: boolean): Generator<string> {
  if (typeof value === "string" && value.length > PIECE_CHARS) {
    yield '"';
    for (let at = 0; at < value.length; ) {
      let end = Math.min(value.length, at + PIECE_CHARS);
      const last = value.charCodeAt(end - 1);
      if (end < value.length && last >= 0xd800 && last <= 0xdbff) end--;
      yield JSON.stringify(value.slice(at, end)).slice(1, -1);
      at = end;
    }
    yield '"';
    return;
  }
  if (!isSplittable(value) || !mayExceed(value, PIECE_CHARS)) {
    const text = JSON.stringify(value) as string | undefined;
    yield text ?? (inArray ? "null" : "");
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      yield* parts(value[i], true);
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const key of Object.keys(value)) {
    const member = value[key];
    // What JSON.stringify leaves out of an object.
    if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
    yield `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    yield* parts(member, false);
  }
  yield "}";
}

/** The JSON of `value` in pieces of at least PIECE_CHARS (the last one may be shorter). */
function pieces(value: unknown): Generator<string> {
  return gathered(parts(value, false));
}

/** Parts gathered into pieces of at least PIECE_CHARS (the last one may be shorter). */
function* gathered(source: Iterable<string>): Generator<string> {
  let piece = "";
  for (const part of source) {
    piece += part;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = "";
    }
  }
  if (piece !== "") yield piece;
}

/**
 * The body of a JSON answer: JSON.stringify's text, or for a value whose JSON may pass PIECED_JSON_CHARS the same
 * text as a stream of UTF-8 pieces, each made in a turn of its own (largeTurns).
 */
export function jsonBody(value: unknown): string | ReadableStream<Uint8Array> {
  if (!mayExceed(value, PIECED_JSON_CHARS)) return JSON.stringify(value);
  const stream = jsonStream(value);
  streamedValues.set(stream, value);
  return stream;
}

/** The values of the streams jsonBody made, for an in-process caller (streamedValue). */
const streamedValues = new WeakMap<ReadableStream<Uint8Array>, unknown>();

/**
 * The value whose JSON a stream of jsonBody's is, or undefined for another body: an MCP tool call, answered in the
 * same process, takes it as its structured content instead of parsing the text again (mcp/budget.ts), some 50 ms of
 * the HTTP thread in one block for a page of long texts. Its JSON is the stream's text (test/http/json-pieces.test.ts).
 */
export function streamedValue(body: ReadableStream<Uint8Array> | null): { value: unknown } | undefined {
  return body !== null && streamedValues.has(body) ? { value: streamedValues.get(body) } : undefined;
}

/**
 * The JSON of `value` as one string, JSON.stringify's text, made a piece at a time in turns (largeTurns): for an
 * in-process caller that needs the text of a streamed answer (mcp/budget.ts), without encoding it to UTF-8 in the
 * stream and decoding it back: two more copies of a large text on the thread's heap, for its collector to sweep.
 */
export async function jsonText(value: unknown): Promise<string> {
  const source = pieces(value);
  const made: string[] = [];
  for (;;) {
    const next = await largeTurns.run(() => source.next());
    // Joined, not concatenated as they came: a string of pieces is copied whole on its first read (the answer's
    // writing slices it), the pieces kept till then beside the copy; joined, it is one copy now, the pieces freed.
    if (next.done) return made.join("");
    made.push(next.value);
  }
}

/** The JSON of `value` as a stream of pieces, whatever its size (an answer made elsewhere: mcp/server.ts). */
export function jsonStream(value: unknown): ReadableStream<Uint8Array> {
  return piecedStream(pieces(value));
}

/**
 * The JSON of an array as jsonStream gives it, each item let go once its JSON is made: the array's slots are emptied
 * as the stream goes, so that the items written can be collected while the others are (an MCP batch's answers, tens
 * of MB that the thread's heap would otherwise hold until the last piece: mcp/server.ts jsonAnswer).
 */
export function consumedArrayStream(items: unknown[]): ReadableStream<Uint8Array> {
  return piecedStream(gathered(consumedParts(items)));
}

/** The parts of an array's JSON, as parts() writes them, each slot emptied once its item's parts are made. */
function* consumedParts(items: unknown[]): Generator<string> {
  yield "[";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) yield ",";
    const item = items[i];
    items[i] = undefined;
    yield* parts(item, true);
  }
  yield "]";
}

/** A stream of the pieces, encoded as UTF-8, each made in a turn; cancelling it stops making them. */
function piecedStream(source: Iterator<string>): ReadableStream<Uint8Array> {
  const nextPiece = () => {
    const next = source.next();
    return next.done ? undefined : Buffer.from(next.value, "utf8");
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const piece = await largeTurns.run(nextPiece);
        if (piece === undefined) controller.close();
        else controller.enqueue(piece);
      },
      cancel() {
        source.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
