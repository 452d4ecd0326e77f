/**
 * The processing time a task on the worker pools may take: tasks that work on text a caller sent (generation,
 * conversion, scoring, ingestion, learning analysis, graph extraction) are ended when their thread has spent this much
 * CPU time on them. Every slow path found so far (quadratic layouts, loops that never ended) was fixed, but a pool's
 * thread is shared by every account: the limit keeps the next one from holding it for minutes. The time waited in the
 * pool's queue, or while the thread was off its core, does not count.
 */
import { readFileSync } from "node:fs";
import type { TaskName } from "./tasks.js";

/** The CPU time, in milliseconds, a limited task may use: far above what the largest accepted inputs take. */
export const TASK_CPU_LIMIT_MS = 30_000;

/**
 * The heap, in MB, of each worker thread (V8's old generation: the objects a task keeps past a few collections). A task
 * that needs more ends with its thread (Node's ERR_WORKER_OUT_OF_MEMORY) and its request answers 422; the thread that
 * replaces it starts empty. Without it a thread could grow to the process's default (a quarter of the machine's
 * memory) and keep what it grew: three 5 MiB uploads took the process to 3.4 GB. Measured for the heaviest inputs
 * accepted: a 2,000,000-character Markdown list or table (the Markdown bound, domain/references.ts) needs 512 MB to
 * 1 GB; 5 MiB of HTML of short elements 256-512 MB; scoring, converting or extracting 500,000 characters under 64 MB.
 */
export const TASK_HEAP_LIMIT_MB = 1024;

/** The young generation of each worker thread's heap, in MB (new objects; V8's default for 64-bit is 48). */
export const TASK_YOUNG_HEAP_MB = 48;

/** The tasks that run on input from a request (or stored from one) and are ended past the limit. */
export const LIMITED_TASKS: ReadonlySet<TaskName> = new Set<TaskName>([
  "generateBuiltin",
  "thesis",
  "llmPrompt",
  "llmFinish",
  "thesisPrompt",
  "ingestText",
  "convertContent",
  "scoreText",
  "analyzeEdit",
  "analyzeJob",
  "extractGraph",
  "extractSource",
  "graphRead",
]);

/**
 * The message a worker thread posts when it starts a limited task: which one, its thread (Node's id, and Linux's),
 * its CPU clock then.
 */
export interface TaskStarted {
  csTaskStarted: number;
  threadId: number;
  tid?: number;
  cpuNs?: number;
}

/** Whether a message from a worker is the notice that a task has started on it. */
export function isTaskStarted(message: unknown): message is TaskStarted {
  return typeof (message as TaskStarted | null)?.csTaskStarted === "number";
}

/**
 * The CPU time a thread of this process has used, in nanoseconds (the first field of Linux's schedstat); undefined
 * elsewhere or without /proc, where the limit counts the time since the task started instead.
 */
export function threadCpuNs(tid: number | undefined): number | undefined {
  if (tid === undefined) return undefined;
  try {
    const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "latin1").split(" ")[0]);
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined;
  }
}
