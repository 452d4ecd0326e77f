/**
 * `Idempotency-Key` on POST (DESIGN §3). The first completed response to an authenticated POST carrying the header
 * is stored for 24 hours per account, caller (API key or session user) and key, and replayed, with
 * `Idempotent-Replayed: true`, to a later request with the same key and the same method, path, query and body; the
 * same key with anything else is 409 `idempotency_key_reused`. A duplicate that arrives while the first is still
 * running waits for it and gets its answer: the operation runs once. One server's duplicates wait in its memory; with
 * servers sharing a PostgreSQL database, a claim in the database makes the others' wait too (idempotency-claims.ts).
 *
 * What is stored: every response the operation completed with, success or error, except 5xx, 429, 401 and the
 * input errors 400, 413 and 415 (the operation did not run: a corrected request may reuse the key). A stream
 * (text/event-stream) is passed on as it is produced and stored, whole, once it has completed (see `recorded`): until
 * then the key stays in flight, so a duplicate waits for the stream's end and gets its replay. One that did not
 * complete (the client left, an `error` event, the server stopped) stores nothing, and the duplicate runs. A request
 * refused before the operation (authentication, rate limit, plan, scope, workspace, validation) stores nothing. A
 * secret the response shows once (a route's `shownOnce` fields: a new API key, a generated password) is not stored:
 * the replay has null in its place (spec §2: a key is displayed only once, and only its hash is kept).
 */
import { createHash, type Hash } from "node:crypto";
import { type ClaimKey, type IdempotencyRow, withoutBody } from "../db/idempotency.js";
import type { Store } from "../db/store.js";
import { type Clock, iso } from "../domain/clock.js";
import { ApiError, invalidInput } from "../domain/errors.js";
import { inlineWriter, type StoreWriter } from "../domain/writer.js";
import { type Logger, redactSecrets } from "../runtime/log.js";
import { errorBody } from "./errors.js";
import { bodyBytes, type Incoming, isEventStream, NULL_BODY_STATUS, type Outgoing } from "./exchange.js";
import type { HeldClaim, SharedClaims } from "./idempotency-claims.js";

/** How long a completed response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/**
 * The largest response body kept for replay. A larger one (a long conversion, an MCP batch of reads) is recorded
 * without its body, and a duplicate gets 409 idempotency_response_not_kept with the status the operation completed
 * with: stored responses cost disk for 24 h, and a batch of reads could otherwise store tens of megabytes a request.
 * A kept body counts against the account's storage quota until it is purged, and one that does not fit is recorded
 * without its body alike (domain/writer.ts idempotencySave).
 */
export const MAX_KEPT_BYTES = 1024 * 1024;

/** How many expired responses one purge transaction deletes (on the writer thread: server/start.ts). */
export const PURGE_BATCH = 100;

/** The header a replayed response carries. */
export const REPLAY_HEADER = "idempotent-replayed";

/** Response headers never stored: the pipeline sets them afresh on every answer. */
const FRESH_HEADERS = new Set([
  "content-length",
  "x-trace-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-api-stability",
  REPLAY_HEADER,
]);

/** The header as the OpenAPI description lists it on every authenticated POST. */
export const IDEMPOTENCY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "1–255 visible ASCII characters (e.g. a UUID). The first completed response is stored for 24 h per caller and key and replayed, with Idempotent-Replayed: true, for the same method, path, query and body; another request under the same key is 409 idempotency_key_reused. A duplicate sent while the first runs waits for its answer (after a text/event-stream answer, until its stream ends). A stream is stored once complete and replayed whole; one that did not complete (the client left, an `error` event) is not stored. Not stored either: 5xx, 429, 401 and input errors (400, 413, 415). Secrets shown once (a new API key's `key`, a generated `password`) are null in a replay.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
};

/**
 * A replayed error body carries the replay's trace id, as its X-Trace-Id header does (DESIGN §3: the body's
 * trace_id is the response's X-Trace-Id); success bodies are replayed byte for byte.
 */
function withTraceId(status: number, body: Uint8Array, traceId: string): Uint8Array {
  if (status < 400) return body;
  try {
    const parsed = JSON.parse(Buffer.from(body).toString("utf8"));
    if (parsed && typeof parsed === "object" && typeof parsed.trace_id === "string")
      return Buffer.from(JSON.stringify({ ...parsed, trace_id: traceId }));
  } catch {}
  return body;
}

/** Whether a completed response is kept for replay (see the module comment; a stream once it has completed). */
export function isReplayable(status: number): boolean {
  // 401 too: whatever the handler says about credentials is for this request only.
  return !(status >= 500 || [400, 401, 413, 415, 429].includes(status));
}

/** How much of a stream's end is kept to read its last event (an `error` event's body is far smaller). */
const TAIL_BYTES = 64 * 1024;

/** A chunk holding a `done` event (the generate stream's last), which `recorded` holds back until the store. */
const DONE_EVENT = /(^|\n)event: ?done\r?\n/;

/**
 * Whether the last event of an event stream's end is `error`: the operation failed midway (the generate stream's
 * upstream errors), which is no completed answer. Events are separated by blank lines; its `data` is one JSON line.
 */
function endsWithError(tail: Buffer): boolean {
  const text = tail.toString("latin1").replace(/\r\n?/g, "\n").replace(/\n+$/, "");
  const last = text.slice(text.lastIndexOf("\n\n") + 1);
  return /(^|\n)event: ?error(\n|$)/.test(last);
}

/**
 * An event stream passed on chunk by chunk as its reader asks (so a slow client still slows its source), with a copy
 * of what it sent. Once the source has ended, `end` gets the whole body, or `undefined` past MAX_KEPT_BYTES (then only
 * the end is kept, to read its last event); the stream ends after `end` has settled, so its stored answer is there
 * before the client sees the end. `end` gets `null` when the stream did not complete: its last event is `error`, the
 * source failed, the reader cancelled (the client left: node.ts) or `signal` aborted (the same, seen by the request).
 * `end` is called once.
 */
function recorded(
  source: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
  end: (body: Uint8Array | undefined | null) => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let chunks: Uint8Array[] = [];
  let size = 0;
  // The last chunks, at least TAIL_BYTES of them when there are that many.
  const tail: Uint8Array[] = [];
  let tailSize = 0;
  let ended = false;
  // A chunk holding a `done` event, kept back until the stream's answer is stored (pull).
  let held: Uint8Array | undefined;
  const finish = async (body: Uint8Array | undefined | null) => {
    if (ended) return;
    ended = true;
    signal?.removeEventListener("abort", left);
    await end(body);
  };
  const left = () => void finish(null);
  if (signal?.aborted) left();
  else signal?.addEventListener("abort", left, { once: true });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await reader.read();
          } catch (e) {
            await finish(null);
            controller.error(e);
            return;
          }
          if (next.done) {
            if (endsWithError(Buffer.concat(tail))) await finish(null);
            else await finish(size <= MAX_KEPT_BYTES ? Buffer.concat(chunks, size) : undefined);
            if (held) controller.enqueue(held);
            controller.close();
            return;
          }
          const chunk = next.value;
          size += chunk.byteLength;
          if (size <= MAX_KEPT_BYTES) chunks.push(chunk);
          else chunks = [];
          tail.push(chunk);
          tailSize += chunk.byteLength;
          while (tailSize - tail[0].byteLength >= TAIL_BYTES) tailSize -= tail.shift()!.byteLength;
          // A chunk with a `done` event (the generate stream's last, which clients act on) waits until the stream has
          // ended and its answer is stored and synced: sent at once, a crash before the store would leave the key
          // unused and a retry would generate again. Anything after it sends it first.
          const out = held;
          held = undefined;
          if (DONE_EVENT.test(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1")))
            held = chunk;
          if (out) controller.enqueue(out);
          if (!held) controller.enqueue(chunk);
          if (out || !held) return;
        }
      },
      async cancel(reason) {
        await finish(null);
        await reader.cancel(reason);
      },
    },
    // Nothing read ahead: the source reads its own source only as fast as the client reads (routes/generate.ts).
    { highWaterMark: 0 },
  );
}

/**
 * The Idempotency-Key of a POST, checked (1–255 visible ASCII characters, else 400 validation_failed);
 * undefined for other methods or without the header.
 */
export function idempotencyKeyOf(request: Incoming): string | undefined {
  if (request.method !== "POST") return undefined;
  const key = request.headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    const message = "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)";
    throw invalidInput("header.idempotency-key", message);
  }
  return key;
}

/**
 * Feeds a parsed body into a hash: object keys in sorted order, file bytes as they are. An explicit stack, not
 * recursion: JSON.parse accepts bodies nested far deeper than the call stack goes (DESIGN §3: no 5xx).
 */
function feed(hash: Hash, root: unknown): void {
  const stack: ({ token: string } | { value: unknown })[] = [{ value: root }];
  while (stack.length > 0) {
    const task = stack.pop()!;
    if ("token" in task) {
      hash.update(task.token);
      continue;
    }
    const value = task.value;
    if (value instanceof Uint8Array) {
      hash.update(`b${value.byteLength}:`);
      hash.update(value);
    } else if (Array.isArray(value)) {
      hash.update("[");
      stack.push({ token: "]" });
      for (let i = value.length - 1; i >= 0; i--) stack.push({ token: "," }, { value: value[i] });
    } else if (value !== null && typeof value === "object") {
      hash.update("{");
      stack.push({ token: "}" });
      const keys = Object.keys(value).sort();
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push(
          { token: "," },
          { value: (value as Record<string, unknown>)[keys[i]] },
          { token: `${JSON.stringify(keys[i])}:` },
        );
    } else hash.update(value === undefined ? "u" : JSON.stringify(value));
  }
}

/**
 * What makes two requests "the same" for a key: method, path, query and the parsed body (so JSON whitespace, key
 * order and a multipart boundary do not matter), as a SHA-256 hex digest.
 */
export function requestFingerprint(method: string, url: URL, body: unknown): string {
  const hash = createHash("sha256");
  hash.update(`${method} ${url.pathname}${url.search}\n`);
  feed(hash, body);
  return hash.digest("hex");
}

/** Who a key belongs to: the account and the API key or session user. */
export interface IdempotencyScope {
  accountId: number;
  /** An API key id, or `user:<id>` for a web session. */
  caller: string;
}

function reused(key: string): ApiError {
  return new ApiError(
    "idempotency_key_reused",
    `The Idempotency-Key "${key}" was already used with another request; use a new key for a new request.`,
  );
}

function notKept(key: string, status: number): ApiError {
  return new ApiError(
    "idempotency_response_not_kept",
    `The request under the Idempotency-Key "${key}" already ran and completed with status ${status}, but its ` +
      `response was not kept for replay: it was larger than ${MAX_KEPT_BYTES} bytes, or the account's storage ` +
      "quota had no room for it. Read the result with the resource's GET; use a new key to run the request again.",
    { original_status: status, limit_bytes: MAX_KEPT_BYTES },
  );
}

function headersOf(response: Outgoing): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (!FRESH_HEADERS.has(name)) kept[name] = value;
  return kept;
}

/** A JSON body with the named top-level fields set to null where present (the copy of a secret kept for replay). */
function withoutSecrets(body: Uint8Array, fields: readonly string[]): Uint8Array {
  const parsed: unknown = JSON.parse(Buffer.from(body).toString("utf8"));
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return body;
  const copy = { ...(parsed as Record<string, unknown>) };
  for (const field of fields) if (field in copy) copy[field] = null;
  return Buffer.from(JSON.stringify(copy));
}

function outgoing(status: number, headers: Record<string, string>, body: Uint8Array): Outgoing {
  return { status, headers, body: NULL_BODY_STATUS.has(status) ? null : body };
}

/** The stored responses and the requests in flight of one server. */
export class IdempotencyKeys {
  /** Requests running now, per scope and key, with what a duplicate must match. */
  private inFlight = new Map<string, { fingerprint: string; done: Promise<void> }>();

  constructor(
    private store: Store,
    private clock: Clock,
    private logger: Logger,
    /**
     * Stores a response: the server's writer thread (domain/writer.ts). On the HTTP thread's connection the insert
     * waited, blocking every request, for the writer's transaction in progress (in SQLite's busy handler, which sleeps
     * 1, 2, 5, 10 ms between tries): under a finalize load, each request with the header.
     */
    private writer: StoreWriter = inlineWriter(store),
    /**
     * Resolves once what was committed is on disk (db/durability.ts). The pipeline syncs before a stored answer goes
     * out; a stream's is stored as the stream ends, after the pipeline is done with it, so it syncs here.
     */
    private durable: () => Promise<void> = () => Promise.resolve(),
    /** The claims in the database shared with other servers (PostgreSQL); none for one server's own (SQLite). */
    private claims?: SharedClaims,
  ) {}

  /** The stored answer for a key, replayed; refused when it answered another request or was not kept. */
  private replay(stored: IdempotencyRow, key: string, fingerprint: string, traceId: string): Outgoing {
    if (stored.fingerprint !== fingerprint) throw reused(key);
    if (!stored.body_kept) throw notKept(key, stored.status);
    return outgoing(
      stored.status,
      { ...JSON.parse(stored.headers), [REPLAY_HEADER]: "true" },
      withTraceId(stored.status, stored.body, traceId),
    );
  }

  /**
   * Waits for the claim on a key in the database shared with other servers: the claim once this server holds it, or
   * the stored answer replayed; throws the refusal of a key claimed for another request. Unless it returns the claim,
   * it calls `giveBack` (this server's own hold on the key) first.
   */
  private async sharedClaim(
    claims: SharedClaims,
    scope: IdempotencyScope,
    key: string,
    fingerprint: string,
    traceId: string,
    giveBack: () => void,
  ): Promise<HeldClaim | Outgoing> {
    const at: ClaimKey = [scope.accountId, scope.caller, key];
    const outcome = await claims.acquire(at, fingerprint, () => this.stored(scope, key)).catch((e: Error) => e);
    if ("held" in outcome) return outcome.held;
    giveBack();
    if (outcome instanceof Error) throw outcome;
    if ("reused" in outcome) throw reused(key);
    return this.replay(outcome.stored, key, fingerprint, traceId);
  }

  private stored(scope: IdempotencyScope, key: string): IdempotencyRow | undefined {
    return this.store.idempotency.find(scope.accountId, scope.caller, key, iso(this.clock.now()));
  }

  /**
   * Answers a request carrying an Idempotency-Key: replays the stored response, waits for an identical request in
   * flight, refuses another request under the same key, or runs `operate` once and stores what it completes with.
   * `traceId` fills the body of an error the operation throws (the pipeline renders the same body); `shownOnce`
   * names the fields of a success body that are kept as null (see the module comment). A response over MAX_KEPT_BYTES
   * is recorded without its body. `signal` (the request's, asked for only by a stream) ends a stream's hold on the key
   * when its client leaves.
   */
  async run(
    scope: IdempotencyScope,
    key: string,
    fingerprint: string,
    traceId: string,
    operate: () => Promise<Outgoing>,
    shownOnce: readonly string[] = [],
    signal?: () => AbortSignal,
  ): Promise<Outgoing> {
    const id = `${scope.accountId}\u0000${scope.caller}\u0000${key}`;
    for (;;) {
      const running = this.inFlight.get(id);
      if (running) {
        if (running.fingerprint !== fingerprint) throw reused(key);
        await running.done;
        // The first may have stored nothing (a 5xx, a stream cut short): then the next duplicate in line runs.
        continue;
      }
      const stored = this.stored(scope, key);
      if (stored) return this.replay(stored, key, fingerprint, traceId);
      break;
    }

    let finish = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.inFlight.set(id, { fingerprint, done });
    let claim: HeldClaim | undefined;
    const release = () => {
      claim?.release();
      this.inFlight.delete(id);
      finish();
    };
    // `undefined`: a body over MAX_KEPT_BYTES, not kept (a stream's, which is not read whole).
    const save = async (status: number, headers: Record<string, string>, body: Uint8Array | undefined) => {
      const now = this.clock.now();
      const kept = body !== undefined && body.byteLength <= MAX_KEPT_BYTES;
      const row: IdempotencyRow = {
        account_id: scope.accountId,
        caller: scope.caller,
        idempotency_key: key,
        fingerprint,
        status,
        headers: JSON.stringify(headers),
        body: kept ? Buffer.from(body) : Buffer.alloc(0),
        body_kept: 1,
        created_at: iso(now),
        expires_at: iso(now + IDEMPOTENCY_TTL_MS),
      };
      try {
        await this.writer.run("idempotencySave", kept ? row : withoutBody(row));
      } catch (e) {
        // The operation is done: its answer still goes out; only a replay of it is lost.
        this.logger.error("idempotent response not stored", { error: (e as Error).message });
      }
    };
    // A stream's answer is stored when the stream ends: the key is in flight until then (`recorded` releases it).
    let streaming = false;
    // Outside the operation's try: a refusal here is no answer of the operation's, to be stored.
    const shared = this.claims && (await this.sharedClaim(this.claims, scope, key, fingerprint, traceId, release));
    if (shared && !("release" in shared)) return shared;
    claim = shared;
    try {
      const response = await operate();
      if (!isReplayable(response.status)) return response;
      if (isEventStream(response)) {
        const headers = headersOf(response);
        // Stored as the operation gave them: the pipeline adds this request's own (X-Trace-Id, X-RateLimit-*) to the
        // object it sends, before the stream ends.
        const stored = { ...headers };
        const body = recorded(response.body, signal?.(), async (sent) => {
          try {
            if (sent === null) return;
            await save(response.status, stored, sent);
            // The stored answer is on disk before the stream's end goes out, as a stored JSON answer is.
            await this.durable().catch((e: Error) =>
              this.logger.error("idempotent response not synced", { error: e.message }),
            );
          } finally {
            release();
          }
        });
        streaming = true;
        return { status: response.status, headers, body };
      }
      const body = await bodyBytes(response);
      const headers = headersOf(response);
      await save(
        response.status,
        headers,
        shownOnce.length > 0 && response.status < 300 ? withoutSecrets(body, shownOnce) : body,
      );
      return outgoing(response.status, headers, body);
    } catch (err) {
      // A coded error of the operation itself (404, 409 …) is its answer too; the pipeline renders it alike.
      if (err instanceof ApiError && isReplayable(err.status)) {
        const text = JSON.stringify(redactSecrets(errorBody(err, traceId)));
        const headers = { "content-type": "application/json; charset=utf-8", ...err.headers };
        await save(err.status, headers, new TextEncoder().encode(text));
      }
      throw err;
    } finally {
      if (!streaming) release();
    }
  }

  /**
   * Deletes the stored responses that have expired, in transactions of PURGE_BATCH, each run by `purge` (the
   * server's writer thread: deleting large bodies takes time the HTTP thread should not spend); returns how many.
   * Claims as old as a stored response lives are deleted too: their servers died, and a duplicate never came.
   */
  async purgeExpired(
    purge: (input: { now: string; limit: number }) => Promise<number> = async (i) =>
      this.store.idempotency.purgeExpired(i.now, i.limit),
  ): Promise<number> {
    this.claims?.purgeOlderThan(IDEMPOTENCY_TTL_MS, PURGE_BATCH);
    const now = iso(this.clock.now());
    let total = 0;
    for (;;) {
      const n = await purge({ now, limit: PURGE_BATCH });
      total += n;
      if (n < PURGE_BATCH) return total;
    }
  }
}
