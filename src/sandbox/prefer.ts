/**
 * The faults a request asks for with its `Prefer` header in sandbox mode (Stoplight Prism's style): read, checked,
 * and the ones the pipeline answers itself (a status or error code, a delay) applied. The socket's and the stream's
 * faults are kept for the answer (socket-faults.ts, stream-faults.ts). Held by test/sandbox/prefer.test.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type ApiError, ERROR_CODES, type ErrorCode, invalidInput } from "../domain/errors.js";
import type { LlmConfig } from "../domain/generation/llm.js";
import { rateLimited } from "../http/pipeline/rate-limit.js";
import type { RequestState, Stage } from "../http/pipeline/state.js";
import type { RateDecision } from "../http/ratelimit.js";
import { randomUnit } from "../runtime/random.js";
import { sandboxError } from "./error-messages.js";

/** A fault of the connection: reset (RST), closed without an answer, or an answer cut short. */
export type SocketFault = "reset" | "empty" | "truncated";

/** What one request's Prefer header asks for. */
export interface Preferences {
  /** Answer this error instead of running the request (from `status=` or `error_code=`). */
  errorCode?: ErrorCode;
  /** Wait this long before answering: `delayMs`, or a random time from it to `delayMaxMs`. */
  delayMs?: number;
  delayMaxMs?: number;
  socket?: SocketFault;
  /** End a streamed answer with an `error` event after this many `delta` events. */
  streamErrorAfter?: number;
}

/** The longest delay a request may ask for: under the server's 60 s request timeout, which a client also keeps. */
export const MAX_DELAY_MS = 30_000;

/**
 * Preferences of RFC 7240's registry, which a client may send for its own reasons: left to the server's usual
 * answer. Any other name is refused, so that a typo (`stauts=429`) is not silently a real answer.
 */
const REGISTERED = new Set(["return", "respond-async", "wait", "handling"]);

/** Where a request's Prefer header is named in a 400's issue; a fault rule's answer is named by its own path. */
export const PREFER_HEADER = "header.prefer";

/** The 400 naming a preference the sandbox does not take, at `where` (the header, or a fault rule's field). */
function badPreference(where: string, given: string, why: string): ApiError {
  return invalidInput(where, `${where === PREFER_HEADER ? "Prefer: " : ""}"${given}" ${why}.`);
}

/** The first error code of a status (ERROR_CODES' order: 429 rate_limit_exceeded, 503 service_busy). */
function codeOfStatus(status: number): ErrorCode | undefined {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).find((code) => ERROR_CODES[code] === status);
}

/** One delay as `2s`, `1.5s` or `250ms`, in milliseconds; undefined when it is not one or is too long. */
function msOf(value: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(value);
  if (!m) return undefined;
  const ms = Number(m[1]) * (m[2] === "s" ? 1000 : 1);
  return ms <= MAX_DELAY_MS ? Math.round(ms) : undefined;
}

/** A delay (`2s`) or a random range (`1s-3s`) as its bounds in milliseconds; undefined when it is neither. */
function delayOf(value: string): { min: number; max: number } | undefined {
  const [low, high = low, ...more] = value.split("-");
  const min = msOf(low);
  const max = msOf(high);
  return more.length === 0 && min !== undefined && max !== undefined && min <= max ? { min, max } : undefined;
}

/** Reads a status or error code into `prefs`, refusing one that contradicts the other. */
function readError(prefs: Preferences, item: string, where: string, code: ErrorCode | undefined, why: string): void {
  if (!code) throw badPreference(where, item, why);
  if (prefs.errorCode && ERROR_CODES[prefs.errorCode] !== ERROR_CODES[code])
    throw badPreference(where, item, `contradicts ${prefs.errorCode} (${ERROR_CODES[prefs.errorCode]})`);
  if (!prefs.errorCode || item.startsWith("error_code")) prefs.errorCode = code;
}

/** Reads one `name=value` preference into `prefs`, or throws the 400 naming it at `where`. */
function readPreference(prefs: Preferences, item: string, where: string): void {
  const at = item.indexOf("=");
  const name = (at < 0 ? item : item.slice(0, at)).trim().toLowerCase();
  const value = at < 0 ? "" : item.slice(at + 1).trim();
  if (REGISTERED.has(name)) return;
  if (name === "status") {
    const code = /^\d{3}$/.test(value) ? codeOfStatus(Number(value)) : undefined;
    readError(prefs, item, where, code, "is not an error status of the API (400 to 507, as in its error table)");
  } else if (name === "error_code") {
    const code = Object.hasOwn(ERROR_CODES, value) ? (value as ErrorCode) : undefined;
    readError(prefs, item, where, code, "is not an error code of the API");
  } else if (name === "delay") {
    const delay = delayOf(value);
    if (!delay)
      throw badPreference(where, item, `is not a delay (250ms, 2s or 1s-3s, at most ${MAX_DELAY_MS / 1000}s)`);
    prefs.delayMs = delay.min;
    prefs.delayMaxMs = delay.max;
  } else if (name === "fault") readFault(prefs, item, value, where);
  else throw badPreference(where, item, "is not a preference the sandbox takes (status, error_code, delay, fault)");
}

/** Reads a `fault=` value: reset, empty, truncated or stream_error_after=N. */
function readFault(prefs: Preferences, item: string, value: string, where: string): void {
  if (value === "reset" || value === "empty" || value === "truncated") {
    prefs.socket = value;
    return;
  }
  const m = /^stream_error_after=(\d{1,4})$/.exec(value);
  if (!m) throw badPreference(where, item, "is not a fault (reset, empty, truncated, stream_error_after=N)");
  prefs.streamErrorAfter = Number(m[1]);
}

/** Preferences given as `name=value` items, or the 400 naming, at `where`, the first that is not taken. */
export function preferencesOf(items: readonly string[], where: string): Preferences {
  const prefs: Preferences = {};
  for (const item of items) readPreference(prefs, item, where);
  return prefs;
}

/** A Prefer header's preferences (comma-separated, RFC 7240), or the 400 naming the first that is not taken. */
export function parsePrefer(header: string): Preferences {
  // A preference's own parameters (`; …`, RFC 7240 §2) are not used by any the sandbox takes.
  const items = header.split(",").map((item) => item.split(";")[0].trim());
  return preferencesOf(
    items.filter((item) => item !== ""),
    PREFER_HEADER,
  );
}

/**
 * The decision a caller's bucket would report the moment it ran dry: what the real 429's X-RateLimit-* and
 * Retry-After say (its limit, nothing remaining, full again a window later, a token again after one share of it).
 */
function emptied(decision: RateDecision | undefined, nowMs: number): RateDecision {
  const limit = Math.max(1, decision?.limit ?? 1);
  return {
    allowed: false,
    limit,
    remaining: 0,
    reset: Math.ceil(nowMs / 1000) + 60,
    window: "minute",
    retryAfterSeconds: Math.max(1, Math.ceil(60 / limit)),
  };
}

/**
 * The error a preference asks for, as the server itself would raise it: the rate limit's 429 (with the caller's
 * emptied bucket in the headers), or the server's own error of the code where it has one (error-messages.ts: a busy
 * database's, a full disk's, the model server's `llm`'s), else one with a message that says where it came from.
 */
export function preferredError(code: ErrorCode, state: RequestState, nowMs: number, llm?: LlmConfig): ApiError {
  if (code === "rate_limit_exceeded") {
    state.decision = emptied(state.decision, nowMs);
    return rateLimited(state.decision);
  }
  return sandboxError(code, llm);
}

/**
 * Applies what the pipeline answers itself of `prefs`: waits for its delay, then throws the error it asks for; keeps
 * the socket's and the stream's faults for the answer (`kept`, merged with any kept already). Synchronous without a
 * delay.
 */
export function applyPreferences(
  state: RequestState,
  prefs: Preferences,
  kept: WeakMap<RequestState, Preferences>,
  now: () => number,
  llm?: LlmConfig,
): void | Promise<void> {
  if (prefs.socket !== undefined || prefs.streamErrorAfter !== undefined)
    kept.set(state, { ...kept.get(state), ...prefs });
  const answer = () => {
    if (prefs.errorCode) throw preferredError(prefs.errorCode, state, now(), llm);
  };
  if (prefs.delayMs === undefined) return answer();
  const max = prefs.delayMaxMs ?? prefs.delayMs;
  return sleep(prefs.delayMs + Math.round(randomUnit() * (max - prefs.delayMs))).then(answer);
}

/**
 * The Prefer stage, on requests under /api/v1/ only: refuses a header it cannot read (400), and applies the rest
 * (applyPreferences). Synchronous for a request without the header.
 */
export function preferStage(kept: WeakMap<RequestState, Preferences>, now: () => number, llm?: LlmConfig): Stage {
  return function preferFaults(state) {
    const header = state.request.headers.get("prefer");
    if (header === null || !state.url.pathname.startsWith("/api/v1/")) return;
    return applyPreferences(state, parsePrefer(header), kept, now, llm);
  };
}
