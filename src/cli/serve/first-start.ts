/**
 * A first start's credentials (the admin login, the first key), which exist nowhere else: printed by `init`, shown by
 * `serve` on standard error, or put in a private file when standard error cannot take them.
 */
import { closeSync, fchmodSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import type { Logger } from "../../runtime/log.js";
import { isNullDevice, shellWord } from "../output.js";
import type { InitResult } from "../setup.js";

/**
 * Writes what a first start made (nothing for a directory initialised already) through `out`; a key's line says when
 * it expires and the command that makes one that does not (test/cli/start-banner.test.ts "expires").
 */
export function printFirstStart(result: InitResult, out: (s: string) => void, dataDir: string): void {
  if (!result.created) return;
  out("content-service initialised:\n");
  out(`  account ${result.accountId}, default workspace ${result.workspaceId}\n`);
  out(`  admin login: ${result.adminEmail}`);
  out(result.generatedPassword ? ` / password ${result.generatedPassword} (shown once)\n` : " (password from stdin)\n");
  if (!result.key) return;
  out(`  API key (read, write; shown once): ${result.key}\n`);
  out(`  ${keyExpiry(result.keyExpiresAt ?? null, result.keyCreatedAt)}\n`);
  out(
    `  a key that never expires: content-service keys create ${result.onPostgres ? "--database-url URL" : `--data-dir ${shellWord(dataDir)}`} ` +
      `--account ${result.accountId} --name NAME --expires never\n`,
  );
}

/** "it expires 2027-03-03 (90 days)", or "it never expires". */
function keyExpiry(expiresAt: string | null, createdAt: string | undefined): string {
  if (expiresAt === null) return "it never expires";
  const days = createdAt ? Math.round((Date.parse(expiresAt) - Date.parse(createdAt)) / 86_400_000) : null;
  return `it expires ${expiresAt.slice(0, 10)}${days === null ? "" : ` (${days} days)`}`;
}

/** Where a first start's credentials go when standard error cannot take them, in the data directory. */
const CREDENTIALS_FILE = "first-start-credentials.txt";

/**
 * Shows a first start's credentials (after `heading`, when given), which exist nowhere else. On standard error with
 * fs.writeSync: written when the call returns, not queued in a stream that a process ending at once could leave
 * unwritten. Standard error that cannot take them (closed: EPIPE, EBADF) would lose them, and /dev/null (`2>&-`,
 * `2>/dev/null`) would lose them silently: they go to <data-dir>/first-start-credentials.txt (0600) then, and a log
 * line on standard output names the file.
 */
export function showFirstStart(
  result: InitResult,
  dataDir: string,
  log: Pick<Logger, "error">,
  heading?: string,
): void {
  if (!result.created) return;
  let text = heading ?? "";
  printFirstStart(
    result,
    (s) => {
      text += s;
    },
    dataDir,
  );
  let error: string;
  try {
    writeAllSync(2, text);
    // `serve 2>/dev/null`, or `serve 2>&-`, whose closed fd 2 Node reopens on /dev/null: the write was lost.
    if (!isNullDevice(2)) return;
    error = "standard error is /dev/null";
  } catch (e) {
    error = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  }
  const file = path.join(dataDir, CREDENTIALS_FILE);
  try {
    // A new file, never one already there: "w" would follow a symbolic link planted at that name (into a file its
    // planter reads) and keep a file another user has open. An older one goes first; O_EXCL refuses a link.
    rmSync(file, { force: true });
    const fd = openSync(file, "wx", 0o600);
    try {
      // The umask may take bits off 0600: the mode is set whatever it is.
      fchmodSync(fd, 0o600);
      writeAllSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    log.error(
      "standard error could not take the first start's credentials: they are in a file; read it, then delete it",
      { file, error },
    );
  } catch (f) {
    log.error("the first start's credentials were lost: standard error and the file both failed", {
      file,
      error,
      file_error: (f as NodeJS.ErrnoException).code ?? (f as Error).message,
    });
  }
}

/** Writes all of `text` to `fd` now; a non-blocking pipe that is full (EAGAIN) is waited for, up to a second. */
function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  let waits = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN" || waits++ >= 1_000) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}
