/**
 * The wait for a PostgreSQL thread's answer (src/db/pg/answer-wait.ts): a late notify of the previous answer does not
 * end it. A thread stands in for the client's: it sends a bare notify, then, later, the answer as thread.ts does.
 */
import { MessageChannel, Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { awaitAnswer } from "../../../src/db/pg/answer-wait.js";

/** A thread that notifies without an answer after `staleMs`, then posts answer `id` after `answerMs`. */
function lateAnswerer(flag: SharedArrayBuffer, id: number, staleMs: number, answerMs: number) {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(
    `const { workerData } = require("node:worker_threads");
     const signal = new Int32Array(workerData.flag);
     const nap = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
     nap(workerData.staleMs);
     Atomics.notify(signal, 0);
     nap(workerData.answerMs);
     workerData.port.postMessage({ id: workerData.id, ok: true });
     Atomics.store(signal, 0, 1);
     Atomics.notify(signal, 0);`,
    { eval: true, workerData: { flag, port: port2, id, staleMs, answerMs }, transferList: [port2] },
  );
  return { port: port1, worker };
}

describe("awaitAnswer", () => {
  it("waits on past a notify that brings no answer, and returns the answer that follows", async () => {
    const flag = new SharedArrayBuffer(4);
    const { port, worker } = lateAnswerer(flag, 7, 50, 150);
    const answer = awaitAnswer<{ id: number; ok: boolean }>(new Int32Array(flag), port, 7, 10_000);
    expect(answer).toEqual({ id: 7, ok: true });
    await worker.terminate();
    port.close();
  });

  it("gives up when no answer comes within its time, and refuses another request's answer", async () => {
    const flag = new SharedArrayBuffer(4);
    const silent = new MessageChannel();
    expect(awaitAnswer(new Int32Array(flag), silent.port1, 1, 100)).toBeUndefined();
    silent.port1.close();
    const { port, worker } = lateAnswerer(flag, 8, 10, 10);
    expect(awaitAnswer(new Int32Array(flag), port, 9, 10_000)).toBeUndefined();
    await worker.terminate();
    port.close();
  });
});
