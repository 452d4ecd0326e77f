/** The tasks run on the worker pool: pure functions of their input. */
import { hashPassword, verifyPassword } from "../domain/passwords.js";

/** Every task by name, with its input and output. */
export const tasks = {
  hashPassword: (input: { password: string }) => hashPassword(input.password),
  verifyPassword: (input: { password: string; hash: string }) => verifyPassword(input.password, input.hash),
};

export type Tasks = typeof tasks;
export type TaskName = keyof Tasks;
