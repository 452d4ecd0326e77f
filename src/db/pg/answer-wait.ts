/**
 * The caller's side of one call to a SyncPgClient's thread: block until the thread's answer to request `id` is on
 * the port. The thread posts its answer, then sets the flag to 1, then notifies (thread.ts reply). A notify can land
 * late: the previous answer's, sent after the caller had already read that answer (the flag was 1 before the wait
 * began) and made its next request. That wake-up finds the flag back at 0 and nothing on the port; it is not this
 * call's answer, and the wait goes on for the time left (test/db/pg/answer-wait.test.ts).
 */
import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";

/** The answer to request `id`, or undefined when none came within `timeoutMs` (or another request's came). */
export function awaitAnswer<T extends { id: number }>(
  flag: Int32Array,
  port: MessagePort,
  id: number,
  timeoutMs: number,
): T | undefined {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) return undefined;
    Atomics.wait(flag, 0, 0, left);
    const received = receiveMessageOnPort(port)?.message as T | undefined;
    if (received !== undefined) return received.id === id ? received : undefined;
    // Nothing on the port: the flag is still 0 after a late notify (wait again), or the time is up.
    if (Atomics.load(flag, 0) !== 0) return undefined;
  }
}
