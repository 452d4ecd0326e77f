/**
 * Worker threads that grew are replaced. V8 keeps the heap a thread grew to for its next tasks and gives little of it
 * back: one 2 MB Markdown upload left a pool thread holding hundreds of MB, and the process stayed at 2.47 GB idle
 * after three. After each task a thread looks at its heap (what V8 holds, garbage included); past RECYCLE_HEAP_MB it
 * tells the pool, which gives it no more tasks and ends it once its task is answered; a new thread starts empty
 * (the pool's minimum, or with the next task).
 *
 * Chosen over ending threads after a number of tasks or of idle time: those would also end the threads that did not
 * grow, each restart costing a thread's start and the language library's load (about 250 ms of CPU, worker.ts
 * WARM_ENV), and would leave a grown thread in place until its count or idle time came. Held by
 * test/workers/recycle.test.ts.
 */
import { getHeapStatistics } from "node:v8";

/** The heap, in MB, past which a worker thread is replaced after its task: several times a warm idle thread's. */
export const RECYCLE_HEAP_MB = 256;

/** Set in the worker threads of a pool: the heap in MB past which they ask to be replaced (0: never). */
export const RECYCLE_ENV = "CONTENT_SERVICE_WORKER_RECYCLE_MB";

/** The message a worker thread posts after a task that left its heap past the limit. */
export interface ThreadGrown {
  csThreadGrown: number;
  heapMb: number;
}

/** Whether a message from a worker is the notice that its thread grew. */
export function isThreadGrown(message: unknown): message is ThreadGrown {
  return typeof (message as ThreadGrown | null)?.csThreadGrown === "number";
}

/** On a worker thread, after a task: the notice to post when its heap is past `limitMb`, else undefined. */
export function growthNotice(threadId: number, limitMb: number): ThreadGrown | undefined {
  if (!(limitMb > 0)) return undefined;
  const heapMb = getHeapStatistics().total_heap_size / (1024 * 1024);
  return heapMb > limitMb ? { csThreadGrown: threadId, heapMb: Math.round(heapMb) } : undefined;
}

/** What a pool's load balancer sees of a thread (piscina's PiscinaWorker). */
interface Candidate {
  id: number;
  currentUsage: number;
}

/** The pool's side: the threads that said they grew, kept from new tasks and ended once idle. */
export class Retirements {
  private readonly threads = new Map<number, Candidate>();
  private readonly retiring = new Set<number>();
  private readonly ending = new Set<number>();
  /** How many threads were ended for their growth. */
  retired = 0;

  constructor(
    /** Ends a thread by its id; resolves once it has exited. */
    private readonly end: (threadId: number) => Promise<unknown> | undefined,
    /** Called after a thread ended: tasks queued meanwhile may need a thread started for them. */
    private readonly ended: () => void,
  ) {}

  /** The pool's load balancer: an idle thread that is not being retired, else none (the pool may start one). */
  readonly balancer = <W extends Candidate>(_task: unknown, workers: W[]): W | null =>
    workers.find((w) => w.currentUsage === 0 && !this.retiring.has(w.id)) ?? null;

  created(worker: Candidate): void {
    this.threads.set(worker.id, worker);
  }

  destroyed(worker: Candidate): void {
    this.threads.delete(worker.id);
    this.retiring.delete(worker.id);
    this.ending.delete(worker.id);
  }

  grown(threadId: number): void {
    this.retiring.add(threadId);
    this.settle();
  }

  /** Ends the retiring threads that have no task (called as each task settles). */
  settle(): void {
    for (const id of this.retiring) {
      const thread = this.threads.get(id);
      if (thread?.currentUsage !== 0 || this.ending.has(id)) continue;
      const exited = this.end(id);
      if (!exited) continue;
      this.ending.add(id);
      this.retired++;
      void exited.then(this.ended, this.ended);
    }
  }
}
