/**
 * What a layer that hands work to the worker pools sees of them: a pool of named tasks, and the error of a task
 * stopped past its processing time. Each user names the tasks it runs (`TaskPool<{ write: typeof runWrite }>`), so
 * that the domain and the store need not import workers/, whose task table imports them (workers/pool.ts implements
 * this for the whole table).
 */

/** A table of tasks by name, each a function of one input. */
export type TaskTable = { [name: string]: (input: never) => unknown };

/** Runs a named task of `T` with its input and resolves with its output; `transfer` buffers of the input are handed over. */
export interface TaskPool<T extends TaskTable> {
  run<N extends keyof T & string>(
    name: N,
    input: Parameters<T[N]>[0],
    transfer?: ArrayBuffer[],
  ): Promise<ReturnType<T[N]>>;
  close(): Promise<void>;
}

/**
 * A task ended because it used more CPU time than the limit (workers/limits.ts); its thread was ended with it. Those
 * that wait for a task treat every TaskLimitError alike: the input is the cause, and trying again would fail again.
 */
export class TaskLimitError extends Error {
  readonly task: string;
  readonly limitMs: number;

  constructor(
    task: string,
    limitMs: number,
    message = `the ${task} task used more than ${limitMs / 1000} s of processing time and was stopped`,
  ) {
    super(message);
    this.name = "TaskLimitError";
    this.task = task;
    this.limitMs = limitMs;
  }
}

/** A task whose thread ran out of its heap (workers/limits.ts TASK_HEAP_LIMIT_MB): the thread died with it. */
export class TaskHeapLimitError extends TaskLimitError {
  readonly limitMb: number;

  constructor(task: string, limitMs: number, limitMb: number) {
    super(
      task,
      limitMs,
      `the ${task} task needed more than the ${limitMb} MB of memory a task may use and was stopped`,
    );
    this.name = "TaskHeapLimitError";
    this.limitMb = limitMb;
  }
}
