/**
 * A watchdog for requests that never answer. A handler that loops on the event loop (GET /usage?to=9999-12-31 once
 * did) blocks the test's own thread: no timeout fires and no failure is reported, and the run ends in an out-of-heap
 * crash or a hang with its seed unknown. A thread of its own watches instead. When a request has had no answer for
 * `reportAfterMs`, it writes the request (with its operation and seed) straight to file descriptor 2, which needs no
 * event loop; after `endAfterMs` it ends the process, so that the run fails at once instead of hanging.
 */
import { Worker } from "node:worker_threads";

const TEXT_BYTES = 4096;

/** Runs in the watchdog's thread (CommonJS, eval). */
const WATCHER = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { shared, reportAfterMs, endAfterMs, fd } = workerData;
// [0]: requests begun, [1]: 1 while one is waiting for its answer, [2]: the description's length in bytes.
const state = new Int32Array(shared, 0, 3);
const text = new Uint8Array(shared, 12);
let reported = -1;
for (;;) {
  const begun = Atomics.load(state, 0);
  if (Atomics.wait(state, 0, begun, reportAfterMs) !== "timed-out" || Atomics.load(state, 1) !== 1) continue;
  if (reported !== begun) {
    reported = begun;
    const what = Buffer.from(text.subarray(0, Atomics.load(state, 2))).toString("utf8");
    writeSync(fd, "\\nfuzz: no answer after " + reportAfterMs / 1000 + " s to " + what + "\\n");
  }
  if (Atomics.wait(state, 0, begun, endAfterMs - reportAfterMs) === "timed-out" && Atomics.load(state, 1) === 1) {
    writeSync(fd, "fuzz: still no answer after " + endAfterMs / 1000 + " s; ending the test process\\n");
    process.kill(process.pid, "SIGKILL");
  }
}
`;

export interface Watchdog {
  /** A request is sent: what it is (its operation, seed and request line), for the report. */
  begin(description: string): void;
  /** Its answer came. */
  end(): void;
  stop(): Promise<number>;
}

/** `fd`: where the reports go (standard error; a test passes a file's). */
export function watchdog(reportAfterMs = 15_000, endAfterMs = 120_000, fd = 2): Watchdog {
  const shared = new SharedArrayBuffer(12 + TEXT_BYTES);
  const state = new Int32Array(shared, 0, 3);
  const text = new Uint8Array(shared, 12);
  const worker = new Worker(WATCHER, { eval: true, workerData: { shared, reportAfterMs, endAfterMs, fd } });
  worker.unref();
  const encoder = new TextEncoder();
  return {
    begin(description) {
      const { written } = encoder.encodeInto(description, text);
      Atomics.store(state, 2, written ?? 0);
      Atomics.store(state, 1, 1);
      Atomics.add(state, 0, 1);
      Atomics.notify(state, 0);
    },
    end() {
      Atomics.store(state, 1, 0);
    },
    stop: () => worker.terminate(),
  };
}
