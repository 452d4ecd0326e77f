/** The collection after a load (runtime/idle-gc.ts): when it runs, and that it frees what nothing references. */
import { describe, expect, it, vi } from "vitest";
import { CHECK_MS, fullCollection, GROWTH_BYTES, IdleCollector, QUIET_UTILISATION } from "../../src/runtime/idle-gc.js";

describe("fullCollection", () => {
  it("frees an object nothing references, without --expose-gc, and leaves no global gc", async () => {
    const gc = fullCollection();
    expect(gc).toBeTypeOf("function");
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    let answer: string[] | undefined = Array.from({ length: 8 }, (_, i) => `${"x".repeat(1_000_000)}${i}`);
    const held = new WeakRef(answer);
    answer = undefined;
    // A WeakRef keeps its target until the end of the job that made it.
    await new Promise((r) => setTimeout(r, 0));
    gc?.();
    expect(held.deref()).toBeUndefined();
  });
});

/** A collector over a heap and an event loop the test sets. */
function collector(options: { gc?: boolean } = {}) {
  const state = { heap: 100 * 1024 * 1024, busy: 0, collections: 0 };
  const gc = () => {
    state.collections++;
    state.heap = 30 * 1024 * 1024;
  };
  const c = new IdleCollector({
    gc: options.gc === false ? undefined : gc,
    heapUsed: () => state.heap,
    utilisation: () => state.busy,
  });
  return { c, state };
}

describe("IdleCollector", () => {
  it("collects once the loop is quiet and the heap has grown, then not again until it grows again", () => {
    const { c, state } = collector();
    state.heap += GROWTH_BYTES;
    expect(c.check()).toBe(true);
    expect(state.collections).toBe(1);
    // What the collection left is the new baseline.
    state.heap += GROWTH_BYTES - 1;
    expect(c.check()).toBe(false);
    state.heap += 1;
    expect(c.check()).toBe(true);
    expect(state.collections).toBe(2);
  });

  it("does not collect while the loop is busy, however large the heap", () => {
    const { c, state } = collector();
    state.heap += 10 * GROWTH_BYTES;
    state.busy = QUIET_UTILISATION;
    expect(c.check()).toBe(false);
    state.busy = QUIET_UTILISATION / 2;
    expect(c.check()).toBe(true);
  });

  it("does not collect a heap that has not grown", () => {
    const { c, state } = collector();
    expect(c.check()).toBe(false);
    expect(state.collections).toBe(0);
  });

  it("does nothing where V8 gives no collection", () => {
    const { c, state } = collector({ gc: false });
    state.heap += 10 * GROWTH_BYTES;
    expect(c.check()).toBe(false);
  });

  it("looks every CHECK_MS once started (twice is once), not after stop, and keeps no process alive", () => {
    const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timeouts();
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      const { c, state } = collector();
      c.start();
      c.start();
      state.heap += GROWTH_BYTES;
      vi.advanceTimersByTime(CHECK_MS);
      expect(state.collections).toBe(1);
      state.heap += GROWTH_BYTES;
      c.stop();
      vi.advanceTimersByTime(10 * CHECK_MS);
      expect(state.collections).toBe(1);
    } finally {
      vi.useRealTimers();
    }
    const { c } = collector();
    c.start();
    // An unreferenced timer is not among the resources that keep the process alive.
    expect(timeouts()).toBe(before);
    c.stop();
  });
});
