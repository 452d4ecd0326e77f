/**
 * Heavy write transactions on a thread of their own. Writing to the WAL is a write() system call; while the group
 * commit's fsync of the same file runs (durability.ts), ext4 makes such calls wait for its journal commit, 5–15 ms.
 * On the HTTP thread every GET arriving meanwhile waited too (README "Performance"). The writes that carry large texts
 * (finalizations) run instead on the writer thread: a connection of its own to the same database, one transaction
 * at a time, in the order they were sent. The HTTP thread parses, checks and answers; the answer still waits for the
 * group commit's fsync, which covers the writer's commits as well (it syncs the WAL file, whoever wrote it).
 *
 * An operation is a function of a Store and a plain input with a plain output (both cross threads by structured
 * clone). An ApiError it throws comes back as one; any other error as an Error with its message.
 */
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
      apiError?: {
        code: ErrorCode;
        message: string;
        details: Record<string, unknown>;
        headers: Record<string, string>;
      };
      message: string;
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
    return { ok: true, value: fn(store, input) };
  } catch (e) {
    if (e instanceof ApiError)
      return {
        ok: false,
        message: e.message,
        apiError: { code: e.code, message: e.message, details: e.details, headers: e.headers },
      };
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

function settle(outcome: Outcome): unknown {
  if (outcome.ok) return outcome.value;
  const a = outcome.apiError;
  if (a) throw new ApiError(a.code, a.message, a.details, a.headers);
  throw new Error(outcome.message);
}

/** The server's writer: one thread (a pool of one), its own connection. */
export function threadWriter(pool: WorkerPool, db: DbLocation): StoreWriter & { close(): Promise<void> } {
  return {
    run: async (op, input) => settle((await pool.run("write", { db, op, input })) as Outcome) as OutputOf<typeof op>,
    close: async () => {
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
