/** Counting the passes of the event loop, for tests of work spread over passes (http/turns.ts, timed-turns.ts). */

/** Counts passes of the event loop: a check-phase callback that queues itself again runs once per pass. */
export function passCounter() {
  let passes = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    passes++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => passes,
    stop: () => {
      stopped = true;
    },
  };
}
