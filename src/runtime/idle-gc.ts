/**
 * A full garbage collection when the thread has gone quiet after its heap grew. A burst of large answers (a page of
 * twelve contents of 500,000 characters is some 17 MB of strings, rows and pieces on the HTTP thread) leaves hundreds
 * of MB of garbage in V8's old generation, and V8 returns it only when a later full collection runs. A quiet server
 * allocates next to nothing, so none may come: V8's memory reducer runs only when armed by an earlier full
 * collection, and not after every load (bench/rss-probe.ts: 85 concurrent GET /contents?limit=100 then 10 MCP
 * batches left 690 MB of heap used, RSS 1,062 MB for over 30 s; one collection brought them to 31 MB and 370 MB, the
 * idle figures). The collection is one pause of the thread, tens of milliseconds over a small live heap: it is taken
 * only while the event loop is busy less than QUIET_UTILISATION of the time (health checks every second stay under
 * it, a load does not), and only once the heap used has grown by GROWTH_BYTES since the last one
 * (test/runtime/idle-gc.test.ts).
 */
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";

/** How often the thread's quiet and its heap are looked at. */
export const CHECK_MS = 5_000;

/** Below this share of the last CHECK_MS spent busy, the event loop is quiet. */
export const QUIET_UTILISATION = 0.05;

/** Growth of the heap used since the last collection that makes one worth its pause. */
export const GROWTH_BYTES = 64 * 1024 * 1024;

/**
 * V8's full collection, without --expose-gc: the flag is set for the time it takes to make one context, whose `gc`
 * is the isolate's (it collects every context's garbage), then unset, so that no global `gc` appears elsewhere.
 * Undefined where V8 refuses it.
 */
export function fullCollection(): (() => void) | undefined {
  const global = (globalThis as { gc?: unknown }).gc;
  if (typeof global === "function") return global as () => void;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}

/** What the collector reads and calls: the real ones by default, others in tests. */
export interface IdleCollectorParts {
  gc: (() => void) | undefined;
  heapUsed: () => number;
  /** The share of time the event loop was busy since the previous call. */
  utilisation: () => number;
}

/** The event loop's utilisation since the previous call (perf_hooks). */
function utilisationSinceLast(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    return since.utilization;
  };
}

/** Collects garbage when the thread is quiet and the heap has grown (see the file's comment). */
export class IdleCollector {
  private baseline: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private parts: IdleCollectorParts = {
      gc: fullCollection(),
      heapUsed: () => process.memoryUsage().heapUsed,
      utilisation: utilisationSinceLast(),
    },
  ) {
    this.baseline = parts.heapUsed();
  }

  /** One look: collects when quiet and grown; whether it collected. */
  check(): boolean {
    const quiet = this.parts.utilisation() < QUIET_UTILISATION;
    if (!this.parts.gc || !quiet || this.parts.heapUsed() - this.baseline < GROWTH_BYTES) return false;
    this.parts.gc();
    this.baseline = this.parts.heapUsed();
    return true;
  }

  /** Looks every CHECK_MS; the timer does not keep the process alive. */
  start(): void {
    this.timer ??= setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
