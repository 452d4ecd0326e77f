/**
 * A PostgreSQL connection that is synchronous to its caller. The store's query modules, and the domain and routes
 * above them, are synchronous (better-sqlite3's model); pg is asynchronous. So a thread of the client's own runs a
 * pg.Client (thread.ts), and each call posts its request there and blocks on `Atomics.wait` over a
 * SharedArrayBuffer until the thread has posted the answer, which `receiveMessageOnPort` then takes off the port
 * without the event loop (synckit's approach). The caller's thread does nothing else meanwhile, as it does while
 * SQLite reads a page. test/db/pg/sync-client.test.ts holds it.
 */
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { pgThreadEntry } from "../../runtime/assets.js";
import { awaitAnswer } from "./answer-wait.js";
import { PgError, PgUnavailableError } from "./errors.js";
import type { PgAnswer, PgRequest, PgResult, PgThreadData } from "./protocol.js";

export type { PgField, PgResult } from "./protocol.js";

/** How long a call waits for the thread's answer by default: past it the server counts as unavailable. */
export const DEFAULT_ANSWER_TIMEOUT_MS = 30_000;

/** How long connecting may take by default (pg's connectionTimeoutMillis), within the answer's bound. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** How long close() waits for the thread to end its connection before it stops the thread anyway. */
const CLOSE_TIMEOUT_MS = 5_000;

/** The OID of bytea: its values cross the thread boundary as Uint8Array and are made Buffers again. */
const BYTEA_OID = 17;

/** The bounds of a SyncPgClient's calls. */
export interface SyncPgClientOptions {
  /** How long one call waits for its answer (DEFAULT_ANSWER_TIMEOUT_MS). */
  answerTimeoutMs?: number;
  /** How long connecting may take (DEFAULT_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

/** The client's thread and the means to talk to it. */
interface Thread {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
}

/** Stops the thread of a client dropped without close(): its connection would otherwise stay open till exit. */
const orphans = new FinalizationRegistry<Thread>((thread) => stopThread(thread));

function stopThread(thread: Thread): void {
  thread.port.close();
  thread.worker.terminate().catch(() => {});
}

/**
 * One connection to one PostgreSQL URL, synchronous to its caller. The thread starts with the first call and again
 * after a call that got no answer in time (the old one is stopped: its connection's state is unknown); a lost
 * connection is connected again by the next call. Neither the thread nor its connection keeps the process alive.
 */
export class SyncPgClient {
  private thread: Thread | undefined;
  private nextId = 1;
  private closed = false;
  private readonly answerTimeoutMs: number;
  private readonly connectTimeoutMs: number;

  constructor(
    private readonly url: string,
    options: SyncPgClientOptions = {},
  ) {
    this.answerTimeoutMs = options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  }

  /** Connects now (the calls below connect when needed): a wrong URL or a missing server fails here. */
  connect(): void {
    this.call({ id: 0, op: "connect" }, this.answerTimeoutMs);
  }

  /**
   * Runs one statement with `$1..$n` parameters (extended protocol). Rows come as arrays of values in the order of
   * `fields`; int8 and numeric read as numbers, booleans as 1/0, json as text, bytea as Buffer (thread.ts).
   */
  query(text: string, values: unknown[] = []): PgResult {
    return withBuffers(this.call({ id: 0, op: "query", text, values }, this.answerTimeoutMs));
  }

  /** Runs a script of several statements (simple query protocol, no parameters); reports the last one's result. */
  exec(script: string): PgResult {
    return this.call({ id: 0, op: "exec", script }, this.answerTimeoutMs);
  }

  /** Ends the connection and the thread; later calls throw. Safe to call again. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const thread = this.thread;
    if (!thread) return;
    try {
      this.ask(thread, { id: 0, op: "close" }, CLOSE_TIMEOUT_MS);
    } catch {
      // The thread is stopped below whatever it answered: its connection ends with it.
    }
    this.stop(thread);
  }

  private call(request: PgRequest, timeoutMs: number): PgResult {
    if (this.closed) throw new TypeError("The PostgreSQL connection is closed");
    const answer = this.ask(this.thread ?? this.start(), request, timeoutMs);
    if (answer.ok) return answer.result;
    if (answer.kind === "pg") throw new PgError(answer.error);
    if (answer.kind === "unavailable") throw new PgUnavailableError(answer.message, answer.code);
    throw new Error(`PostgreSQL client thread: ${answer.message}`);
  }

  /** Posts one request and blocks until its answer is on the port, or stops the thread when none comes in time. */
  private ask(thread: Thread, request: PgRequest, timeoutMs: number): PgAnswer {
    const id = this.nextId++;
    Atomics.store(thread.flag, 0, 0);
    thread.port.postMessage({ ...request, id });
    const received = awaitAnswer<PgAnswer>(thread.flag, thread.port, id, timeoutMs);
    if (received) return received;
    this.stop(thread);
    throw new PgUnavailableError(`no answer from PostgreSQL within ${timeoutMs} ms`, "ETIMEDOUT");
  }

  private start(): Thread {
    const { port1, port2 } = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    const entry = pgThreadEntry();
    const data: PgThreadData & { port: MessagePort } = {
      url: this.url,
      connectTimeoutMs: this.connectTimeoutMs,
      flag,
      port: port2,
    };
    const worker = new Worker(entry.script, {
      eval: entry.eval,
      workerData: data,
      transferList: [port2],
    });
    worker.unref();
    port1.unref();
    const thread = { worker, port: port1, flag: new Int32Array(flag) };
    this.thread = thread;
    orphans.register(this, thread, thread);
    return thread;
  }

  private stop(thread: Thread): void {
    if (this.thread === thread) this.thread = undefined;
    orphans.unregister(thread);
    stopThread(thread);
  }
}

/** The result with its bytea values as Buffers again (structured cloning delivers a Buffer as a Uint8Array). */
function withBuffers(result: PgResult): PgResult {
  const columns = result.fields.flatMap((f, i) => (f.dataTypeID === BYTEA_OID ? [i] : []));
  if (columns.length === 0) return result;
  for (const row of result.rows) {
    for (const i of columns) {
      const v = row[i];
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[i] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    }
  }
  return result;
}
