/**
 * The thread behind one SyncPgClient: it holds one pg.Client, runs each request it is posted, posts the answer on
 * its port and raises the shared flag its caller blocks on (sync-client.ts). A lost connection is answered as
 * unavailable and the next request connects again, so that the caller recovers when the server does.
 */
import { type MessagePort, workerData } from "node:worker_threads";
import pg from "pg";
import type { PgErrorFields } from "./errors.js";
import type { PgAnswer, PgRequest, PgResult, PgThreadData } from "./protocol.js";

const { url, connectTimeoutMs, flag, port } = workerData as PgThreadData & { port: MessagePort };
const signal = new Int32Array(flag);

/**
 * Values as the query modules read them from SQLite: int8 (COUNT, SUM, bigint columns) and numeric as numbers
 * (SQLite's integers read as numbers), booleans as 1/0 (SQLite has none), json and jsonb as their text (the schema
 * stores JSON as TEXT and the callers parse it). bytea stays pg's Buffer; text stays text.
 */
const PARSERS: Record<number, (value: string) => unknown> = {
  16: (value) => (value === "t" ? 1 : 0),
  20: Number,
  114: (value) => value,
  1700: Number,
  3802: (value) => value,
};

const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    (format ?? "text") === "text" && PARSERS[oid] ? PARSERS[oid] : pg.types.getTypeParser(oid, format)) as never,
};

let client: pg.Client | undefined;
/** The loss of the connection noticed while no request was running, for the next request to report. */
let unreported: Error | undefined;
/** The errors thrown while connecting: all of them mean no server, except a refusal with an SQLSTATE (bad password). */
const connectFailures = new WeakSet<object>();
let connecting: Promise<pg.Client> | undefined;

/** The connected client, connecting first when there is none (at the first request, or after a loss). */
function connected(): Promise<pg.Client> {
  if (client) return Promise.resolve(client);
  connecting ??= open().finally(() => {
    connecting = undefined;
  });
  return connecting;
}

async function open(): Promise<pg.Client> {
  const fresh = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, types });
  // An idle connection's loss arrives as an event: the next request is told of it, the one after connects again.
  fresh.on("error", (error) => lose(fresh, error));
  fresh.on("end", () => lose(fresh, new Error("Connection terminated")));
  try {
    await fresh.connect();
  } catch (error) {
    fresh.end().catch(() => {});
    if (typeof error === "object" && error) connectFailures.add(error);
    throw error;
  }
  client = fresh;
  return fresh;
}

/**
 * Notes the loss of the connection between requests. It is reported to the next request rather than hidden by a
 * new connection: that request may belong to a transaction begun on the lost one, which the server has rolled
 * back, and must not run outside it.
 */
function lose(which: pg.Client, error: Error): void {
  if (client !== which) return;
  unreported = error;
  forget();
}

/** Drops the client (after a loss already reported): the next request connects again. */
function forget(): void {
  const which = client;
  client = undefined;
  which?.end().catch(() => {});
}

/**
 * SQLSTATEs that mean the server went away rather than refused a statement: connection exceptions (class 08), an
 * administrator's or a crash's shutdown, a server still starting, too many connections.
 */
function isUnavailableCode(code: string): boolean {
  return code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code);
}

/** pg's own messages for a connection that is gone or never came (it gives them no code). */
const CONNECTION_GONE = /connection terminated|not queryable|connection timeout|timeout expired/i;

function answerError(id: number, error: unknown): PgAnswer {
  if (error instanceof pg.DatabaseError) {
    if (!isUnavailableCode(error.code ?? "")) return { id, ok: false, kind: "pg", error: fields(error) };
    return { id, ok: false, kind: "unavailable", message: `PostgreSQL: ${error.message}`, code: error.code };
  }
  const e = error as NodeJS.ErrnoException;
  const system = typeof e?.code === "string" && /^E[A-Z]+$/.test(e.code);
  if (connectFailures.has(e) || system || CONNECTION_GONE.test(String(e?.message))) {
    return { id, ok: false, kind: "unavailable", message: `PostgreSQL unreachable: ${e?.message}`, code: e?.code };
  }
  return { id, ok: false, kind: "internal", message: String(e?.message ?? error) };
}

function fields(error: pg.DatabaseError): PgErrorFields {
  const { code, message, detail, hint, constraint, table, column, severity } = error;
  return { code: code ?? "XX000", message, detail, hint, constraint, table, column, severity };
}

/** Values as pg binds them: bytes arrive from the other thread as Uint8Array, which pg sends as bytea only as Buffer. */
function bindable(values: unknown[]): unknown[] {
  return values.map((v) =>
    v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v,
  );
}

/**
 * The server-side prepared statement of each text, by name: parsed and planned once per connection (pg prepares a
 * name on a connection the first time it runs there), which takes about two thirds of a short statement's time.
 * Texts past NAMED_LIMIT run unnamed, so that SQL built at run time cannot fill the server's memory.
 */
const names = new Map<string, string>();
const NAMED_LIMIT = 1_000;
let lastName = 0;

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (!name && names.size < NAMED_LIMIT) {
    name = `cs_${++lastName}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Whether a statement failed because its prepared plan no longer fits the tables: another connection changed a
 * table it reads (a migration run by another server), so its rows would have other columns.
 */
function isStalePlan(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === "0A000" && /cached plan/.test(error.message);
}

/** pg's note of the transaction status from the server's last ReadyForQuery: "I" outside a transaction. */
function idle(c: pg.Client): boolean {
  return (c as unknown as { _txStatus?: string })._txStatus === "I";
}

async function query(text: string, values: unknown[]): Promise<PgResult> {
  const c = await connected();
  const run = () =>
    // Extended protocol: one statement per call, as better-sqlite3 prepares one.
    c.query({ text, values: bindable(values), rowMode: "array", queryMode: "extended", name: nameOf(text) } as never);
  try {
    return result((await run()) as unknown as pg.QueryResult<unknown[]>);
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    // Prepared again under a new name. A stale plan fails before the statement does anything, so outside a
    // transaction it runs again; inside one, the transaction is aborted and the error is the caller's.
    names.delete(text);
    if (!idle(c)) throw error;
    return result((await run()) as unknown as pg.QueryResult<unknown[]>);
  }
}

function result(r: pg.QueryResult<unknown[]>): PgResult {
  return {
    rows: r.rows,
    rowCount: r.rowCount ?? 0,
    fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    command: r.command,
  };
}

async function exec(script: string): Promise<PgResult> {
  const c = await connected();
  // No values: the simple query protocol, which runs every statement of the script in turn.
  const r = (await c.query(script)) as unknown as pg.QueryResult<unknown[]> | pg.QueryResult<unknown[]>[];
  const last = Array.isArray(r) ? r[r.length - 1] : r;
  return last ? { ...result(last), rows: [] } : { rows: [], rowCount: 0, fields: [], command: "" };
}

const EMPTY: PgResult = { rows: [], rowCount: 0, fields: [], command: "" };

async function handle(request: PgRequest): Promise<PgAnswer> {
  if (unreported && (request.op === "query" || request.op === "exec")) {
    const lost = unreported;
    unreported = undefined;
    const code = (lost as NodeJS.ErrnoException).code;
    return {
      id: request.id,
      ok: false,
      kind: "unavailable",
      message: `PostgreSQL connection lost: ${lost.message}`,
      code,
    };
  }
  try {
    if (request.op === "connect") await connected();
    if (request.op === "query") return { id: request.id, ok: true, result: await query(request.text, request.values) };
    if (request.op === "exec") return { id: request.id, ok: true, result: await exec(request.script) };
    if (request.op === "close") await client?.end();
    return { id: request.id, ok: true, result: EMPTY };
  } catch (error) {
    const answer = answerError(request.id, error);
    if (answer.ok === false && answer.kind === "unavailable") {
      unreported = undefined;
      forget();
    }
    return answer;
  }
}

/** Posts the answer, then wakes the caller: the message is on the port before the flag says so. */
function reply(answer: PgAnswer): void {
  port.postMessage(answer);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

port.on("message", (request: PgRequest) => {
  handle(request).then(reply, (error: unknown) =>
    reply({ id: request.id, ok: false, kind: "internal", message: String(error) }),
  );
});
