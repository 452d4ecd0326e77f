/** The piscina worker entry: one dispatcher that runs a named task on its input. */
import { readlinkSync } from "node:fs";
import os from "node:os";
import { isMainThread } from "node:worker_threads";
import { type TaskName, tasks } from "./tasks.js";

/** Set in a background pool's worker threads, whose priority is lowered. */
export const BACKGROUND_ENV = "CONTENT_SERVICE_BACKGROUND_WORKER";

/** The niceness of worker threads: background work gives way to the HTTP thread when both want a core. */
export const WORKER_NICENESS = 10;

/**
 * Lowers this worker thread's scheduling priority (Linux sets niceness per thread; the thread's id is the last part
 * of /proc/thread-self). The background pool's threads run learning analysis and graph extraction for seconds at a
 * time: at equal priority they took half the CPU from the thread answering requests, and a GET waited behind them
 * (README "Performance"). Elsewhere, or when /proc is not mounted, threads keep the process's priority.
 */
export function lowerThreadPriority(): number | undefined {
  if (isMainThread || process.platform !== "linux") return undefined;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    os.setPriority(tid, WORKER_NICENESS);
    return tid;
  } catch {
    return undefined;
  }
}

if (process.env[BACKGROUND_ENV] === "1") lowerThreadPriority();

/** The message piscina hands a worker: which task, and its input. */
export interface TaskMessage {
  name: TaskName;
  input: unknown;
}

export default function runTask(message: TaskMessage): unknown {
  const task = tasks[message.name] as ((input: unknown) => unknown) | undefined;
  if (!task) throw new Error(`unknown task ${String(message.name)}`);
  return task(message.input);
}
