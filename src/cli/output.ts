/**
 * What a command writes: JSON and tables on standard output, values made safe for a terminal, and the rules for
 * output shown once (a key's secret, a generated password) when standard output is closed or /dev/null.
 */
import { fstatSync, statSync } from "node:fs";
import type { Command } from "commander";
import { systemErrorReason } from "../runtime/system-errors.js";
import { CliError } from "./errors.js";

/** Whether --json was given. */
export function wantsJson(cmd: Command): boolean {
  return Boolean((cmd.optsWithGlobals() as { json?: boolean }).json);
}

let stdoutClosed: (() => void) | undefined;
/** Whether standard output went: closed by its reader (EPIPE) or failed (a full disk); what is written is dropped. */
let stdoutGone = false;
let stdoutGoneReason = "";
/** Set once a command has printed something that is shown once (a key's secret, a generated password). */
let secretPrinted = false;

/** What `serve` says, once, when its standard output goes (the request log's reader ended). */
export function onStdoutClosed(note: () => void): void {
  stdoutClosed = note;
}

function secretLost(why: string): void {
  process.stderr.write(
    "error: what standard output shows once (a key's secret or a generated password) did not reach its reader " +
      `(${why}): the record was made; revoke that key or replace that password\n`,
  );
  process.exitCode = 1;
}

/**
 * Marks output that is shown once. Standard output closed by its reader loses it, and the command then fails (exit 1
 * with a line on stderr) though its record was made: a script must not take the missing secret for success. A
 * standard output on /dev/null (closed before the command started, or sent there) is refused before the record is
 * made, by refuseSecretToNull, which every caller runs first.
 */
export function printingSecret(): void {
  secretPrinted = true;
  if (stdoutGone) secretLost(stdoutGoneReason);
}

/** A path as a shell word, to paste into a command a message suggests: quoted when it holds anything but a plain path. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/**
 * Refuses, before anything is made, a command whose output shown once (`what`: a key's secret, a generated password)
 * would go to the null device: standard output closed (`>&-`, which Node reopens on /dev/null) or sent there. Made
 * first, the record would stay with its secret lost (a user's e-mail taken by a password nobody knows; there is no
 * command to replace one). Exit 1, nothing made.
 */
export function refuseSecretToNull(what: string): void {
  if (isNullDevice(1))
    throw new CliError(
      `standard output is /dev/null (closed with >&- or sent there), where ${what}, shown once, would be lost: ` +
        "nothing was made; send standard output to a file or a terminal",
    );
}

/**
 * Whether file descriptor `fd` is the null device: `2>/dev/null`, or a closed descriptor (`>&-`, `2>&-`), which Node
 * reopens on /dev/null at start so that it is never reused by a file of its own. Writes there succeed and are lost.
 * The null device is known by its device number (rdev), whichever /dev holds the node.
 */
export function isNullDevice(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isCharacterDevice() && st.rdev === statSync("/dev/null").rdev;
  } catch {
    return false;
  }
}

/**
 * Standard output may close before the program is done with it: `keys list | head -1`, or a server's request log
 * piped into a reader that exits. Node then emits EPIPE on process.stdout, and without a listener that is an uncaught
 * exception: a stack trace and exit 1 for a command, a server stopped for a log line. From then on what would go
 * there is dropped; a command finishes with its own status (1 if a shown-once secret went with it), and a server
 * keeps answering (onStdoutClosed). Any other failure of standard output (ENOSPC into a file, EIO) is the command's
 * failure: one line on stderr and exit 1. Standard error closed too (`serve 2>&1 | reader`) drops its lines silently.
 */
export function tolerateClosedOutput(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (stdoutGone) return;
    stdoutGone = true;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    const closed = e.code === "EPIPE" || e.code === "ERR_STREAM_DESTROYED";
    const reason = closed ? "its reader closed it" : (systemErrorReason(e) ?? e.message);
    stdoutGoneReason = reason;
    // One line (README): a lost secret's line says why, in place of the failure's own.
    if (secretPrinted) secretLost(reason);
    else if (!closed) {
      process.stderr.write(`error: standard output: ${reason}\n`);
      process.exitCode = 1;
    }
    if (closed) stdoutClosed?.();
  });
  process.stderr.on("error", () => {
    process.stderr.write = (() => true) as typeof process.stderr.write;
  });
}

/** Prints one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

// C0 and C1 controls, DEL, and the bidirectional overrides and isolates (U+200E/F, U+202A-E, U+2066-9).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\\]/g;

/**
 * A value as a terminal shows it safely: control and bidirectional characters as escapes (`\n`, `\x1b`, `\u202e`).
 * Names come from API users: an escape sequence in a workspace name must not reach the operator's terminal, nor a
 * newline in it draw a fake row in `workspaces list`.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    // A backslash doubled, so that a name holding the text \x1b is not taken for an escaped control character.
    if (c === "\\") return "\\\\";
    if (c === "\n") return "\\n";
    if (c === "\t") return "\\t";
    if (c === "\r") return "\\r";
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** Prints rows as an aligned table. */
export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  if (rows.length === 0) {
    process.stdout.write("(none)\n");
    return;
  }
  const cell = (v: unknown) =>
    printable(v === null || v === undefined ? "-" : Array.isArray(v) ? v.join(",") : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    `${vals
      .map((v, i) => v.padEnd(widths[i]))
      .join("  ")
      .trimEnd()}\n`;
  process.stdout.write(line(columns));
  for (const r of rows) process.stdout.write(line(columns.map((c) => cell(r[c]))));
}
