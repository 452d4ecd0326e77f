/**
 * Heavy write transactions on a thread of their own. Writing to the WAL is a write() system call; while the group
 * commit's fsync of the same file runs (durability.ts), ext4 makes such calls wait for its journal commit, 5–15 ms.
 * On the HTTP thread every GET arriving meanwhile waited too (README "Performance"). The writes that carry large texts
 * (finalizations) and those made in the background (learning jobs' claims and results, the knowledge graph, the
 * usage, key-use and session flushes) run instead on the writer thread: a connection of its own to the same database,
 * one transaction at a time, begun in the order asked. The HTTP thread parses, checks and answers; the answer still
 * waits for the group commit's fsync, which covers the writer's commits as well (it syncs the WAL file, whoever wrote
 * it). The HTTP thread's other writes (generation, references, idempotency records and the rest) stay on its own
 * connection; one of them that finds the writer's transaction in progress waits for its commit (db/open.ts
 * writeSignal).
 *
 * An operation is a function of a Store and a plain input with a plain output (both cross threads by structured
 * clone). An ApiError it throws comes back as one; another error keeps its message, name, code and stack.
 */
import { lowerFlag } from "../db/open.js";
import type { Store } from "../db/store.js";
import { closeThreadStore, type DbLocation, threadStore } from "../db/thread-store.js";
import type { UsageRow } from "../db/usage.js";
import { ApiError, type ErrorCode } from "../http/errors.js";
import type { WorkerPool } from "../workers/pool.js";
import { finalizeTask } from "./contents.js";
import { saveExtraction } from "./graph.js";
import { completeJob } from "./learning/runner.js";

/** The operations the writer runs, by name. */
export const writeOps = {
  /** Opens the thread's connection (at start). */
  open: () => null,
  finalize: finalizeTask,
  learningClaim: (store: Store, i: { id: string; now: string }) => store.learning.claim(i.id, i.now),
  learningComplete: completeJob,
  learningFail: (store: Store, i: { id: string; error: string; retryAt: string | null; now: string }) => {
    store.learning.fail(i.id, i.error, i.retryAt, i.now);
    return null;
  },
  graphSave: saveExtraction,
  graphRemoveStale: (store: Store, i: { workspaceId: string }) => store.graph.removeStale(i.workspaceId),
  graphRemoveStaleOf: (store: Store, i: { workspaceId: string; contentId: number }) =>
    store.graph.removeStaleOf(i.workspaceId, i.contentId),
  graphMarkUpdated: (store: Store, i: { workspaceId: string; now: string }) => {
    store.graph.markUpdated(i.workspaceId, i.now);
    return null;
  },
  usageAdd: (store: Store, rows: UsageRow[]) => {
    store.usage.addMany(rows);
    return null;
  },
  sessionsPurge: (store: Store, i: { now: string }) => store.misc.purgeRevokedSessions(i.now),
  keysTouch: (store: Store, entries: [string, string][]) => {
    store.apiKeys.touchMany(entries);
    return null;
  },
};

export type WriteOps = typeof writeOps;
export type WriteOpName = keyof WriteOps;
type InputOf<N extends WriteOpName> = Parameters<WriteOps[N]>[1];
type OutputOf<N extends WriteOpName> = ReturnType<WriteOps[N]>;

/** Runs write operations: on the writer thread (the server) or on the calling thread (tests, CLI). */
export interface StoreWriter {
  run<N extends WriteOpName>(op: N, input: InputOf<N>): Promise<OutputOf<N>>;
}

/** What crosses back from the writer thread. */
type Outcome =
  | { ok: true; value: unknown }
  | {
      ok: false;
      message: string;
      apiError?: {
        code: ErrorCode;
        message: string;
        details: Record<string, unknown>;
        headers: Record<string, string>;
      };
      name?: string;
      code?: unknown;
      stack?: string;
    };

/** The writer task's input: which database, which operation on what. */
export interface WriteTaskInput {
  db: DbLocation;
  op?: WriteOpName;
  input?: unknown;
  /** Close this thread's connection instead (at shutdown). */
  close?: boolean;
}

/** The worker task: one operation in its own transaction on this thread's connection. */
export function runWrite(task: WriteTaskInput): Outcome {
  if (task.close) {
    closeThreadStore(task.db);
    return { ok: true, value: null };
  }
  // Like the server's connection: commits do not fsync, the server's group commit does (open.ts).
  return attempt(threadStore(task.db, { groupCommit: true }), task.op as WriteOpName, task.input);
}

function attempt(store: Store, op: WriteOpName, input: unknown): Outcome {
  const fn = writeOps[op] as ((s: Store, i: unknown) => unknown) | undefined;
  if (!fn) return { ok: false, message: `unknown write operation ${String(op)}` };
  try {
    // In one transaction (a savepoint for the operations' own): an operation of several statements is all or nothing,
    // and a single statement raises the write flag too (db/open.ts writeSignal).
    return { ok: true, value: store.db.transaction(() => fn(store, input))() };
  } catch (e) {
    if (e instanceof ApiError)
      return {
        ok: false,
        message: e.message,
        apiError: { code: e.code, message: e.message, details: e.details, headers: e.headers },
      };
    const error = e instanceof Error ? e : new Error(String(e));
    return {
      ok: false,
      message: error.message,
      name: error.name,
      code: (error as { code?: unknown }).code,
      stack: error.stack,
    };
  }
}

function settle(outcome: Outcome): unknown {
  if (outcome.ok) return outcome.value;
  const a = outcome.apiError;
  if (a) throw new ApiError(a.code, a.message, a.details, a.headers);
  // Another error (SqliteError: busy, disk full) keeps its name, code and the writer thread's stack for the log.
  const error = new Error(outcome.message) as Error & { code?: unknown };
  if (outcome.name) error.name = outcome.name;
  if (outcome.code !== undefined) error.code = outcome.code;
  if (outcome.stack) error.stack = outcome.stack;
  throw error;
}

/** The server's writer (see threadWriter). */
export interface ThreadWriter extends StoreWriter {
  /** Lets no operation begin until the returned release is called (the checkpointer; see db/checkpoints.ts). */
  hold(): () => void;
  /** Resolves when no operation is in progress. */
  settled(): Promise<void>;
  /** Operations running or queued for the thread (not those held back by hold()). */
  readonly inFlight: number;
  /** Closes the thread's connection; operations asked for after it fail. */
  close(): Promise<void>;
}

/** The server's writer: one thread (a pool of one), its own connection; operations begin in the order asked. */
export function threadWriter(pool: WorkerPool, db: DbLocation): ThreadWriter {
  let holds = 0;
  let inFlight = 0;
  let closed = false;
  const held: (() => void)[] = [];
  // One promise per busy stretch, however many wait for it (the group commit asks once per fsync under a load).
  let settledNow: Promise<void> | undefined;
  let resolveSettled = () => {};
  return {
    async run(op, input) {
      // Held operations resume in the order they arrived (the release resolves them in turn).
      if (holds > 0) await new Promise<void>((resolve) => held.push(resolve));
      if (closed) throw new Error(`the writer is closed (${op})`);
      inFlight++;
      try {
        let outcome: Outcome;
        try {
          outcome = (await pool.run("write", { db, op, input })) as Outcome;
        } catch (error) {
          // The thread itself failed (ended, out of memory), perhaps mid-transaction with the write flag raised: the
          // HTTP thread's writes would each wait out the flag's timeout (db/open.ts).
          if (db.writeSignal) lowerFlag(db.writeSignal);
          throw error;
        }
        return settle(outcome) as OutputOf<typeof op>;
      } finally {
        inFlight--;
        if (inFlight === 0) {
          settledNow = undefined;
          resolveSettled();
        }
      }
    },
    hold() {
      holds++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        if (holds === 0) for (const resolve of held.splice(0)) resolve();
      };
    },
    settled() {
      if (inFlight === 0) return Promise.resolve();
      settledNow ??= new Promise<void>((resolve) => {
        resolveSettled = resolve;
      });
      return settledNow;
    },
    get inFlight() {
      return inFlight;
    },
    async close() {
      closed = true;
      await pool.run("write", { db, close: true }).catch(() => {});
    },
  };
}

/** Runs the operations on the given store, on the calling thread. */
export function inlineWriter(store: Store): StoreWriter {
  return {
    run: async (op, input) => settle(attempt(store, op, input)) as OutputOf<typeof op>,
  };
}
