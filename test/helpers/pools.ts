/** Worker pools for tests: the inline pool with a hook before each task, to count, hold or stop tasks by name. */
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";
import type { TaskName } from "../../src/workers/tasks.js";

/** The inline pool, each task run once `before(name)` has returned (or resolved); what it throws, the task throws. */
export function hookedPool(before: (name: TaskName) => void | Promise<void>): WorkerPool {
  const inner = inlinePool();
  return {
    run: async (name, input) => {
      await before(name);
      return inner.run(name, input);
    },
    close: () => inner.close(),
  };
}
