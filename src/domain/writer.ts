/**
 * The writer thread: heavy and background write transactions run on a connection of their own, one transaction at a
 * time, in the order asked, so that the HTTP thread never waits in a write() to the WAL while the group commit's fsync
 * of the same file runs (ext4 holds such calls for its journal commit, 5–15 ms; db/durability.ts).
 *
 * What runs here: every write that carries large texts or bytes (generations, finalizations, every write of a content
 * record or a memory, reference materials, images, conversions), deletions that free many pages, stored
 * Idempotency-Key answers, and the background writes (learning jobs, the knowledge graph, the usage, key-use and
 * session flushes). The HTTP thread keeps the short, rare writes (user settings, learning preferences, sessions, the
 * administrative ones); one that finds the writer's transaction in progress waits for its commit (db/open.ts
 * writeSignal). Either way the answer waits for the group commit's fsync, which covers both connections' commits.
 *
 * Operations asked for while the thread is busy run together in one transaction, each in a savepoint of its own, so
 * that one failing rolls back alone and a batch shares one commit (test/domain/writer.test.ts).
 *
 * An operation is a function of a Store and a plain input with a plain output (both cross threads by structured
 * clone). An ApiError it throws comes back as one; another error keeps its message, name, code and stack.
 */

import type { NewConversion } from "../db/conversions.js";
import { type IdempotencyRow, withoutBody } from "../db/idempotency.js";
import type { NewImage } from "../db/images.js";
import type { JobClaim } from "../db/job-claims.js";
import type { MemoryChanges, NewMemory } from "../db/memories.js";
import { lowerFlag } from "../db/open.js";
import type { NewReference } from "../db/references.js";
import type { Store } from "../db/store.js";
import { closeThreadStore, type DbLocation, threadStore } from "../db/thread-store.js";
import type { UsageRow } from "../db/usage.js";
import type { TaskPool } from "../runtime/task-pool.js";
import { type Actor, deleteWorkspace } from "./admin.js";
import {
  contentEditTask,
  contentNotFound,
  contentPublishTask,
  contentScheduleTask,
  draftCreateTask,
  finalizeTask,
  requireWorkspaceStill,
  saveGenerationTask,
} from "./contents.js";
import { ApiError, type ErrorCode, workspaceNotFound } from "./errors.js";
import { saveExtraction } from "./graph-sources.js";
import { completeJob } from "./learning/complete.js";
import { purgeSignInBackoff } from "./sign-in-backoff.js";
import { fitsStorage, withinStorage } from "./storage.js";
import { correctVoiceProfile, resetVoiceProfile } from "./voice-profiles.js";

/**
 * An operation that stores an account's records, refused in its own transaction when what it added takes the account
 * past its storage quota (storage.ts withinStorage): the request's early check cannot hold against the writes queued
 * with it, this one can.
 */
function counted<I, R>(accountOf: (input: I) => number, op: (store: Store, input: I) => R) {
  return (store: Store, input: I): R => withinStorage(store, accountOf(input), () => op(store, input));
}

/** The operations the writer runs, by name. */
export const writeOps = {
  /** Opens the thread's connection (at start). */
  open: () => null,
  finalize: counted((t) => t.account.id, finalizeTask),
  saveGeneration: counted((t) => t.account.id, saveGenerationTask),
  // Every write of a content record runs here, so that they run in the order asked: an edit queued behind the
  // writer's batch must not be overtaken by a schedule written on the HTTP thread meanwhile.
  draftCreate: counted((t) => t.accountId, draftCreateTask),
  contentEdit: counted((t) => t.account.id, contentEditTask),
  contentSchedule: contentScheduleTask,
  contentPublish: contentPublishTask,
  /** Stores an image (up to 10 MiB of bytes, handed over to the thread); its record, without the bytes. */
  imageCreate: counted(
    (i) => i.accountId,
    (store: Store, i: { accountId: number; image: Omit<NewImage, "account_id">; now: string }) =>
      store.images.create(i.accountId, i.image, i.now),
  ),
  /** Stores a reference material with its passages; the row crosses back without its text (the caller has it). */
  referenceCreate: counted(
    (r) => r.accountId,
    (store: Store, r: NewReference) => {
      requireWorkspaceStill(store, r.workspaceId);
      return { ...store.references.create(r), content: "" };
    },
  ),
  /** Claims the oldest due learning job for a server until its lease's end; null when none is due. */
  learningClaim: (store: Store, i: { owner: string; now: string; leaseUntil: string }) =>
    store.learning.claimNext(i) ?? null,
  /** Extends the leases of a server's claims; the ids of those no longer its own. */
  learningRenew: (store: Store, i: { claims: { id: string; claim: JobClaim }[]; leaseUntil: string }) =>
    i.claims.filter((c) => !store.learning.renew(c.id, c.claim, i.leaseUntil)).map((c) => c.id),
  /** Running jobs whose lease has passed go back to the queue; how many. */
  learningRequeueExpired: (store: Store, i: { now: string }) => store.learning.requeueExpired(i.now),
  learningComplete: completeJob,
  learningFail: (
    store: Store,
    i: { id: string; claim: JobClaim; error: string; retryAt: string | null; now: string },
  ) => {
    store.learning.fail(i.id, i.claim, i.error, i.retryAt, i.now);
    return null;
  },
  /** A person's correction of a voice profile, in turn with the learning jobs' folds; null when it is gone. */
  voiceProfileCorrect: correctVoiceProfile,
  /** Empties a voice profile; null when it is gone. */
  voiceProfileReset: resetVoiceProfile,
  graphSave: saveExtraction,
  graphRemoveStale: (store: Store, i: { workspaceId: string }) => store.graph.removeStale(i.workspaceId),
  graphRemoveStaleOf: (store: Store, i: { workspaceId: string; contentId: number }) =>
    store.graph.removeStaleOf(i.workspaceId, i.contentId),
  graphMarkUpdated: (store: Store, i: { workspaceId: string; now: string }) => {
    store.graph.settle(i.workspaceId);
    store.graph.markUpdated(i.workspaceId, i.now);
    return null;
  },
  usageAdd: (store: Store, rows: UsageRow[]) => {
    store.usage.addMany(rows);
    return null;
  },
  /** Purges the revoked sessions past their expiry, and the sign-in failures forgotten (sign-in-backoff.ts). */
  sessionsPurge: (store: Store, i: { now: string }) => {
    purgeSignInBackoff(store, Date.parse(i.now));
    return store.misc.purgeRevokedSessions(i.now);
  },
  /** Deletes a content with its versions; whether it was still there. */
  contentRemove: (store: Store, i: { id: number }) => store.contents.remove(i.id),
  /** Deletes a reference material with its passages; whether it was still there. */
  referenceRemove: (store: Store, i: { id: number }) => store.references.remove(i.id),
  /** Deletes an image of the account (up to 10 MiB of pages freed); whether it was still there. */
  imageRemove: (store: Store, i: { accountId: number; id: number }) => store.images.remove(i.accountId, i.id),
  /**
   * Stores a conversion of a content that must still be there (it may have been deleted, on this thread, while the
   * pool converted it), or finds the identical one stored before (test/routes/storage-quota.test.ts); the row
   * crosses back without its output (the caller has it).
   */
  conversionCreate: counted(
    (c) => c.accountId,
    (store: Store, c: NewConversion) => {
      if (!store.contents.byId(c.contentId)) throw contentNotFound(c.contentId);
      const stored = store.conversions.sameAs(c) ?? store.conversions.create(c);
      return { ...stored, output: "" };
    },
  ),
  /** Stores a memory in a workspace that must still be there. */
  memoryCreate: counted(
    (m) => m.accountId,
    (store: Store, m: NewMemory) => {
      requireWorkspaceStill(store, m.workspaceId);
      return store.memories.create(m);
    },
  ),
  /** Changes a memory of the account; undefined when it was deleted meanwhile. */
  memoryUpdate: counted(
    (i) => i.accountId,
    (store: Store, i: { accountId: number; id: number; changes: MemoryChanges; now: string }) =>
      store.memories.update(i.id, i.changes, i.now),
  ),
  /**
   * Deletes a workspace with every record in it and the keys bound to it (the cascade frees as many pages as the
   * workspace holds), with its audit row; the HTTP thread then forgets the rows it keeps (db/row-cache.ts).
   */
  workspaceRemove: (store: Store, i: { actor: Actor; id: string; nowMs: number }) => {
    const ws = store.workspaces.byId(i.id);
    if (!ws) throw workspaceNotFound(i.id);
    // Stamped with the server's clock, which this thread does not have (sandbox mode's test clock).
    deleteWorkspace(store, i.actor, ws, i.nowMs);
    return null;
  },
  /** Deletes a memory; whether it was still there. */
  memoryRemove: (store: Store, i: { id: number }) => store.memories.remove(i.id),
  /**
   * Stores an answer for Idempotency-Key replays; one whose body would take the account past its storage quota is
   * recorded without it, as one too large is (test/routes/storage-quota-replays.test.ts).
   */
  idempotencySave: (store: Store, row: IdempotencyRow) => {
    store.idempotency.save(fitsStorage(store, row.account_id, row.body.byteLength) ? row : withoutBody(row));
    return null;
  },
  idempotencyPurge: (store: Store, i: { now: string; limit: number }) => store.idempotency.purgeExpired(i.now, i.limit),
  keysTouch: (store: Store, entries: [string, string][]) => {
    store.apiKeys.touchMany(entries);
    return null;
  },
};

/** The operations the writer runs, by name. */
export type WriteOps = typeof writeOps;
/** The name of one of the writer's operations. */
export type WriteOpName = keyof WriteOps;
type InputOf<N extends WriteOpName> = Parameters<WriteOps[N]>[1];
type OutputOf<N extends WriteOpName> = ReturnType<WriteOps[N]>;

/** Runs write operations: on the writer thread (the server) or on the calling thread (tests, CLI). */
export interface StoreWriter {
  /** `transfer`: buffers of the input handed over to the writer thread instead of copied (they are unusable after). */
  run<N extends WriteOpName>(op: N, input: InputOf<N>, transfer?: ArrayBuffer[]): Promise<OutputOf<N>>;
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

/** One operation for the writer: its name and input. */
export interface WriteCall {
  op: WriteOpName;
  input: unknown;
}

/** The writer task's input: which database, and the operations to run in one transaction. */
export interface WriteTaskInput {
  db: DbLocation;
  /** Operations run in order in one transaction, each in a savepoint of its own; the task answers an outcome each. */
  ops?: WriteCall[];
  /** Close this thread's connection instead (at shutdown). */
  close?: boolean;
}

/** The worker task: operations in a transaction on this thread's connection (see WriteTaskInput). */
export function runWrite(task: WriteTaskInput): Outcome[] {
  if (task.close) {
    closeThreadStore(task.db);
    return [];
  }
  // Like the server's connection: commits do not fsync, the server's group commit does (open.ts).
  const store = threadStore(task.db, { groupCommit: true });
  const ops = task.ops ?? [];
  if (ops.length === 1) return [attempt(store, ops[0].op, ops[0].input)];
  try {
    // One commit for all: each attempt's transaction is a savepoint inside this one.
    return store.transaction(() =>
      ops.map((call) => {
        const outcome = attempt(store, call.op, call.input);
        // Some errors (disk full, I/O error) make SQLite roll back the whole transaction, not only the failing
        // operation's savepoint: the operations before it are undone, and those after it must not run on their own.
        if (!store.inTransaction())
          throw outcome.ok ? new Error("the batch's transaction was rolled back") : new BatchRolledBack(outcome);
        return outcome;
      }),
    );
  } catch (e) {
    // The batch was rolled back, or its commit failed: none of them is stored.
    const failed = e instanceof BatchRolledBack ? e.outcome : failure(e);
    return ops.map(() => failed);
  }
}

/** A batch that SQLite rolled back whole, with the failure of the operation that caused it. */
class BatchRolledBack extends Error {
  constructor(readonly outcome: Outcome) {
    super("the batch's transaction was rolled back");
  }
}

function attempt(store: Store, op: WriteOpName, input: unknown): Outcome {
  const fn = writeOps[op] as ((s: Store, i: unknown) => unknown) | undefined;
  if (!fn) return { ok: false, message: `unknown write operation ${String(op)}` };
  try {
    // In one transaction (a savepoint for the operations' own): an operation of several statements is all or nothing,
    // and a single statement raises the write flag too (db/open.ts writeSignal).
    return { ok: true, value: store.transaction(() => fn(store, input)) };
  } catch (e) {
    return failure(e);
  }
}

/** An error as it crosses back: an ApiError whole, another with its message, name, code and stack. */
function failure(e: unknown): Outcome {
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

/**
 * Most operations the writer thread runs in one transaction. The HTTP thread's own writes wait for the whole of it
 * (db/open.ts writeSignal): under a mixed load of finalizations and generations, batches of 4 gave finalize 26-31%
 * and all writes together 10% more throughput than one at a time; batches of 16 took more from generation.
 */
export const MAX_BATCH = 4;

/**
 * Operations that run in a transaction of their own: an image's 10 MiB insert takes milliseconds, and the HTTP
 * thread's own writes wait for the whole transaction; four of them in one batch held those writes four times as long.
 * A conversion stores up to 8,000,000 characters (twice, with a social thread's posts); a workspace's deletion takes
 * every record of the workspace with it.
 */
const ALONE: ReadonlySet<WriteOpName> = new Set(["imageCreate", "conversionCreate", "workspaceRemove"]);

/** How many of the queued operations the next transaction takes: up to MAX_BATCH, an ALONE one by itself. */
function batchSize(queue: readonly WriteCall[]): number {
  if (ALONE.has(queue[0].op)) return 1;
  let n = 1;
  while (n < Math.min(queue.length, MAX_BATCH) && !ALONE.has(queue[n].op)) n++;
  return n;
}

/**
 * The server's writer: one thread (a pool of one), its own connection; operations begin in the order asked, those
 * asked for while the thread is busy together in one transaction (at most MAX_BATCH).
 */
export function threadWriter(pool: TaskPool<{ write: typeof runWrite }>, db: DbLocation): ThreadWriter {
  let holds = 0;
  let inFlight = 0;
  let closed = false;
  const held: (() => void)[] = [];
  // Operations waiting for the thread, and whether it has a batch.
  const queue: (WriteCall & {
    transfer?: ArrayBuffer[];
    done: (outcome: Outcome) => void;
    failed: (error: unknown) => void;
  })[] = [];
  let busy = false;
  // One promise per busy stretch, however many wait for it (the group commit asks once per fsync under a load).
  let settledNow: Promise<void> | undefined;
  let resolveSettled = () => {};
  const settled = () => {
    if (inFlight === 0) return Promise.resolve();
    settledNow ??= new Promise<void>((resolve) => {
      resolveSettled = resolve;
    });
    return settledNow;
  };
  function pump() {
    if (busy || queue.length === 0) return;
    busy = true;
    // Inputs and outputs are plain data; one that structured clone could not copy would fail the whole batch.
    const batch = queue.splice(0, batchSize(queue));
    pool
      .run(
        "write",
        { db, ops: batch.map(({ op, input }) => ({ op, input })) },
        batch.flatMap((call) => call.transfer ?? []),
      )
      .then(
        (outcomes) => {
          if (!Array.isArray(outcomes) || outcomes.length !== batch.length)
            throw new Error(`the writer thread answered ${batch.length} operations with ${JSON.stringify(outcomes)}`);
          for (const [i, call] of batch.entries()) call.done(outcomes[i] as Outcome);
        },
        (error) => {
          // The thread itself failed (ended, out of memory), perhaps mid-transaction with the write flag raised: the
          // HTTP thread's writes would each wait out the flag's timeout (db/open.ts).
          if (db.writeSignal) lowerFlag(db.writeSignal);
          for (const call of batch) call.failed(error);
        },
      )
      // An answer of the wrong shape fails the batch's callers (a settled promise ignores a second call).
      .catch((error) => {
        for (const call of batch) call.failed(error);
      })
      .finally(() => {
        busy = false;
        pump();
      });
  }
  return {
    async run(op, input, transfer) {
      // Held operations resume in the order they arrived (the release resolves them in turn).
      if (holds > 0) await new Promise<void>((resolve) => held.push(resolve));
      if (closed) throw new Error(`the writer is closed (${op})`);
      inFlight++;
      try {
        const outcome = await new Promise<Outcome>((done, failed) => {
          queue.push({ op, input, transfer, done, failed });
          pump();
        });
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
    settled,
    get inFlight() {
      return inFlight;
    },
    async close() {
      closed = true;
      // After the operations already asked for: they would open the connection again.
      await settled();
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
