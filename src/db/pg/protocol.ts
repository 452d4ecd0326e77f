/**
 * The messages between a SyncPgClient (sync-client.ts) and its thread (thread.ts): one request at a time goes to the
 * thread, one answer comes back on the same MessagePort, and the thread then raises the shared flag the caller
 * waits on.
 */
import type { PgErrorFields } from "./errors.js";

/** What the thread is asked to do. `id` pairs the answer with its request. */
export type PgRequest =
  | { id: number; op: "connect" }
  | { id: number; op: "query"; text: string; values: unknown[] }
  | { id: number; op: "exec"; script: string }
  | { id: number; op: "close" };

/** A column of a result: its name and its type's OID (20 int8, 17 bytea …). */
export interface PgField {
  name: string;
  dataTypeID: number;
}

/** A statement's result: rows as arrays of values in column order, the rows it affected, its command tag. */
export interface PgResult {
  rows: unknown[][];
  rowCount: number;
  fields: PgField[];
  /** The command tag's verb: SELECT, INSERT, COMMIT, or ROLLBACK for a COMMIT of an aborted transaction. */
  command: string;
}

/** The thread's answer to one request. */
export type PgAnswer =
  | { id: number; ok: true; result: PgResult }
  | { id: number; ok: false; kind: "pg"; error: PgErrorFields }
  | { id: number; ok: false; kind: "unavailable"; message: string; code?: string }
  | { id: number; ok: false; kind: "internal"; message: string };

/** What the thread is started with (workerData): the server's URL and how long it may take to connect. */
export interface PgThreadData {
  url: string;
  connectTimeoutMs: number;
  /** Set to 1 by the thread after each answer is posted; the caller waits on index 0 while it is 0. */
  flag: SharedArrayBuffer;
}
