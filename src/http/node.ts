/** The pipeline on node:http: an IncomingMessage read as an Incoming, an Outgoing written to the ServerResponse. */

import http from "node:http";
import type { Duplex } from "node:stream";
import { ApiError, invalidInput } from "../domain/errors.js";
import type { App } from "./app.js";
import {
  type Incoming,
  isStreamBody,
  NULL_BODY_STATUS,
  type Outgoing,
  type RequestHeaders,
  tooLarge,
} from "./exchange.js";

const joined = (value: string | string[]) => (Array.isArray(value) ? value.join(", ") : value);

/** node's parsed headers (names already lower case) behind the RequestHeaders interface. */
class NodeHeaders implements RequestHeaders {
  constructor(private raw: http.IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : joined(value);
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (const [name, value] of Object.entries(this.raw)) if (value !== undefined) yield [name, joined(value)];
  }
}

/** A host name, IPv4/IPv6 address and port, and nothing else (the Host header is the client's to choose). */
const SAFE_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The last Host header found usable (nearly every request repeats it): checked once. */
let lastGoodHost = "";

/** The Host header when it makes a valid URL (the pattern lets through 999.999.999.999 or a port past 65535). */
function usableHost(host: string | undefined): string {
  if (host === undefined) return "localhost";
  if (host === lastGoodHost) return host;
  if (!SAFE_HOST.test(host)) return "localhost";
  try {
    new URL(`http://${host}/`);
  } catch {
    return "localhost";
  }
  lastGoodHost = host;
  return host;
}

/** The absolute URL of a request: origin-form targets joined to the Host header; anything else as a path. */
function urlOf(req: http.IncomingMessage): string {
  const host = usableHost(req.headers.host);
  const target = req.url ?? "/";
  if (target.startsWith("/")) return `http://${host}${target}`;
  // Absolute-form (a proxy's request line): its path only, on this server. `*` and the rest match no route.
  if (/^https?:\/\//i.test(target)) {
    try {
      const u = new URL(target);
      return `http://${host}${u.pathname}${u.search}`;
    } catch {}
  }
  return `http://${host}/${encodeURIComponent(target)}`;
}

class NodeIncoming implements Incoming {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaders;
  /** Set when the body was refused unread: the connection closes after the answer instead of reading it all. */
  closeAfter = false;
  private controller?: AbortController;

  constructor(
    private req: http.IncomingMessage,
    private res: http.ServerResponse,
  ) {
    this.method = req.method ?? "GET";
    this.url = urlOf(req);
    this.headers = new NodeHeaders(req.headers);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      const gone = () => !this.res.writableFinished;
      if (this.res.destroyed) {
        if (gone()) controller.abort();
      } else this.res.once("close", () => gone() && controller.abort());
    }
    return this.controller.signal;
  }

  bytes(limit: number): Promise<Uint8Array> {
    const req = this.req;
    return new Promise<Uint8Array>((resolve, reject) => {
      // The client may have gone while the pipeline awaited something (a session's signature): no event will come.
      if (req.destroyed || req.readableAborted) {
        reject(new ApiError("validation_failed", "The request body ended before its end.", {}));
        return;
      }
      const declared = req.headers["content-length"];
      if (declared !== undefined && Number(declared) > limit) {
        this.closeAfter = true;
        reject(tooLarge(limit));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const cleanup = () => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("close", onClose);
        req.off("error", onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > limit) {
          cleanup();
          // The rest is read and dropped while the 413 goes out; the connection then closes.
          this.closeAfter = true;
          req.resume();
          reject(tooLarge(limit));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
      };
      const onClose = () => {
        cleanup();
        reject(new ApiError("validation_failed", "The request body ended before its end.", {}));
      };
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("close", onClose);
      req.on("error", onClose);
    });
  }
}

/**
 * How long a streamed answer waits for its client to take more before its connection is cut. A client whose
 * connection went half-open (a network change, a NAT's dropped mapping) takes nothing and says nothing: without a
 * limit the stream, its model server's connection and an Idempotency-Key in flight (whose retry waits for the stream's
 * end) would be held until the kernel gave up on the connection, often 15-30 minutes.
 */
export const STREAM_STALL_MS = 60_000;

/** Whether the response can take more (true) or is gone, or took nothing for `ms` (false); leaves no listener. */
function drained(res: http.ServerResponse, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    const timer = setTimeout(onClose, ms);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

/** Writes a stream body with backpressure; stops reading it when the client goes away. */
async function pump(res: http.ServerResponse, body: ReadableStream<Uint8Array>, stallMs: number): Promise<void> {
  const reader = body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  try {
    for (;;) {
      // Gone already (its "close" may have come before the listener above): the stream's source is told to stop.
      if (res.destroyed) {
        onClose();
        return;
      }
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) continue;
      // A client that takes nothing for stallMs is cut: the loop's next pass cancels the stream.
      if (!res.write(value) && !(await drained(res, stallMs))) res.destroy();
    }
    res.end();
  } finally {
    res.off("close", onClose);
  }
}

/** Writes an answer. Text and bytes go out with Content-Length in one write; streams chunked. */
async function send(req: NodeIncoming, res: http.ServerResponse, out: Outgoing, stallMs: number): Promise<void> {
  const headers = out.headers;
  if (req.closeAfter) headers.connection = "close";
  const body = NULL_BODY_STATUS.has(out.status) ? null : out.body;
  if (isStreamBody(body)) {
    if (req.method === "HEAD") {
      void body.cancel().catch(() => {});
      res.writeHead(out.status, headers).end();
      return;
    }
    res.writeHead(out.status, headers);
    // Headers first: an event stream's client sees the answer begin before the first event.
    res.flushHeaders();
    await pump(res, body, stallMs);
    return;
  }
  if (body === null) {
    if (!NULL_BODY_STATUS.has(out.status)) headers["content-length"] = "0";
    res.writeHead(out.status, headers).end();
    return;
  }
  headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
  res.writeHead(out.status, headers);
  // node sends no body for HEAD by itself; the length above is the GET's, as HTTP asks.
  if (typeof body === "string") res.end(body, "utf8");
  else res.end(body);
}

let turnEnd: Promise<void> | undefined;

/**
 * Resolves after the event loop's current poll phase (setImmediate), once for every answer of the turn: the answers
 * to the requests read in one turn are written together. A write to a socket whose client sleeps wakes it, and on
 * this kind of machine (a virtual one) waking a thread on the other CPU is a good part of the write's cost; answers
 * written in a burst find the client awake. `GET /api-keys/current` +8% (median of 7 alternated pairs, 1-15%); the
 * GET probe under a finalize load unchanged (4.5-4.7 against 4.7-5.0 ms p99).
 */
function endOfTurn(): Promise<void> {
  turnEnd ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turnEnd = undefined;
      resolve();
    }),
  );
  return turnEnd;
}

/**
 * An HTTP/1.1 request without a Host header (RFC 9112 §3.2 requires one): refused with the coded 400 here, since node's
 * own check (requireHostHeader, off in createHttpServer) answers a bare one (test/http/node-edge.test.ts).
 */
function lacksHost(req: http.IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1;
}

/** The coded 400 of a request without a Host header; its connection closes after it, its body unread. */
function refuseHostless(app: App, req: http.IncomingMessage, res: http.ServerResponse): void {
  const error = invalidInput("headers.host", "An HTTP/1.1 request must send a Host header (RFC 9112 §3.2).");
  const out = app.refuse(error, { remoteAddress: req.socket.remoteAddress });
  const body = typeof out.body === "string" ? out.body : "";
  res
    .writeHead(out.status, { ...out.headers, "content-length": String(Buffer.byteLength(body)), connection: "close" })
    .end(body);
}

/**
 * Writes an answer to its response, given the server's own way of writing it (`write`): sandbox mode's replaces it
 * for the answers whose connection it cuts, empties or resets (src/sandbox/socket-faults.ts).
 */
export type AnswerWriter = (res: http.ServerResponse, out: Outgoing, write: () => Promise<void>) => Promise<void>;

/** Options of the node listener: the stall limit of streamed answers, and the writer of sandbox mode's. */
export interface ListenerOptions {
  streamStallMs?: number;
  writer?: AnswerWriter;
}

/** The request listener of an HTTP server answering through `app`. */
export function nodeListener(
  app: App,
  options: ListenerOptions = {},
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const stallMs = options.streamStallMs ?? STREAM_STALL_MS;
  const writer = options.writer;
  const deliver = writer
    ? (incoming: NodeIncoming, res: http.ServerResponse, out: Outgoing) =>
        writer(res, out, () => send(incoming, res, out, stallMs))
    : (incoming: NodeIncoming, res: http.ServerResponse, out: Outgoing) => send(incoming, res, out, stallMs);
  return (req, res) => {
    if (lacksHost(req)) {
      refuseHostless(app, req, res);
      return;
    }
    const incoming = new NodeIncoming(req, res);
    app
      .serve(incoming, { remoteAddress: req.socket.remoteAddress })
      .then(async (out) => {
        await endOfTurn();
        return deliver(incoming, res, out);
      })
      .catch(() => {
        // The pipeline answers every error itself; this is a failure to write (the client went away, a bad header).
        if (res.headersSent || res.destroyed) {
          res.destroy();
          return;
        }
        const error = new ApiError("internal_error", "The server could not write its answer.");
        const out = app.refuse(error, { remoteAddress: req.socket.remoteAddress });
        res.writeHead(500, { ...out.headers, connection: "close" }).end(out.body);
      });
  };
}

/** 408 request_timeout: the request did not arrive in time (also the sandbox's, src/sandbox/error-messages.ts). */
export function requestTimedOut(): ApiError {
  return new ApiError("request_timeout", "The request was not received in time; send it again.");
}

/** What node's HTTP parser refused, as the API's coded error. */
function parserRefusal(code: string | undefined): ApiError {
  if (code === "HPE_HEADER_OVERFLOW")
    return new ApiError("request_headers_too_large", "The request's headers are larger than the server reads (16 KB).");
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return requestTimedOut();
  return invalidInput("request", "Not a well-formed HTTP/1.1 request (request line or headers).");
}

/**
 * node's 'clientError' listener: a request its parser refuses (a malformed request line or header, headers over
 * the size limit, a request not received within the server's timeouts) gets the API's coded error body with
 * X-Trace-Id and the X-RateLimit-* headers every response carries (spec §8, DESIGN §3), instead of node's bare
 * status line; the connection is then closed, since what follows on it cannot be read either.
 */
export function clientErrorListener(app: App): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    // Nothing to answer on a connection the client reset, or one with a request under way (a 408 while its body
    // arrives, a bad request pipelined behind one being handled): an answer there would be read as that request's,
    // and the request must not run on after it. The connection is cut instead.
    const pending = (socket as { _httpMessage?: unknown })._httpMessage;
    if (err.code === "ECONNRESET" || !socket.writable || pending) {
      socket.destroy();
      return;
    }
    const out = app.refuse(parserRefusal(err.code), {
      remoteAddress: (socket as { remoteAddress?: string }).remoteAddress,
    });
    const body = Buffer.from(typeof out.body === "string" ? out.body : "");
    const headers = { ...out.headers, "content-length": String(body.byteLength), connection: "close" };
    const head = [`HTTP/1.1 ${out.status} ${http.STATUS_CODES[out.status] ?? ""}`]
      .concat(Object.entries(headers).map(([name, value]) => `${name}: ${value}`))
      .join("\r\n");
    // Nothing after the refusal is read: the connection goes once the answer is written.
    socket.end(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, "latin1"), body]), () => socket.destroy());
  };
}

/**
 * The server's limits on slow clients, as docs/api.md (408 request_timeout) and the README state them: headers within
 * 20 s, the whole request within 60 s. Node checks them every `connectionsCheckingInterval` (30 s by default, which
 * made them about 30 s and 88 s): once a second, they hold to within a second (test/http/node-edge.test.ts).
 */
export const SERVER_LIMITS = {
  headersTimeout: 20_000,
  requestTimeout: 60_000,
  connectionsCheckingInterval: 1_000,
  // Longer than clients' own idle timeouts (undici's is 4 s, load balancers' often 60 s), so that a client never
  // sends a request on a connection the server is closing at that moment.
  keepAliveTimeout: 65_000,
} as const;

/** The node:http server of the app: its listener, its refusals of what the parser rejects, and its limits. */
export function createHttpServer(app: App, options: ListenerOptions = {}): http.Server {
  const { keepAliveTimeout, ...created } = SERVER_LIMITS;
  // requireHostHeader off: the listener refuses a request without Host with the coded 400 (lacksHost).
  const server = http.createServer({ ...created, requireHostHeader: false }, nodeListener(app, options));
  // What node's HTTP parser refuses gets the API's coded error and headers, not a bare status line.
  server.on("clientError", clientErrorListener(app));
  server.keepAliveTimeout = keepAliveTimeout;
  return server;
}
