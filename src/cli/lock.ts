/**
 * The data directory's locks, both held through the kernel's advisory locks on small SQLite files, which the kernel
 * releases when the process ends, however it ends (kill -9 included): a crash leaves no stale lock behind; the files
 * themselves stay and are reused.
 *
 * - `<data-dir>/server.lock`: one `serve` per data directory, and no `restore` under a running server. Held in
 *   exclusive locking mode: its first write takes SQLite's exclusive lock and keeps it until the connection closes.
 * - `<data-dir>/maintenance.lock`: no other command during a `restore`. Every command that opens the database holds a
 *   shared lock on it (a read transaction) while it runs; `restore` takes it exclusively, so it is refused while a
 *   command runs, and a command started during a restore is refused rather than writing into the file being
 *   replaced.
 *
 * An exclusive holder's pid goes into its write (the header's user_version, which another process reads from the
 * file's first 100 bytes while it cannot lock the file: advisory locks do not stop read()).
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  openSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import path from "node:path";
import { type LockConnection, openLockConnection } from "../db/lock.js";
import { DB_FILE, makeDataDir } from "../db/open.js";

/** The server lock's file name inside a data directory. */
export const LOCK_FILE = "server.lock";
/** The maintenance lock's file name inside a data directory. */
export const MAINTENANCE_LOCK_FILE = "maintenance.lock";

/** Another process holds a lock this one needs. */
export class LockHeldError extends Error {
  constructor(
    readonly dir: string,
    /** The exclusive holder's pid, when the lock is held exclusively. */
    readonly pid: number | undefined,
  ) {
    super(`another server is using ${dir}${pid ? ` (pid ${pid})` : ""}`);
  }
}

/** A held lock. */
export interface ServerLock {
  /** Releases it (closing the connection); harmless twice. */
  release(): void;
}

// Held here as well as by the caller: a connection nothing refers to any more is closed when collected, which
// releases the lock.
const held = new Set<LockConnection>();

/** The pid recorded by an exclusive holder (the header's user_version), or undefined. */
function holderPid(file: string): number | undefined {
  try {
    const fd = openSync(file, "r");
    try {
      const header = Buffer.alloc(100);
      if (readSync(fd, header, 0, 100, 0) < 100) return undefined;
      const pid = header.readUInt32BE(60);
      return pid > 0 ? pid : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function isBusy(e: unknown): boolean {
  return Boolean((e as { code?: string }).code?.startsWith("SQLITE_BUSY"));
}

/**
 * Opens a lock file, creating it first with the database's mode (and, as root, its owner), as SQLite creates the -wal
 * and -shm: the users who may write the database may take the lock, whoever ran the first command. Without a
 * database yet, the data directory's owner and the default mode.
 */
function openLockFile(dataDir: string, name: string): { db: LockConnection; file: string } {
  const file = path.join(dataDir, name);
  if (!existsSync(file)) createLike(file, path.join(dataDir, DB_FILE), dataDir);
  let db: LockConnection;
  try {
    db = openLockConnection(file);
  } catch (e) {
    throw new Error(`cannot open ${file}: ${cannotWrite(file) ?? (e as Error).message}`);
  }
  return { db, file };
}

function createLike(file: string, database: string, dataDir: string): void {
  let model: Stats | undefined;
  try {
    model = statSync(database);
  } catch {}
  let fd: number;
  try {
    // wx: another process creating it at the same moment keeps its own.
    fd = openSync(file, "wx", 0o644);
  } catch {
    return;
  }
  try {
    if (model) fchmodSync(fd, model.mode & 0o666);
    if (process.getuid?.() === 0) {
      const owner = model ?? statSync(dataDir);
      fchownSync(fd, owner.uid, owner.gid);
    }
  } catch {
    // Left as created: a lock file another user cannot write is reported by name when that user needs it.
  } finally {
    closeSync(fd);
  }
}

/** The error code of access(2) on a file, or undefined when it succeeds. */
export function accessFailure(file: string, mode: number): string | undefined {
  try {
    accessSync(file, mode);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? "?";
  }
}

/** access(2)'s error code for a path, or undefined: a parameter of the lock messages, as tests have no read-only mount. */
export type AccessCheck = (file: string, mode: number) => string | undefined;

/**
 * Why this user cannot write a lock file, or create it in its folder, in words that name the folder in the way, or
 * the file as "it" (the line names it already: "cannot open FILE: …"), with its owner and mode: read-only media
 * (EROFS), another owner's file or folder (EACCES). Undefined when neither is the cause. SQLite says only "unable to
 * open database file" (or, for a file it opened read-only, "attempt to write a readonly database"), whatever the cause.
 */
export function cannotWrite(file: string, access: AccessCheck = accessFailure): string | undefined {
  const dir = path.dirname(file);
  const why = (f: string, code: string | undefined) =>
    code === "EROFS"
      ? `${f === file ? "it" : f} is on a read-only file system (EROFS)`
      : deniedTo("write", [f], giveThisUser, { itself: file, code });
  const code = access(file, constants.W_OK);
  if (code === undefined) return undefined;
  if (code === "EROFS") return why(file, code);
  // Missing (to be created in the folder), or not even to be seen: a folder this user cannot search.
  if (code === "ENOENT" || ownerAndMode(file) === "") {
    const inDir = access(dir, constants.W_OK | constants.X_OK);
    return inDir === "EROFS" || inDir === "EACCES" || inDir === "EPERM" ? why(dir, inDir) : undefined;
  }
  return code === "EACCES" || code === "EPERM" ? why(file, code) : undefined;
}

/** "it" or "them", "its" or "their": as many as the files deniedTo names. */
export interface Them {
  it: "it" | "them";
  its: "its" | "their";
}

/**
 * Why this user cannot do something to files, the one phrase of every such line: "this user (uid N) cannot VERB F
 * (owner uid U, mode M), G (…) (CODE): REMEDY". Each file comes with its owner and mode; the one the line names
 * already (`itself`: "cannot open F: …") is "it". The remedy is worded for one file or several (Them); without a code
 * (access(2) did not say), none is given.
 */
export function deniedTo(
  verb: "write" | "read" | "search",
  files: readonly string[],
  remedy: (them: Them) => string,
  how: { itself?: string; code: string | undefined },
): string {
  const named = files.map((f) => `${f === how.itself ? "it" : f}${ownerAndMode(f)}`).join(", ");
  const them: Them = files.length === 1 ? { it: "it", its: "its" } : { it: "them", its: "their" };
  const code = how.code === undefined ? "" : ` (${how.code})`;
  return `this user (uid ${process.getuid?.() ?? "?"}) cannot ${verb} ${named}${code}: ${remedy(them)}`;
}

/** deniedTo's remedy for files to write. */
export const giveThisUser = ({ it, its }: Them) => `run as ${its} owner or give ${it} this user`;
/** deniedTo's remedy for files to read. */
export const letThisUserRead = ({ it, its }: Them) => `run as ${its} owner or let this user read ${it}`;
/** deniedTo's remedy for a folder to search (to reach a file in it). */
export const letThisUserIn = ({ its }: Them) => `run as ${its} owner or let this user in`;

/** " (owner uid N, mode 644)" of a file, or "" when it cannot be read. */
export function ownerAndMode(file: string): string {
  try {
    const st = statSync(file);
    return ` (owner uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)})`;
  } catch {
    return "";
  }
}

/** Why this process cannot write a lock file it needs to take exclusively; the file is "it", as in cannotWrite. */
export function readOnlyLock(file: string, access: AccessCheck = accessFailure): Error {
  // Read-only media: no owner or mode would let any user write it.
  const code = access(file, constants.W_OK);
  if (code === "EROFS") return new Error(`cannot lock ${file}: it is on a read-only file system (EROFS)`);
  const remedy = () => "give it the database file's owner and mode, or remove it while nothing runs";
  return new Error(`cannot lock ${file}: ${deniedTo("write", [file], remedy, { itself: file, code })}`);
}

function keep(db: LockConnection): ServerLock {
  held.add(db);
  return {
    release() {
      if (!held.delete(db)) return;
      db.close();
    },
  };
}

/** Takes a lock file exclusively for this process (never waits), recording its pid; throws LockHeldError. */
function holdExclusive(dataDir: string, name: string): ServerLock {
  makeDataDir(dataDir);
  const { db, file } = openLockFile(dataDir, name);
  try {
    db.holdExclusive(process.pid, new Date().toISOString());
  } catch (e) {
    db.close();
    // A shared holder records nothing: the pid in the file is then an earlier exclusive holder's.
    if (isBusy(e)) throw new LockHeldError(dataDir, name === LOCK_FILE ? holderPid(file) : undefined);
    if ((e as { code?: string }).code?.startsWith("SQLITE_READONLY")) throw readOnlyLock(file);
    throw new Error(`cannot lock ${file}: ${(e as Error).message}`);
  }
  return keep(db);
}

/** Takes the data directory's server lock for this process, or throws LockHeldError (never waits). */
export function acquireServerLock(dataDir: string): ServerLock {
  return holdExclusive(dataDir, LOCK_FILE);
}

/** Takes the maintenance lock exclusively (restore), or throws LockHeldError while a command holds it (never waits). */
export function acquireRestoreLock(dataDir: string): ServerLock {
  return holdExclusive(dataDir, MAINTENANCE_LOCK_FILE);
}

/**
 * Holds the maintenance lock shared while a command works on the database; throws LockHeldError, with the restore's
 * pid, while a restore runs (never waits).
 */
export function holdCommandLock(dataDir: string): ServerLock {
  const { db, file } = openLockFile(dataDir, MAINTENANCE_LOCK_FILE);
  try {
    db.holdShared();
  } catch (e) {
    db.close();
    if (isBusy(e)) throw new LockHeldError(dataDir, holderPid(file));
    throw new Error(`cannot lock ${file}: ${(e as Error).message}`);
  }
  return keep(db);
}
