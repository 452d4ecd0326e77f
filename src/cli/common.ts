/** Helpers every command uses: the data directory, opening the store, output and failures. */
import { accessSync, constants, existsSync, fstatSync, statSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Command } from "commander";
import * as v from "valibot";
import { fileOf, pendingMigrations } from "../db/migrate.js";
import {
  DB_FILE,
  type Db,
  immutableRead,
  isDamagedDatabase,
  markImmutableRead,
  openDb,
  openReadOnly,
  readsImmutable,
} from "../db/open.js";
import { createStore, type Store } from "../db/store.js";
import { ApiError } from "../domain/errors.js";
import {
  Email,
  localPartBytes,
  localPartFits,
  MAX_EMAIL_LENGTH,
  MAX_EMAIL_LOCAL_PART,
  Password,
  RateLimit,
  RecordName,
} from "../http/admin-rules.js";
import { charLength } from "../runtime/chars.js";
import { systemErrorReason } from "../runtime/system-errors.js";
import {
  accessFailure,
  deniedTo,
  giveThisUser,
  holdCommandLock,
  LockHeldError,
  letThisUserIn,
  letThisUserRead,
  MAINTENANCE_LOCK_FILE,
} from "./lock.js";

/** A failure the CLI reports as one line on stderr with exit status 1. */
export class CliError extends Error {}

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
function damagedMessage(dir: string, message: string, immutable = false): string {
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

/** Whether --json was given. */
export function wantsJson(cmd: Command): boolean {
  return Boolean((cmd.optsWithGlobals() as { json?: boolean }).json);
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

/** Opens the data directory's database; a failure names the file. */
export function openDatabase(dir: string, readOnly = false): Db {
  const file = path.join(dir, DB_FILE);
  try {
    return readOnly ? openReadOnly(dir) : openDb(dir);
  } catch (e) {
    // Every command names the restore for a damaged file, as serve and backup do.
    if (isDamagedDatabase(e)) throw new CliError(damagedMessage(dir, (e as Error).message, immutableRead(e)));
    // SQLite says "unable to open database file" (SQLITE_CANTOPEN) whatever the cause: name permissions when they are,
    // to write with each file this user cannot write, its owner and mode, or the read-only media (unwritable).
    // Read-only (a list command): each file this user cannot read, its owner and mode (unreadable).
    const why = readOnly ? unreadable(dir) : unwritable(dir);
    if (why !== undefined) throw new CliError(`cannot open ${file}: ${why}`);
    let denied = false;
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (access) {
      denied = ["EACCES", "EPERM"].includes((access as NodeJS.ErrnoException).code ?? "");
    }
    throw new CliError(`cannot open ${file}: ${denied ? "permission denied" : (e as Error).message}`);
  }
}

/**
 * Runs a command that only reads the data directory (a list, a backup), told whether it must read it read-only: where
 * this user cannot write the folder or the database (unwritable). Read-only, the maintenance lock is held only where
 * its file already exists: one this user created (owned by them, with the database's mode) could later keep the
 * database's owner from taking it, and so from running `restore`. Elsewhere the lock is held as whileNoRestore holds it.
 */
export function whileNoRestoreReading<T>(dir: string, fn: (readOnly: boolean) => T): T {
  const readOnly = unwritable(dir) !== undefined;
  if (readOnly && !existsSync(path.join(dir, MAINTENANCE_LOCK_FILE))) return fn(true);
  return whileNoRestore(dir, () => fn(readOnly));
}

/**
 * Runs `fn` holding the data directory's maintenance lock shared (lock.ts): refused while a `restore` runs, and a
 * `restore` is refused until `fn` ends.
 */
export function whileNoRestore<T>(dir: string, fn: () => T): T {
  let lock: ReturnType<typeof holdCommandLock>;
  try {
    lock = holdCommandLock(dir);
  } catch (e) {
    if (e instanceof LockHeldError)
      throw new CliError(
        `a restore is under way in ${dir}${e.pid ? ` (pid ${e.pid})` : ""}: run this again when it ends`,
      );
    throw new CliError((e as Error).message);
  }
  let result: T;
  try {
    result = fn();
  } catch (e) {
    lock.release();
    throw e;
  }
  // An async command keeps the lock until it settles.
  if (result instanceof Promise) return result.finally(() => lock.release()) as T;
  lock.release();
  return result;
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

/** Opens an initialised, up-to-date database and runs `fn` with its store, closing it afterwards. */
export async function withStore<T>(cmd: Command, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const dir = dataDirOf(cmd);
  requireDatabase(dir);
  requireWritable(dir);
  return whileNoRestore(dir, () => storeOf(dir, fn));
}

/**
 * As withStore, for a command that only reads (the list commands), which also works where this user cannot write the
 * data directory or the database (read-only media, another owner's files): there the database is opened read-only
 * (openReadOnly); elsewhere as withStore opens it, so that its connection removes the -wal and -shm when it closes (a
 * read-only one cannot, and would leave them behind). The maintenance lock: see whileNoRestoreReading.
 */
export async function withReadStore<T>(cmd: Command, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const dir = dataDirOf(cmd);
  requireDatabase(dir);
  return whileNoRestoreReading(dir, (readOnly) => storeOf(dir, fn, readOnly));
}

async function storeOf<T>(dir: string, fn: (store: Store) => T | Promise<T>, readOnly = false): Promise<T> {
  const db = openDatabase(dir, readOnly);
  try {
    const pending = pendingMigrations(db);
    if (pending.length > 0)
      throw new CliError(
        `${fileOf(db)} needs ${pending.length} migration(s): run \`content-service migrate --data-dir ${shellWord(dir)}\` first`,
      );
    return await fn(createStore(db));
  } catch (e) {
    if (e instanceof ApiError) throw new CliError(e.message);
    throw readsImmutable(db) ? markImmutableRead(e) : e;
  } finally {
    db.close();
  }
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
 * first, the record stayed with its secret lost (a user's e-mail taken by a password nobody knows; there is no command
 * to replace one). Exit 1, nothing made.
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
 * Names come from API users: an escape sequence in a workspace name had reached the operator's terminal, and a
 * newline in it had drawn a fake row in `workspaces list`.
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

/** Parses a positive integer argument or fails as a usage error. */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new UsageError(`${name} must be a positive whole number, got "${printable(value)}"`);
    return Number(value);
  };
}

/** A bad argument: one line on stderr and exit status 2. */
export class UsageError extends Error {}

/**
 * Reads all of stdin when it is not a terminal (for passwords); undefined on a terminal. Says so on stderr first: a
 * stdin left open by ssh without -t or `docker exec -i` would otherwise wait in silence.
 */
export async function readStdinIfPiped(what = "the password"): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  process.stderr.write(`reading ${what} from standard input…\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  return text.length > 0 ? text : undefined;
}

/**
 * Refuses an empty or blank value (what an unset shell variable gives) as the usage error `NAME is empty: HINT`; the
 * hint is each caller's, as what to give differs (an id, a file name, or also - for standard output).
 */
export function refuseBlank(name: string, value: string, hint: string): void {
  if (value.trim() === "") throw new UsageError(`${name} is empty: ${hint}`);
}

/**
 * An id argument (a workspace's, a key's): not empty or blank. An unset shell variable (`keys revoke "$KEY"`) had
 * been looked up as an id and answered "no API key has that id", a failure (exit 1) rather than the usage error it is.
 */
export function idArg(name: string) {
  return (value: string): string => {
    refuseBlank(name, value, "give one (an unset shell variable?)");
    return value;
  };
}

/** The rules of the HTTP admin API (domain/admin-rules.ts), as argument parsers that fail as usage errors. */
export function nameArg(name: string) {
  return (value: string): string => {
    const r = v.safeParse(RecordName, value);
    if (!r.success)
      throw new UsageError(
        `${name} must be 1 to 100 characters (not counting spaces around it), got "${printable(value)}"`,
      );
    return r.output;
  };
}

/** A rate limit: a whole number from 1 to 1,000,000,000, as the HTTP admin API accepts. */
export function limitArg(name: string) {
  return (value: string): number => {
    const r = /^\d+$/.test(value) ? v.safeParse(RateLimit, Number(value)) : undefined;
    if (!r?.success)
      throw new UsageError(`${name} must be a whole number from 1 to 1000000000, got "${printable(value)}"`);
    return r.output;
  };
}

/** An email address, as the HTTP admin API accepts it. */
export function checkEmail(value: string, name = "--email"): string {
  const r = v.safeParse(Email, value);
  if (r.success) return r.output;
  // The rule that failed, when it is not the address's shape: a shape that looks right is otherwise a puzzle.
  const issue = r.issues[0];
  if (issue.type === "max_length")
    throw new UsageError(
      `${name} is too long: at most ${MAX_EMAIL_LENGTH} bytes of UTF-8, got ${Buffer.byteLength(value.trim().normalize("NFC"))}`,
    );
  if (issue.type === "check" && "requirement" in issue && issue.requirement === localPartFits)
    throw new UsageError(
      `${name}'s local part (before the @) is too long: at most ${MAX_EMAIL_LOCAL_PART} bytes of UTF-8, got ${localPartBytes(value.trim().normalize("NFC"))}`,
    );
  if (issue.type === "check") {
    // Named by its code point: printed, a zero-width space or a soft hyphen is invisible.
    const c = /[\p{Cc}\p{Cf}]/u.exec(value)?.[0] ?? "";
    const code = `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
    throw new UsageError(
      `${name} holds ${code}, a control or format character (such as a zero-width space): not an email address`,
    );
  }
  throw new UsageError(`${name}: "${printable(value)}" is not an email address`);
}

/** A password given on stdin, as the HTTP admin API accepts it (8 to 1024 characters). */
export function checkPassword(value: string | undefined): string | undefined {
  if (value !== undefined && !v.safeParse(Password, value).success)
    throw new UsageError(`the password from standard input must be 8 to 1024 characters, got ${charLength(value)}`);
  return value;
}

/** An http(s) URL for the description's servers (--public-url, --staging-url). */
export function serverUrlArg(name: string) {
  return (value: string): string => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {}
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "")
      // Shown without a user name or password it may carry.
      throw new UsageError(`${name} must be an http(s) URL, got "${value.replace(/\/\/[^/@]*@/, "//")}"`);
    // The description is served without authentication: a user name or password in it would be published.
    if (url.username !== "" || url.password !== "")
      throw new UsageError(
        `${name} must not carry a user name or password (user:password@): the description is public`,
      );
    // Paths are joined to the URL as given (the description's servers, upgrade_action, verification_uri, Location):
    // a query or fragment would end up before them (https://host/?x=1/api/v1/...), and a space or control character
    // would stand raw in the description's servers.
    if (/[?#]/.test(value))
      throw new UsageError(`${name} must not have a query or fragment (?, #): API paths are added after it`);
    if (/[\s\p{Cc}]/u.test(value)) throw new UsageError(`${name} must not hold a space or control character`);
    return value;
  };
}

/** The default server URLs of the description, for a server listening on host:port (`serve` and `openapi`). */
export function defaultServerUrls(host: string, port: number): { publicUrl: string; stagingUrl: string } {
  // An address that means "every interface" (0.0.0.0, ::) is none a client can use: the description names this
  // machine's loopback then (--public-url gives the address clients use).
  const wildcard = host === "0.0.0.0" || host === "0" || host === "::" || host === "[::]";
  const usable = wildcard ? (host.includes(":") ? "::1" : "127.0.0.1") : host;
  const ipv6 = usable.includes(":");
  const h = ipv6 ? `[${usable.replace(/^\[|\]$/g, "")}]` : usable;
  const publicUrl = `http://${h}:${port}`;
  // The staging server: staging.<name> for a host name (staging.localhost for the loopback), and, for an IP
  // address, which has no such name, this server itself (spec §Versioning 5 lists both servers).
  const ip = ipv6 || /^\d{1,3}(\.\d{1,3}){3}$/.test(usable);
  const stagingHost = usable === "127.0.0.1" ? "staging.localhost" : ip ? undefined : `staging.${usable}`;
  return { publicUrl, stagingUrl: stagingHost ? `http://${stagingHost}:${port}` : publicUrl };
}

/**
 * A whole number from `min` to `max` (`--workers`), or a usage error naming the range: in words by default, or as
 * `range` says it.
 */
export function intInRange(name: string, min: number, max: number, range = `a whole number from ${min} to ${max}`) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new UsageError(`${name} must be ${range}, got "${printable(value)}"`);
    return Number(value);
  };
}

/** A DNS name (RFC 1123): labels of 1 to 63 letters, digits and hyphens, not starting or ending with one. */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * A --host value: an IP address (an IPv6 one also in brackets, as in a URL, given without them) or a host name.
 * Anything else (`localhost:8080`, `http://x`, an empty variable) had reached listen, which failed as ENOTFOUND
 * after the data directory had been opened.
 */
export function hostArg(value: string): string {
  const bare = /^\[.*\]$/.test(value) ? value.slice(1, -1) : value;
  // A dotted all-numeric name is a mistyped IPv4 address (999.1.1.1), not a name: no top-level domain is numeric.
  const name = HOST_NAME.test(value) && !/^\d+(\.\d*)+$/.test(value);
  if (net.isIP(bare) === 6 || (bare === value && (net.isIP(value) === 4 || name))) return bare;
  throw new UsageError(`--host must be an IP address or a host name, got "${printable(value)}"`);
}

/**
 * An option as the user gave it, for a message: `--port 8080`, with `(from CONTENT_SERVICE_PORT)` when the value
 * came from that variable, or without a value (`--llm-model`) when `withValue` is false.
 */
export function givenOption(cmd: Command, key: string, withValue = true): string {
  const option = cmd.options.find((o) => o.attributeName() === key);
  if (!option) throw new Error(`no option ${key}`);
  const value = cmd.getOptionValue(key);
  const shown = withValue && value !== undefined ? ` ${printable(String(value))}` : "";
  const from = cmd.getOptionValueSource(key) === "env" && option.envVar ? ` (from ${option.envVar})` : "";
  return `${option.long}${shown}${from}`;
}

/** A --port value: 0 to 65535, said as ports are. */
export const portArg = intInRange("--port", 0, 65535, "0–65535");

/** `serve`'s default host and port, which `openapi` describes when given no URL. */
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8080;
