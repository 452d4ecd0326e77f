/** The piscina worker entry: one dispatcher that runs a named task on its input. */
import { type TaskName, tasks } from "./tasks.js";

/** The message piscina hands a worker: which task, and its input. */
export interface TaskMessage {
  name: TaskName;
  input: unknown;
}

export default function runTask(message: TaskMessage): unknown {
  const task = tasks[message.name] as ((input: unknown) => unknown) | undefined;
  if (!task) throw new Error(`unknown task ${String(message.name)}`);
  return task(message.input);
}
