/**
 * The openai-compatible engine: POST {base}/v1/chat/completions, the request shape Ollama, llama.cpp's server,
 * vLLM and LocalAI share; plain and streamed. Every failure becomes a coded 502/504 within a bounded time and
 * bounded memory: the model server is trusted to be on-prem, not to be well-behaved.
 */
import { ApiError } from "../errors.js";

/** How to reach the on-prem model server. */
export interface LlmConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Longest wait for the answer to start, and between two pieces of a stream. */
  timeoutMs: number;
  /**
   * The fetch the calls go through (default: the global one). Sandbox mode's engine rules put theirs here, so that a
   * model server made slow, failing or garbled is met by this file's own handling (src/sandbox/engine-faults.ts).
   */
  fetch?: LlmFetch;
}

/** A fetch of the model server: the URL and the request's init, as the global fetch takes them. */
export type LlmFetch = (url: string, init: RequestInit) => Promise<Response>;

/** One chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * The longest text a model may write for one request: the content limit (a content's text is at most 500,000
 * characters, routes/contents.ts), so whatever it writes can be stored and edited. A model that loops on and on
 * is stopped here instead of growing the server's memory until a string can no longer hold it.
 */
export const MAX_ANSWER_CHARS = 500_000;

/**
 * The largest non-streamed answer: the longest text JSON-escaped at its worst (\uXXXX, 6 bytes a character) is
 * 3 MB; the rest leaves room for the envelope and the fields some servers add (a reasoning model's thoughts).
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The longest line of a stream (one event): an event carries one piece of text, a few words. */
export const MAX_STREAM_LINE_BYTES = 1024 * 1024;

/** How much of an error answer is read for its message (only the first 500 characters are shown). */
const MAX_ERROR_BYTES = 64 * 1024;

/** The abort reason of a call that ran out of time (told apart from the client's going away). */
const TIMEOUT = new Error("timeout");

/** The abort reason of a call that is over: whatever of the answer was not read is dropped with its connection. */
const ENDED = new Error("ended");

const LINE_FEED = 0x0a;

/**
 * Text (a base URL, an error message that quotes one) as it may be shown: without a URL's user name and password.
 * serve refuses such URLs; this is the backstop, since messages and GET /models reach any read key.
 */
export function withoutUserinfo(text: string): string {
  // Up to the last "@" of the authority: that is where a URL parser ends the userinfo.
  return text.replace(/\/\/[^/?#\s]*@/g, "//");
}

/**
 * A credential header or field named in text (`Authorization: Bearer …`, `"api-key": "…"`, `api_key=…`,
 * `"token": "…"`, `Cookie: …`, `Ocp-Apim-Subscription-Key: …`, `client_secret=…`, `password=…`): its value.
 */
const CREDENTIAL_VALUE =
  /\b((?:proxy-)?authorization|x-api-key|api[-_]?key|(?:ocp-apim-)?subscription-key|(?:x-)?(?:access[-_]|auth[-_]|refresh[-_]|id[-_])?token|(?:client[-_])?secret|password|passwd|(?:set-)?cookie)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;&}]+/gi;

/** A bearer credential quoted anywhere (`Bearer sk-…`, `Bearer%20sk-…` in a URL). */
const BEARER_VALUE = /\bbearer(?:\s+|%20)[\w.~+/=%-]+/gi;

/** A query (and fragment) after a URL or a bare path (`/v1/chat?key=…`), where a gateway's token would stand. */
const QUERY = /((?:https?:\/\/|\/)[^\s?#]*)[?#][^\s]*/gi;

/**
 * Text quoting the model server's URL as any read key may see it (GET /models, a 502's message, the model server's
 * own error text): without a URL's user name and password, without its query and fragment, where a gateway's token
 * (`?key=…`) would stand, and without the value of an `Authorization`, `api-key` or bearer credential the text
 * echoes. The one rule for both the server's words and the model server's (test/domain/generation/redaction.test.ts).
 */
export function shownServerText(text: string): string {
  return withoutUserinfo(text)
    .replace(QUERY, "$1")
    .replace(CREDENTIAL_VALUE, "$1$2[redacted]")
    .replace(BEARER_VALUE, "Bearer [redacted]");
}

/** The model server's own text as a caller may see it: shownServerText, and the configured key wherever it appears. */
function shownUpstreamText(cfg: LlmConfig, text: string): string {
  const shown = shownServerText(text);
  return cfg.apiKey ? shown.replaceAll(cfg.apiKey, "[redacted]") : shown;
}

function sizeOf(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * An endpoint of the model server's API (the base URL may end in /v1 or not). The base URL's query stays a query
 * (Azure OpenAI's `?api-version=`, a gateway's token): added after it, the path would have become part of it.
 */
function endpoint(cfg: LlmConfig, path: "chat/completions" | "images/generations"): string {
  const url = new URL(cfg.baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/${path}`;
  url.hash = "";
  return url.href;
}

/** 502 upstream_unavailable: the model server cannot be reached (also the sandbox's, src/sandbox/error-messages.ts). */
export function unavailable(cfg: LlmConfig, why: string): ApiError {
  return new ApiError(
    "upstream_unavailable",
    `The model server at ${shownServerText(cfg.baseUrl)} cannot be reached: ${shownServerText(why)}.`,
    {
      model: cfg.model,
    },
  );
}

/** 504 upstream_timeout: the model server did not answer within the timeout. */
export function timedOut(cfg: LlmConfig): ApiError {
  return new ApiError("upstream_timeout", `The model server did not answer within ${cfg.timeoutMs / 1000} s.`, {
    model: cfg.model,
    timeout_seconds: cfg.timeoutMs / 1000,
  });
}

/** 502 upstream_error: the model server answered with an error, its message shown redacted. */
export function upstreamError(cfg: LlmConfig, message: string, status?: number): ApiError {
  // Redacted before its cut to 500 characters (a cut token would escape the patterns), from its first 2,000 only,
  // which bounds the patterns' work on a long text.
  const shown = shownUpstreamText(cfg, message.slice(0, 2_000)).slice(0, 500);
  return new ApiError("upstream_error", `The model server answered with an error: ${shown}`, {
    model: cfg.model,
    ...(status ? { upstream_status: status } : {}),
  });
}

/** 502 upstream_invalid_response: the model server's answer cannot be used. */
export function invalid(cfg: LlmConfig, why: string): ApiError {
  return new ApiError("upstream_invalid_response", `The model server's answer cannot be used: ${why}.`, {
    model: cfg.model,
  });
}

/** The message of an OpenAI-style error object, if the value is one. */
function errorMessage(value: unknown): string | undefined {
  if (!value || typeof value !== "object") return undefined;
  const err = (value as { error?: unknown }).error;
  if (err === undefined || err === null) return undefined;
  if (typeof err === "string") return err;
  if (typeof err === "object" && typeof (err as { message?: unknown }).message === "string")
    return (err as { message: string }).message;
  return JSON.stringify(err);
}

/** A JSON answer or stream event of the model server, parsed; an error object in it is thrown as upstream_error. */
function answerOf(cfg: LlmConfig, text: string, notJson: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid(cfg, notJson);
  }
  const message = errorMessage(body);
  if (message) throw upstreamError(cfg, message);
  return body;
}

/** One request to the model server, from sending it to dropping what is left of its answer. */
interface Call {
  signal: AbortSignal;
  /** Runs `step` (the wait for the head, a read), aborting the call if it takes longer than the timeout. */
  within<T>(step: () => Promise<T>): Promise<T>;
  /** The coded error for a failed fetch or read: the timeout, the client gone, or else `otherwise`. */
  failure(e: unknown, otherwise: () => ApiError): ApiError;
  /** Ends the call: an answer not read to its end is dropped and its connection closed. */
  end(): void;
}

/**
 * Starts a call, cancelled by the client's signal for as long as it lasts, not only until the head arrives: a
 * client that leaves while the model is still writing must stop the model server's work and free the connection.
 */
function startCall(cfg: LlmConfig, client?: AbortSignal): Call {
  const controller = new AbortController();
  const onAbort = () => controller.abort(client?.reason);
  if (client?.aborted) onAbort();
  else client?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    async within(step) {
      // Aborting (not racing a timer) ends the read too: a lost race would leave the body flowing in the background.
      const timer = setTimeout(() => controller.abort(TIMEOUT), cfg.timeoutMs);
      try {
        return await step();
      } finally {
        clearTimeout(timer);
      }
    },
    failure(e, otherwise) {
      if (e instanceof ApiError) return e;
      if (controller.signal.reason === TIMEOUT) return timedOut(cfg);
      if (client?.aborted) return unavailable(cfg, "the request was cancelled by its client");
      return otherwise();
    },
    end() {
      client?.removeEventListener("abort", onAbort);
      controller.abort(ENDED);
    },
  };
}

/**
 * POSTs a JSON request to an endpoint of the model server and waits for the answer's head, within the timeout; an
 * error status is thrown as upstream_error.
 */
async function post(
  cfg: LlmConfig,
  call: Call,
  path: "chat/completions" | "images/generations",
  payload: unknown,
  accept?: string,
): Promise<Response> {
  let res: Response;
  try {
    res = await call.within(() =>
      (cfg.fetch ?? fetch)(endpoint(cfg, path), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(accept ? { accept } : {}),
          ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
        },
        body: JSON.stringify(payload),
        signal: call.signal,
      }),
    );
  } catch (e) {
    throw call.failure(e, () => {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      return unavailable(cfg, cause?.code ?? cause?.message ?? (e as Error).message);
    });
  }
  if (!res.ok) throw await errorAnswer(cfg, call, res);
  return res;
}

/** A chat completion request, plain or streamed. */
function openChat(cfg: LlmConfig, call: Call, messages: ChatMessage[], stream: boolean): Promise<Response> {
  const payload = { model: cfg.model, messages, stream, temperature: 0.7 };
  return post(cfg, call, "chat/completions", payload, stream ? "text/event-stream" : "application/json");
}

/** The upstream_error of an error status, with the message of its body (what of it comes within the timeout). */
async function errorAnswer(cfg: LlmConfig, call: Call, res: Response): Promise<ApiError> {
  const text = await readBody(cfg, call, res, MAX_ERROR_BYTES, "truncate").then(
    (bytes) => new TextDecoder().decode(bytes),
    () => "",
  );
  let message = text || res.statusText || `HTTP ${res.status}`;
  try {
    message = errorMessage(JSON.parse(text)) ?? message;
  } catch {}
  return upstreamError(cfg, message, res.status);
}

/**
 * Reads a whole answer body within the timeout, holding at most `limit` bytes: past it, `over` is thrown (or, with
 * "truncate", the bytes so far are the answer). What is not read is left to the caller's call.end(), which closes
 * the connection, so a huge or endless body is neither buffered whole nor read on in the background.
 */
async function readBody(
  cfg: LlmConfig,
  call: Call,
  res: Response,
  limit: number,
  over: (() => ApiError) | "truncate" = () => invalid(cfg, `an answer larger than ${sizeOf(limit)}`),
): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (over !== "truncate" && declared > limit) throw over();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  return call.within(async () => {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        // A connection reset or closed before the body's end ("terminated"): the answer broke off.
        throw call.failure(e, () => invalid(cfg, "the answer broke off"));
      }
      if (chunk.done) return Buffer.concat(chunks, size);
      if (size + chunk.value.byteLength > limit) {
        if (over !== "truncate") throw over();
        chunks.push(chunk.value.subarray(0, limit - size));
        return Buffer.concat(chunks, limit);
      }
      chunks.push(chunk.value);
      size += chunk.value.byteLength;
    }
  });
}

/** One answer, not streamed. */
export async function chatComplete(cfg: LlmConfig, messages: ChatMessage[], signal?: AbortSignal): Promise<string> {
  const call = startCall(cfg, signal);
  try {
    const res = await openChat(cfg, call, messages, false);
    const text = new TextDecoder().decode(await readBody(cfg, call, res, MAX_ANSWER_BYTES));
    const body = answerOf(cfg, text, "not JSON");
    // `?.` throughout: the answer may be JSON null, or hold null or a string where an object belongs.
    const content = (body as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message
      ?.content;
    if (typeof content !== "string" || content.trim() === "") throw invalid(cfg, "no choices[0].message.content");
    if (content.length > MAX_ANSWER_CHARS) throw invalid(cfg, `a text longer than ${MAX_ANSWER_CHARS} characters`);
    return content;
  } finally {
    call.end();
  }
}

/**
 * Splits a byte stream into lines in time linear in its length: only the bytes that just arrived are searched
 * for a line feed, and an unfinished line is kept as its pieces, joined once, when it ends. (Appending to one
 * string and searching it from the start was quadratic: an upstream that never sent a newline stalled the event
 * loop for seconds.) A line feed byte is never part of a multi-byte UTF-8 character, so each line decodes alone.
 */
function lineSplitter(limit: number) {
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  return {
    /** The lines `chunk` completes, without their line ends; null once the unfinished line is over the limit. */
    push(chunk: Uint8Array): string[] | null {
      const lines: string[] = [];
      let start = 0;
      for (let end = chunk.indexOf(LINE_FEED); end !== -1; end = chunk.indexOf(LINE_FEED, start)) {
        const tail = chunk.subarray(start, end);
        if (pendingBytes + tail.byteLength > limit) return null;
        const line = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
        lines.push(decoder.decode(line).replace(/\r$/, ""));
        pending = [];
        pendingBytes = 0;
        start = end + 1;
      }
      if (start < chunk.byteLength) {
        pendingBytes += chunk.byteLength - start;
        if (pendingBytes > limit) return null;
        pending.push(chunk.subarray(start));
      }
      return lines;
    },
  };
}

/**
 * A streamed answer: resolves once the model server has accepted the request (so connection and HTTP errors
 * are thrown before anything is sent to the client), then yields the text pieces as they arrive. The upstream
 * is read only as fast as the pieces are taken, and its connection closes when the generator ends, however it
 * ends (returned early, failed, or the client's signal aborted while a read waits).
 */
export async function chatStream(
  cfg: LlmConfig,
  messages: ChatMessage[],
  signal?: AbortSignal,
): Promise<AsyncGenerator<string, void, undefined>> {
  const call = startCall(cfg, signal);
  let res: Response;
  try {
    res = await openChat(cfg, call, messages, true);
    if (!res.body) throw invalid(cfg, "an empty stream");
  } catch (e) {
    call.end();
    throw e;
  }
  const reader = res.body.getReader();

  async function* pieces(): AsyncGenerator<string, void, undefined> {
    const lines = lineSplitter(MAX_STREAM_LINE_BYTES);
    let written = 0;
    let finished = false;
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          // The timeout is per read: a stream may take long in all, but not pause for long.
          chunk = await call.within(() => reader.read());
        } catch (e) {
          throw call.failure(e, () => invalid(cfg, "the stream broke off"));
        }
        if (chunk.done) break;
        const complete = lines.push(chunk.value);
        if (complete === null) throw invalid(cfg, `a stream line longer than ${sizeOf(MAX_STREAM_LINE_BYTES)}`);
        for (const line of complete) {
          if (!line.startsWith("data:")) continue;
          const data = line.slice(5).trim();
          if (data === "[DONE]") {
            finished = true;
            return;
          }
          const event = answerOf(cfg, data, "a stream event that is not JSON");
          const choice = (event as { choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[] } | null)
            ?.choices?.[0];
          const piece = choice?.delta?.content;
          if (typeof piece === "string" && piece) {
            written += piece.length;
            if (written > MAX_ANSWER_CHARS) throw invalid(cfg, `a text longer than ${MAX_ANSWER_CHARS} characters`);
            yield piece;
          }
          if (choice?.finish_reason) finished = true;
        }
      }
      if (!finished) throw invalid(cfg, "the stream ended before it was complete");
    } finally {
      reader.cancel().catch(() => {});
      call.end();
    }
  }
  return pieces();
}

/**
 * An image from an OpenAI-compatible images endpoint (POST {base}/v1/images/generations, b64_json); the bytes
 * are returned as they came and checked by the caller. An image over `maxBytes` (the upload limit) is refused
 * as an unusable answer, and its body is read no further than the base64 of that many bytes allows.
 */
export async function generateImageRemote(
  cfg: LlmConfig,
  req: { prompt: string; width: number; height: number; maxBytes: number },
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const call = startCall(cfg, signal);
  try {
    const res = await post(cfg, call, "images/generations", {
      model: cfg.model,
      prompt: req.prompt,
      n: 1,
      size: `${req.width}x${req.height}`,
      response_format: "b64_json",
    });
    // The base64 of the largest image, and a megabyte for the envelope and what servers add (a revised prompt).
    const limit = Math.ceil(req.maxBytes / 3) * 4 + 1024 * 1024;
    const tooLarge = () => invalid(cfg, `an image larger than ${sizeOf(req.maxBytes)}`);
    const text = new TextDecoder().decode(await readBody(cfg, call, res, limit, tooLarge));
    const body = answerOf(cfg, text, "not JSON");
    const b64 = (body as { data?: { b64_json?: unknown }[] } | null)?.data?.[0]?.b64_json;
    if (typeof b64 !== "string" || b64 === "") throw invalid(cfg, "no data[0].b64_json");
    // Sized before decoding, from the digits (padding and line breaks aside).
    const digits = b64.replace(/[\s=]+/g, "").length;
    if (Math.floor((digits * 3) / 4) > req.maxBytes) throw tooLarge();
    return Buffer.from(b64, "base64");
  } finally {
    call.end();
  }
}
