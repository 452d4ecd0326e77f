/** The worker pool that keeps heavy work off the HTTP thread; tests may use the inline pool. */
import { performance } from "node:perf_hooks";
import { Piscina, valueSymbol } from "piscina";
import { PgError, PgUnavailableError } from "../db/pg/errors.js";
import { restoreAssets, workerEntry } from "../runtime/assets.js";
import { TaskHeapLimitError, TaskLimitError, type TaskPool } from "../runtime/task-pool.js";
import {
  isTaskStarted,
  LIMITED_TASKS,
  TASK_CPU_LIMIT_MS,
  TASK_HEAP_LIMIT_MB,
  TASK_YOUNG_HEAP_MB,
  type TaskStarted,
  threadCpuNs,
} from "./limits.js";
import { isThreadGrown, RECYCLE_ENV, RECYCLE_HEAP_MB, Retirements } from "./recycle.js";
import { type TaskName, type Tasks, tasks } from "./tasks.js";
import { IDLE_ENV, NICENESS_ENV, WARM_ENV, WORKER_NICENESS } from "./worker.js";

/** What piscina's thread events carry of a thread (its PiscinaWorker). */
type PoolThread = Parameters<Retirements["created"]>[0];

/**
 * A thread that has had no task for this long ends, unless it is its pool's minimum (the foreground pool's warm thread,
 * the writer's). Each thread holds its own heap, tens of MB idle and more after a load: the background, checkpoint
 * and password threads and a foreground pool's threads beyond the first give it back soon after a load ends, for a
 * thread's start (some tens of ms) when the next load begins (test/workers/idle-exit.test.ts).
 */
export const IDLE_TIMEOUT_MS = 10_000;

/** A pool that runs every task of the task table (tasks.ts); the layers below see it as the TaskPool they need. */
export type WorkerPool = TaskPool<Tasks>;

/**
 * A piscina pool of `threads` worker threads. A `background` pool's threads run at a lower priority (see
 * worker.ts): work nobody is waiting for (learning analysis, the knowledge graph, checkpoints) gives way to the
 * thread answering requests and to the foreground pool's work for requests (generation, rendering, passwords).
 * `niceness` sets another priority (the writer's); `idle` also asks for SCHED_IDLE (worker.ts, idleThreadPolicy).
 * A limited task (limits.ts) that uses more than `cpuLimitMs` of its thread's CPU time is ended with its thread and
 * rejects with TaskLimitError; another thread takes the tasks behind it. Every task's thread has a heap of
 * `heapLimitMb` (limits.ts TASK_HEAP_LIMIT_MB): a task that needs more dies with its thread and rejects with
 * TaskHeapLimitError, and another thread takes the tasks behind it (test/workers/heap-limit.test.ts). A thread whose
 * heap is past `recycleHeapMb` after a task is replaced (recycle.ts). A `warm` pool's threads load the language
 * library as they start (worker.ts WARM_ENV). Idle threads past the minimum end after `idleTimeoutMs`.
 */
export function piscinaPool(
  threads: number,
  options: {
    background?: boolean;
    lazy?: boolean;
    niceness?: number;
    idle?: boolean;
    warm?: boolean;
    cpuLimitMs?: number;
    heapLimitMb?: number;
    recycleHeapMb?: number;
    idleTimeoutMs?: number;
  } = {},
): WorkerPool {
  const niceness = options.niceness ?? (options.background ? WORKER_NICENESS : 0);
  const entry = workerEntry();
  const maxThreads = Math.max(1, threads);
  const cpuLimitMs = options.cpuLimitMs ?? TASK_CPU_LIMIT_MS;
  const heapLimitMb = options.heapLimitMb ?? TASK_HEAP_LIMIT_MB;
  const retirements: Retirements = new Retirements(
    (threadId): Promise<number> | undefined => pool.threads.find((w) => w.threadId === threadId)?.terminate(),
    () => startForQueued(),
  );
  const pool: Piscina = new Piscina({
    filename: entry.filename,
    execArgv: entry.execArgv,
    // Background threads start with their first task: at start they would only compete with the server's own start.
    // So do a `lazy` pool's (the password thread's: 25 MiB and a start's worth of CPU for the odd sign-in).
    minThreads: options.background || options.lazy ? 0 : 1,
    maxThreads,
    idleTimeout: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    // First come, first served. By default a task that finds no free thread while the queue is being drained goes
    // back to the queue's tail: under a closed-loop load of generations on one thread, the one behind the task just
    // started went to the back each time, and some requests waited 2-3 s while hundreds behind them were answered.
    stricterFIFO: true,
    // An idle thread waits for its next task without blocking its event loop (piscina's default blocks it in
    // Atomics.wait): its timers run, the idle collector's among them (worker.ts, test/workers/idle-gc.test.ts).
    atomics: "async",
    loadBalancer: retirements.balancer,
    resourceLimits: {
      maxOldGenerationSizeMb: heapLimitMb,
      maxYoungGenerationSizeMb: Math.min(TASK_YOUNG_HEAP_MB, heapLimitMb),
    },
    env: {
      ...process.env,
      [NICENESS_ENV]: String(niceness),
      [IDLE_ENV]: options.idle ? "1" : "",
      [WARM_ENV]: options.warm ? "1" : "",
      [RECYCLE_ENV]: String(options.recycleHeapMb ?? RECYCLE_HEAP_MB),
    },
  });
  pool.on("workerCreate", (worker: PoolThread) => retirements.created(worker));
  pool.on("workerDestroy", (worker: PoolThread) => retirements.destroyed(worker));
  // A pool that keeps no idle thread (the background one) starts one only when a task is sent: tasks queued behind
  // a thread that ended would wait for the next. One that does nothing starts it.
  const startForQueued = () => {
    if (pool.queueSize > 0 && pool.threads.length < maxThreads) pool.run({ name: "startThread" }).catch(() => {});
  };
  const watch = new TaskWatch(cpuLimitMs, (threadId) => {
    const worker = pool.threads.find((w) => w.threadId === threadId);
    if (!worker) return false;
    void worker.terminate();
    return true;
  });
  pool.on("message", (message: unknown) => {
    if (isTaskStarted(message)) watch.started(message);
    else if (isThreadGrown(message)) retirements.grown(message.csThreadGrown);
  });
  const send = (name: TaskName, input: unknown, transferList?: ArrayBuffer[]) =>
    LIMITED_TASKS.has(name)
      ? watch.run(name, (limited, finished) => pool.run({ name, input, limited, finished }, { transferList }))
      : pool.run({ name, input }, { transferList });
  // How many threads died of their heap's limit.
  let outOfMemory = 0;
  return {
    run: async (name, input, transfer) => {
      // A thread this task may start (the pool is not full: a background pool has none when idle) loads the worker
      // bundle and the addon from the asset cache, which may have been emptied meanwhile.
      if (pool.threads.length < maxThreads) restoreAssets();
      const stops = watch.stops;
      try {
        return await send(name, input, transfer);
      } catch (thrown) {
        const e = withCode(thrown);
        if (isOutOfMemory(e)) {
          outOfMemory++;
          throw new TaskHeapLimitError(name, cpuLimitMs, heapLimitMb);
        }
        // A task handed to a thread in the moment the watch ended it (its task had just finished) fails with the
        // thread, though it never ran long: it runs again, once, on another thread (unless buffers of its input were
        // handed to the ended one: they went with it).
        if (e instanceof TaskLimitError || watch.stops === stops || !isThreadExit(e) || transfer?.length) throw e;
        return send(name, input);
      } finally {
        retirements.settle();
        if (watch.stops + outOfMemory > 0 && pool.threads.length === 0) startForQueued();
      }
    },
    close: () => {
      watch.stop();
      return pool.destroy();
    },
  };
}

/** Runs tasks on the calling thread (for tests and one-shot CLI commands). */
export function inlinePool(): WorkerPool {
  return {
    run: async (name, input) => {
      const output = (tasks[name] as (i: typeof input) => ReturnType<Tasks[typeof name]>)(input);
      // An answer wrapped to move its bytes to the calling thread (tasks.ts handingOver).
      const moved = output !== null && typeof output === "object" && valueSymbol in output;
      return moved ? (output as { [valueSymbol]: ReturnType<Tasks[typeof name]> })[valueSymbol] : output;
    },
    close: async () => {},
  };
}

/**
 * A task's error with its `code` again (SQLITE_BUSY becomes 503 service_busy: http/errors.ts), and a PostgreSQL
 * error as its class again (PgUnavailableError is 503 service_busy, not 500). An error crosses back from a thread by
 * structured clone, which keeps its message, stack and cause but no other property nor its class: the worker puts
 * the code and the PostgreSQL kind in `cause` (worker.ts; test/workers/limit.test.ts).
 */
export function withCode(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  const { code: carried, kind } = (e.cause ?? {}) as { code?: unknown; kind?: unknown };
  const rebuilt = postgresError(kind, e.message, typeof carried === "string" ? carried : undefined);
  if (rebuilt) {
    rebuilt.stack = e.stack;
    return rebuilt;
  }
  const error = e as Error & { code?: unknown };
  if (error.code === undefined && typeof carried === "string") error.code = carried;
  return error;
}

/** The PostgreSQL error of the kind a thread named, or undefined for any other error. */
function postgresError(kind: unknown, message: string, code: string | undefined): Error | undefined {
  if (kind === "PgUnavailableError") return new PgUnavailableError(message, code);
  if (kind === "PgError" && code !== undefined) return new PgError({ code, message });
  return undefined;
}

/** The failure of a task whose thread passed its heap's limit (Node ends the thread). */
function isOutOfMemory(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY";
}

/** piscina's failure of the tasks of a thread that ended. */
function isThreadExit(e: unknown): boolean {
  return e instanceof Error && /^worker exited/.test(e.message);
}

/**
 * A limited task in hand: `finished` is set by its thread when the task returns (worker.ts); once the thread has
 * started it, that thread, its CPU clock then, and whether the watch stopped it.
 */
interface Watched {
  name: string;
  finished: Int32Array;
  startedAt?: number;
  tid?: number;
  threadId?: number;
  cpuNs?: number;
  stopped?: boolean;
}

/**
 * Stops limited tasks that pass their CPU time. Each is numbered; its thread reports the start (worker.ts), and from
 * then on a timer compares the thread's CPU clock (or, without one, the time since the start) with the limit. A task
 * past it is stopped by ending its thread (`terminate`): piscina then fails the task and replaces the thread. (piscina's
 * own AbortSignal would do the same, but its queue then serves abortable tasks last come, first served.)
 *
 * A task whose answer is on its way is not stopped: its thread marks it finished in shared memory as it returns, so
 * the timer, which may run before the answer's message is read, leaves that thread alone. The moment between the
 * timer's look and the thread's end is covered by the pool, which runs again a task its ended thread took meanwhile.
 */
class TaskWatch {
  private next = 0;
  private readonly tasks = new Map<number, Watched>();
  private timer: NodeJS.Timeout | undefined;
  /** How many threads the watch has ended. */
  stops = 0;

  constructor(
    private readonly limitMs: number,
    private readonly terminate: (threadId: number) => boolean,
  ) {}

  async run<T>(name: string, start: (limited: number, finished: Int32Array) => Promise<T>): Promise<T> {
    const id = ++this.next;
    const watched: Watched = { name, finished: new Int32Array(new SharedArrayBuffer(4)) };
    this.tasks.set(id, watched);
    try {
      return await start(id, watched.finished);
    } catch (e) {
      // piscina fails the task of an ended thread with "worker exited": the caller learns why.
      throw watched.stopped ? new TaskLimitError(name, this.limitMs) : e;
    } finally {
      this.tasks.delete(id);
      if (this.tasks.size === 0) this.stop();
    }
  }

  started(message: TaskStarted): void {
    const watched = this.tasks.get(message.csTaskStarted);
    if (!watched) return;
    watched.startedAt = performance.now();
    watched.tid = message.tid;
    watched.threadId = message.threadId;
    watched.cpuNs = message.cpuNs;
    this.timer ??= setInterval(() => this.check(), Math.min(1_000, Math.max(10, this.limitMs / 4))).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    for (const watched of this.tasks.values()) {
      if (watched.startedAt === undefined || watched.stopped || Atomics.load(watched.finished, 0) === 1) continue;
      let usedMs: number;
      if (watched.cpuNs === undefined) usedMs = performance.now() - watched.startedAt;
      else {
        const now = threadCpuNs(watched.tid);
        // The thread is gone: its task is settling.
        if (now === undefined) continue;
        usedMs = (now - watched.cpuNs) / 1e6;
      }
      if (usedMs >= this.limitMs && this.terminate(watched.threadId ?? -1)) {
        watched.stopped = true;
        this.stops++;
      }
    }
  }
}
