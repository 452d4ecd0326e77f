/**
 * What the pipeline reads of a request and what it answers with, independent of the transport: a Fetch API
 * Request/Response (tests, MCP tool calls) or node:http's IncomingMessage/ServerResponse (the server, see node.ts).
 * The pipeline works on these plain shapes so that the served path builds no Fetch objects: measured, that layer
 * cost as much CPU per GET as the pipeline itself (README "Performance").
 */
import { ApiError } from "../domain/errors.js";
import { jsonBody } from "./json-pieces.js";

/** Request headers: case-insensitive lookup and iteration (a Fetch `Headers` is one). */
export interface RequestHeaders extends Iterable<[string, string]> {
  get(name: string): string | null;
}

/** One request as the pipeline sees it. */
export interface Incoming {
  readonly method: string;
  /** The absolute URL (scheme and host from the Host header). */
  readonly url: string;
  readonly headers: RequestHeaders;
  /** Aborted when the client goes away before the answer is complete. */
  readonly signal: AbortSignal;
  /** The body's bytes; rejects with 413 payload_too_large as soon as more than `limit` bytes arrive. */
  bytes(limit: number): Promise<Uint8Array>;
}

/** One answer: a body of text (UTF-8), bytes, a stream, or none. */
export interface Outgoing {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | ReadableStream<Uint8Array> | null;
}

/**
 * Whether an answer's body is a stream: what is neither text, bytes nor null. Told by elimination: naming the global
 * ReadableStream (instanceof) makes Node load its web streams, 7-12 ms inside a start's first answer.
 */
export function isStreamBody(body: Outgoing["body"]): body is ReadableStream<Uint8Array> {
  return body !== null && typeof body !== "string" && !(body instanceof Uint8Array);
}

/** The 413 of a body past its limit. */
export function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `The request body is larger than ${limit} bytes.`, { limit_bytes: limit });
}

/** A status whose answer has no body (the Fetch Response constructor refuses one). */
export const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/**
 * A JSON answer; nosniff, so that no browser reads it as anything but JSON (a script, a page). A large one is a
 * stream of pieces (json-pieces.ts), which the pipeline treats as a JSON answer, not as an event stream.
 */
export function jsonOutgoing(status: number, body: unknown, headers: Record<string, string> = {}): Outgoing {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff", ...headers },
    body: body === undefined ? null : jsonBody(body),
  };
}

/**
 * Whether an answer is a stream its operation acknowledges in its own last event (the generate stream's `done`), so
 * that its start waits for no sync: a stream that is not an event stream (a large JSON answer, an MCP answer) is an
 * answer like any other.
 */
export function isEventStream(out: Outgoing): out is Outgoing & { body: ReadableStream<Uint8Array> } {
  return isStreamBody(out.body) && (out.headers["content-type"] ?? "").toLowerCase().startsWith("text/event-stream");
}

/** A Fetch Response a handler returned (streams, images, MCP), as an Outgoing; the stream is passed on unread. */
export function outgoingOf(response: Response): Outgoing {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: response.body };
}

/** The whole body of an answer as bytes (reads a stream to its end). */
export async function bodyBytes(out: Outgoing): Promise<Uint8Array> {
  if (out.body === null) return new Uint8Array(0);
  if (typeof out.body === "string") return new TextEncoder().encode(out.body);
  if (out.body instanceof Uint8Array) return out.body;
  return new Uint8Array(await new Response(out.body).arrayBuffer());
}

/** An Outgoing as a Fetch Response (for callers of `App.handle`). */
export function responseOf(out: Outgoing, method = "GET"): Response {
  const empty = NULL_BODY_STATUS.has(out.status) || method === "HEAD";
  if (empty && isStreamBody(out.body)) void out.body.cancel().catch(() => {});
  const body = empty ? null : (out.body as BodyInit | null);
  return new Response(body, { status: out.status, headers: out.headers });
}

/** A Fetch Request as an Incoming. */
export function incomingOf(request: Request): Incoming {
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    signal: request.signal,
    async bytes(limit: number): Promise<Uint8Array> {
      const declared = request.headers.get("content-length");
      if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
      if (!request.body) return new Uint8Array(0);
      const reader = request.body.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel().catch(() => {});
          throw tooLarge(limit);
        }
        chunks.push(value);
      }
      return Buffer.concat(chunks);
    },
  };
}
