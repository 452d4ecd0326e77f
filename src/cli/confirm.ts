/**
 * Asking before a deletion that takes records with it: on a terminal a y/N question (no is the default); where standard
 * input is not a terminal (a script, a pipe) nothing can answer, so the command needs `--yes` and fails without it
 * rather than deleting unasked. Tests: test/cli/confirm.test.ts, test/cli/admin-delete.test.ts.
 */
import { createInterface } from "node:readline/promises";
import { CliError, UsageError } from "./errors.js";

/** Where the question is asked: standard input and standard error (standard output may be a pipe of --json). */
export interface Asker {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

const TERMINAL: Asker = { input: process.stdin, output: process.stderr };

/**
 * Goes on when `yes` is given or the person at the terminal answers y/yes; fails with `declined` (exit 1) on another
 * answer, and with a usage error naming --yes (exit 2) where no terminal can answer.
 */
export async function confirmDeletion(
  question: string,
  opts: { yes?: boolean; declined: string },
  asker: Asker = TERMINAL,
): Promise<void> {
  if (opts.yes) return;
  if (!asker.input.isTTY)
    throw new UsageError(`${question}: standard input is not a terminal to ask; give --yes to delete`);
  const rl = createInterface({ input: asker.input, output: asker.output, terminal: false });
  // An input that ends unanswered (Ctrl-D) is a no.
  const closed = new Promise<string>((resolve) => rl.once("close", () => resolve("")));
  try {
    const answer = await Promise.race([rl.question(`${question}? [y/N] `), closed]);
    if (!/^\s*y(es)?\s*$/i.test(answer)) throw new CliError(opts.declined);
  } finally {
    rl.close();
  }
}
