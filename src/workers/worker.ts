/** The piscina worker entry: one dispatcher that runs a named task on its input. */
import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import os from "node:os";
import { isMainThread, parentPort, threadId } from "node:worker_threads";
import { PgError, PgUnavailableError } from "../db/pg/errors.js";
import { warmUp } from "../domain/generation/nlp.js";
import { IdleCollector } from "../runtime/idle-gc.js";
import { type TaskStarted, threadCpuNs } from "./limits.js";
import { growthNotice, RECYCLE_ENV } from "./recycle.js";
import { type TaskName, tasks } from "./tasks.js";

/** Set in the worker threads of a pool whose priority is lowered: their niceness. */
export const NICENESS_ENV = "CONTENT_SERVICE_WORKER_NICENESS";

/** Set ("1") in the worker threads of a pool that runs only on cores nothing else wants (see idleThreadPolicy). */
export const IDLE_ENV = "CONTENT_SERVICE_WORKER_IDLE";

/**
 * Set ("1") in the worker threads of a pool whose tasks write text (generation, scoring): they load the language
 * library as they start rather than with the first request they serve (about 250 ms of the thread's CPU).
 */
export const WARM_ENV = "CONTENT_SERVICE_WORKER_WARM";

/** The niceness of background threads: background work gives way to the HTTP thread when both want a core. */
export const WORKER_NICENESS = 10;

/**
 * The niceness of the writer thread (domain/writer.ts): it runs the writes requests wait for, ahead of background
 * work, but a GET arriving while it writes takes the core (at equal priority the HTTP thread waited for the end of
 * the writer's time slice, a few milliseconds).
 */
export const WRITER_NICENESS = 5;

/**
 * Lowers a worker thread's scheduling priority (Linux sets niceness per thread). The background pool's threads run
 * learning analysis and graph extraction for seconds at a time: at equal priority they took half the CPU from the
 * thread answering requests, and a GET waited behind them (README "Performance"). Elsewhere, or when /proc is not
 * mounted, threads keep the process's priority.
 */
export function lowerThreadPriority(tid: number, niceness: number): boolean {
  try {
    // Relative to the process's own (a service may run niced already): lowering is always allowed, raising is not.
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + niceness));
    return true;
  } catch {
    return false;
  }
}

/** This worker thread's id on Linux (the last part of /proc/thread-self); undefined elsewhere or without /proc. */
function workerThreadId(): number | undefined {
  if (isMainThread || process.platform !== "linux") return undefined;
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").pop());
  } catch {
    return undefined;
  }
}

/**
 * Moves a thread to Linux's SCHED_IDLE class, with chrt(1) from util-linux (Node has no call for it); false when that
 * fails (no chrt, another system), and the thread keeps its niceness. A niced thread still holds a core until the
 * scheduler takes it back, and a request's thread woken meanwhile could wait for it (measured: the GET probe's p99
 * under a finalize load, README "Performance"); a core running only SCHED_IDLE threads counts as free when a thread
 * wakes. Such threads run only on time no other thread wants: under a load that saturates every core, the work waits
 * for the load to end (learning jobs and the knowledge graph are eventually consistent by design).
 */
export function idleThreadPolicy(tid: number): boolean {
  try {
    execFileSync("chrt", ["--idle", "--pid", "0", String(tid)], { stdio: "ignore", timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

const niceness = Number(process.env[NICENESS_ENV] || 0);
const recycleHeapMb = Number(process.env[RECYCLE_ENV] || 0);
const tid = workerThreadId();
if (tid !== undefined && Number.isInteger(niceness) && niceness > 0) {
  lowerThreadPriority(tid, niceness);
  if (process.env[IDLE_ENV] === "1") idleThreadPolicy(tid);
}
if (!isMainThread && process.env[WARM_ENV] === "1") setImmediate(warmUp);
// A thread's heap grown by a task under RECYCLE_HEAP_MB stays grown while the thread idles, as the HTTP thread's
// does: the same collection once quiet gives it back (runtime/idle-gc.ts, test/workers/idle-gc.test.ts).
if (!isMainThread) new IdleCollector().start();

/**
 * The message piscina hands a worker: which task, its input, and for a limited task its number (limits.ts) and the
 * shared flag it sets once the task has returned (pool.ts TaskWatch).
 */
export interface TaskMessage {
  name: TaskName;
  input: unknown;
  limited?: number;
  finished?: Int32Array;
}

/** Runs one task on a worker thread: the entry the pool calls with each message. */
export default function runTask(message: TaskMessage): unknown {
  const task = tasks[message.name] as ((input: unknown) => unknown) | undefined;
  if (!task) throw new Error(`unknown task ${String(message.name)}`);
  if (message.limited !== undefined) {
    // The pool counts the task's time from here, on this thread's CPU clock: not the time it waited in the queue.
    const started: TaskStarted = { csTaskStarted: message.limited, threadId, tid, cpuNs: threadCpuNs(tid) };
    parentPort?.postMessage(started);
  }
  try {
    return task(message.input);
  } catch (e) {
    // Only message, name, stack and cause cross back (structured clone): the code rides in cause, and so does the
    // kind of a PostgreSQL error, which decides its answer (pool.ts withCode; test/workers/limit.test.ts).
    const code = (e as { code?: unknown } | null)?.code;
    const pg = e instanceof PgUnavailableError || e instanceof PgError ? { kind: e.name } : {};
    if (e instanceof Error && e.cause === undefined && (typeof code === "string" || "kind" in pg))
      e.cause = { code, ...pg };
    throw e;
  } finally {
    if (message.finished) Atomics.store(message.finished, 0, 1);
    // A thread that grew is replaced once this task is answered (recycle.ts).
    const grown = growthNotice(threadId, recycleHeapMb);
    if (grown) parentPort?.postMessage(grown);
  }
}
