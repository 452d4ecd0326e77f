/** The worker pool that keeps heavy work off the HTTP thread; tests may use the inline pool. */
import { Piscina } from "piscina";
import { workerEntry } from "../runtime/assets.js";
import { type TaskName, type Tasks, tasks } from "./tasks.js";
import { IDLE_ENV, NICENESS_ENV, WORKER_NICENESS } from "./worker.js";

/** Runs a named task with its input and resolves with its output. */
export interface WorkerPool {
  run<N extends TaskName>(name: N, input: Parameters<Tasks[N]>[0]): Promise<ReturnType<Tasks[N]>>;
  close(): Promise<void>;
}

/**
 * A piscina pool of `threads` worker threads. A `background` pool's threads run at a lower priority (see
 * worker.ts): work nobody is waiting for (learning analysis, the knowledge graph, checkpoints) gives way to the
 * thread answering requests and to the foreground pool's work for requests (generation, rendering, passwords).
 * `niceness` sets another priority (the writer's); `idle` also asks for SCHED_IDLE (worker.ts, idleThreadPolicy).
 */
export function piscinaPool(
  threads: number,
  options: { background?: boolean; niceness?: number; idle?: boolean } = {},
): WorkerPool {
  const niceness = options.niceness ?? (options.background ? WORKER_NICENESS : 0);
  const entry = workerEntry();
  const pool = new Piscina({
    filename: entry.filename,
    execArgv: entry.execArgv,
    // Background threads start with their first task: at start they would only compete with the server's own start.
    minThreads: options.background ? 0 : 1,
    maxThreads: Math.max(1, threads),
    idleTimeout: 60_000,
    // First come, first served. By default a task that finds no free thread while the queue is being drained goes
    // back to the queue's tail: under a closed-loop load of generations on one thread, the one behind the task just
    // started went to the back each time, and some requests waited 2-3 s while hundreds behind them were answered.
    stricterFIFO: true,
    env: { ...process.env, [NICENESS_ENV]: String(niceness), [IDLE_ENV]: options.idle ? "1" : "" },
  });
  return {
    run: (name, input) => pool.run({ name, input }),
    close: () => pool.destroy(),
  };
}

/** Runs tasks on the calling thread (for tests and one-shot CLI commands). */
export function inlinePool(): WorkerPool {
  return {
    run: async (name, input) => (tasks[name] as (i: typeof input) => ReturnType<Tasks[typeof name]>)(input),
    close: async () => {},
  };
}
