/**
 * The data directory of a command: which one (--data-dir), whether it holds a database, what this user may do in it,
 * and the failures that name it.
 */
import { constants, statSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { DB_FILE, immutableRead, isDamagedDatabase } from "../db/open.js";
import { systemErrorReason } from "../runtime/system-errors.js";
import { refuseBlank } from "./args.js";
import { CliError, UsageError } from "./errors.js";
import { accessFailure, deniedTo, giveThisUser, letThisUserIn, letThisUserRead } from "./lock.js";

/** The data directory of the command running (dataDirOf), for the failures that do not name it (explainFailure). */
let commandDataDir: string | undefined;

/**
 * One line for a SQLite failure that reached the top without naming the database (`attempt to write a readonly
 * database`, `database disk image is malformed`): the file, and what to do. Undefined for any other failure.
 */
export function explainFailure(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  // A file system error (`ENOENT: no such file or directory, open '/x/y'`): the path first, then why, in words.
  const fsPath = (e as { path?: unknown } | null)?.path;
  const reason = systemErrorReason(e);
  if (reason !== undefined && typeof fsPath === "string") {
    const syscall = (e as { syscall?: unknown }).syscall;
    return `${fsPath}: ${reason}${typeof syscall === "string" ? ` (${syscall})` : ""}`;
  }
  if (typeof code !== "string" || !code.startsWith("SQLITE_") || commandDataDir === undefined) return undefined;
  const dir = commandDataDir;
  const file = path.join(dir, DB_FILE);
  const message = (e as Error).message;
  // The directory, the database, its -wal and -shm (which the first writer created with its own owner), as a command
  // that writes checks them before it opens the database (requireWritable).
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN") || code === "SQLITE_PERM")
    return `cannot write ${file}: ${unwritable(dir) ?? message}`;
  if (isDamagedDatabase(e)) return damagedMessage(dir, message, immutableRead(e));
  return `${file}: ${message}`;
}

/**
 * A damaged database named, with the restore that puts a backup back; read as immutable (without locks: openReadOnly),
 * the file may only have been changing under the read (its owner's server writing), and a restore is not the answer.
 */
export function damagedMessage(dir: string, message: string, immutable = false): string {
  const file = path.join(dir, DB_FILE);
  if (immutable)
    return (
      `${file} could not be read (${message}): read without locks, as this user cannot write beside it, it may have ` +
      "been changing (a server writing it): run this again"
    );
  const restore = `put a backup back with \`content-service restore --data-dir ${dir} --from FILE\``;
  return `${file} is damaged (${message}): ${restore}`;
}

/** The data directory from --data-dir, CONTENT_SERVICE_DATA_DIR or ./data; an empty one is a usage error. */
export function dataDirOf(cmd: Command): string {
  const opts = cmd.optsWithGlobals() as { dataDir?: string };
  const dir = opts.dataDir ?? process.env.CONTENT_SERVICE_DATA_DIR ?? "./data";
  // A bad value from the variable names it (README), or the user would look for a --data-dir they never gave.
  const fromEnv =
    opts.dataDir === undefined
      ? process.env.CONTENT_SERVICE_DATA_DIR !== undefined
      : cmd.getOptionValueSourceWithGlobals("dataDir") === "env";
  const from = fromEnv ? " (from CONTENT_SERVICE_DATA_DIR)" : "";
  // path.resolve("") is the working directory: an unset shell variable must not put a database there.
  refuseBlank(`the data directory${from}`, dir, "give --data-dir DIR or set CONTENT_SERVICE_DATA_DIR to one");
  const resolved = path.resolve(dir);
  let isFile = false;
  try {
    isFile = !statSync(resolved).isDirectory();
  } catch {
    // Missing (init creates it) or unreadable (the command that opens it says so).
  }
  if (isFile)
    throw new UsageError(`${resolved}${from} is not a directory: --data-dir names the folder that holds ${DB_FILE}`);
  commandDataDir = resolved;
  return resolved;
}

/**
 * Fails unless the data directory holds a database: "no database … run init first", or, when the directory cannot be
 * searched, "cannot read DIR: …", naming the folder this user cannot search, with its owner and mode (existsSync would
 * answer false for both).
 */
export function requireDatabase(dir: string): void {
  try {
    statSync(path.join(dir, DB_FILE));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") throw new CliError(`cannot read ${dir}: ${unsearchable(dir)}`);
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new CliError(`no database in ${dir}: run \`content-service init --data-dir ${dir}\` first`);
    throw new CliError(`cannot read ${dir}: ${(e as Error).message}`);
  }
}

/**
 * Why this user cannot write the data directory or its database (read-only media, EROFS; another owner's files,
 * EACCES), in words, or undefined when it can. SQLite would say "attempt to write a readonly database" or "unable to
 * open database file" for both, after the lock file's own failure.
 */
export function unwritable(dir: string): string | undefined {
  const file = path.join(dir, DB_FILE);
  const denied: string[] = [];
  for (const f of [dir, file, `${file}-wal`, `${file}-shm`]) {
    const code = accessFailure(f, constants.W_OK);
    if (code === "EROFS") return `${dir} is on a read-only file system (EROFS)`;
    if (code === "EACCES" || code === "EPERM") denied.push(f);
  }
  return denied.length === 0 ? undefined : deniedTo("write", denied, giveThisUser, { code: "EACCES" });
}

/**
 * Why this user cannot read the database (a command that only reads), or undefined when it can: the file, and its
 * -wal, -shm and -journal where there, that this user cannot read (EACCES), with their owner and mode. The database
 * itself, named by the line already, is "it".
 */
export function unreadable(dir: string): string | undefined {
  const file = path.join(dir, DB_FILE);
  const denied: string[] = [];
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    const code = accessFailure(f, constants.R_OK);
    if (code === "EACCES" || code === "EPERM") denied.push(f);
  }
  return denied.length === 0 ? undefined : deniedTo("read", denied, letThisUserRead, { itself: file, code: "EACCES" });
}

/**
 * Why a folder cannot be searched (stat of a file in it failed with EACCES): the first folder on its path this user
 * cannot search, with its owner and mode ("it" when that is the folder itself, which the line names already).
 */
function unsearchable(dir: string): string {
  const folders: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    folders.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of folders) {
    const code = accessFailure(d, constants.X_OK);
    if (code === "EACCES" || code === "EPERM")
      return deniedTo("search", [d], letThisUserIn, { itself: dir, code: "EACCES" });
  }
  return "permission denied";
}

/** Fails, naming the directory and why, when this user cannot write the data directory (a command that writes). */
export function requireWritable(dir: string): void {
  const why = unwritable(dir);
  if (why !== undefined) throw new CliError(`cannot write to ${dir}: ${why}; the list commands work without writing`);
}
