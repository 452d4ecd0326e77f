/** Scheduled backups of a running server's database: one consistent copy per run, the newest N kept. */
import { randomBytes } from "node:crypto";
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmSync,
  type Stats,
  statSync,
  utimesSync,
} from "node:fs";
import path from "node:path";
import { checkCopy } from "../db/backup-copy.js";
import { fsyncFile, placeNew } from "../db/open.js";
import { systemErrorReason } from "../runtime/system-errors.js";

const NAME = /^content-service-(\d{8}T\d{6}Z)\.db$/;

/** The file name of a backup taken at an instant. */
export function backupName(nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
  return `content-service-${stamp}.db`;
}

/** What takeBackup may be given besides the copy: `nowMs` names the backup; the others run its steps. */
export interface BackupSteps {
  nowMs?: number;
  /** Checks the copy (default checkCopy); throws when it fails. */
  check?: (file: string) => unknown;
  /** Flushes the checked copy to disk (default fsyncFile). */
  sync?: (file: string) => unknown;
  /** Told the temporary files of crashed backups that were removed (removeLeftovers), when there were any. */
  leftoversRemoved?: (files: string[]) => void;
}

/**
 * Removes what crashed backups left in the folder (removeLeftovers), then copies the live database into a `.partial`
 * file with `copy` (copyDatabase: VACUUM INTO, one read transaction, so the copy is a consistent snapshot whatever
 * other connections commit meanwhile), checks it, fsyncs it, moves it into place, fsyncs the folder and prunes old
 * copies. A copy that fails, or fails its check, is deleted. The server runs
 * copyDatabase, `check` (checkCopy) and `sync` (fsyncFile) on its background thread: the first two read every page,
 * and the fsync of a file just written waits for the disk to take what the kernel has not yet written of it (a
 * second or more for a large database), none of which belongs on the thread answering requests. The folder's fsync
 * (a journal commit) runs here.
 */
export async function takeBackup(
  copy: (tmpFile: string) => Promise<void> | void,
  dir: string,
  keep: number,
  { nowMs = Date.now(), check = checkCopy, sync = fsyncFile, leftoversRemoved }: BackupSteps = {},
): Promise<string> {
  ensureBackupDir(dir);
  // Before the copy: a crashed backup's file can be as large as this one, and the disk too full for both.
  const removed = removeLeftovers(dir);
  if (removed.length > 0) leftoversRemoved?.(removed);
  const target = path.join(dir, backupName(nowMs));
  // A temporary name of its own: another server backing up into this folder at the same second had its copy removed
  // under it (both used `<name>.partial`, each removing it first), and then its check made an empty database there.
  const tmp = partialName(target);
  // Touched while it is this backup's (see LEFTOVER_MS): a long check does not write to it.
  const touch = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(tmp, now, now);
    } catch {}
  }, TOUCH_MS);
  touch.unref();
  try {
    await copy(tmp);
    await check(tmp);
    // On disk before it has its name, and the name on disk before the backup is reported written (as backup --out
    // does): a power loss then leaves no backup or the whole of it, never a name on a file whose pages never got
    // there, which a restore would find damaged or empty.
    await sync(tmp);
    // Not over a backup of the same name, which a rename replaced: the other server's (or this one's, before a clock
    // set back).
    if (!placeNew(tmp, target))
      throw new Error(
        `${target} exists: this backup is dropped and that file kept (does another server back up into this ` +
          "folder at the same times? give each its own --backup-dir)",
      );
  } finally {
    clearInterval(touch);
    rmSync(tmp, { force: true });
  }
  // The new name, and the temporary one's removal, on disk before the backup is reported written.
  syncFolder(dir);
  pruneBackups(dir, keep);
  return target;
}

/**
 * A backup's temporary name beside `target`, its own: pid and random, as two processes (two servers, or two containers
 * both pid 1) may copy to the same name at once, and a shared temporary name was removed under the other's copy.
 */
export function partialName(target: string): string {
  return `${target}.partial-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/**
 * A scheduled backup's temporary file (partialName of a backupName), such as a crash mid-backup leaves, and the files
 * SQLite keeps beside it while its check has it open (checkCopy: the `-wal` and `-shm` of the WAL mode it opens in,
 * the `-journal` of the mode it switches to), which a crash during the check leaves too.
 */
const PARTIAL = /^(content-service-\d{8}T\d{6}Z\.db\.partial-\d+-[0-9a-f]{8})(-wal|-shm|-journal)?$/;

/**
 * How long a backup's temporary file must have gone unmodified to be a crash's leftover. Counted from its last
 * modification, not its creation: another server may be backing up into the same folder now, a large database's
 * copy takes longer than any fixed age, and a copy removed under its backup is worse than a leftover (the check,
 * opening the name, would make an empty database there, which passes). While VACUUM INTO copies, it writes the file
 * as its page cache fills (a copy too small for that is done in seconds); the check that follows (checkCopy) writes
 * its header as it opens it (journal_mode) and then only reads, for as long as the database takes to read; the fsync
 * and the link write nothing. As a check could outlast any age, takeBackup also touches its file every TOUCH_MS until
 * it is done. The pid in the name does not tell: a server in another container may have any number, this one's
 * included. A file modified in the future (a clock set back) is kept.
 */
const LEFTOVER_MS = 60 * 60_000;

/** How often a backup under way touches its temporary file: well within LEFTOVER_MS, late timers included. */
const TOUCH_MS = 10 * 60_000;

/**
 * Removes the temporary files of backups that crashed (or were killed) mid-copy from a backup folder: regular files
 * named as takeBackup names them (PARTIAL) and unmodified for over LEFTOVER_MS, with SQLite's files beside each (its
 * check's `-wal`, `-shm`, `-journal`, however old: a live check's are not written while it only reads, but its
 * temporary file is touched); such a file whose temporary file is gone, once unmodified for as long; nothing else.
 * Returns their paths. Only housekeeping: a folder that cannot be listed (its permissions changed since
 * ensureBackupDir checked them) or a file that cannot be removed is left as it is.
 */
export function removeLeftovers(dir: string, nowMs = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  /** A regular file's age in milliseconds, or undefined for anything else. */
  const age = (file: string) => {
    try {
      const stat = lstatSync(file);
      return stat.isFile() ? nowMs - stat.mtimeMs : undefined;
    } catch {
      return undefined;
    }
  };
  const removed: string[] = [];
  const remove = (file: string) => {
    try {
      rmSync(file);
      removed.push(file);
    } catch {}
  };
  const matches = names.flatMap((name) => {
    const m = PARTIAL.exec(name);
    return m ? [{ file: path.join(dir, name), copy: m[1], beside: m[2] !== undefined }] : [];
  });
  // The temporary files first: the files beside each go with it.
  for (const { file, beside } of matches) if (!beside && (age(file) ?? 0) > LEFTOVER_MS) remove(file);
  const present = new Set(names);
  const removedCopies = new Set(removed.map((file) => path.basename(file)));
  for (const { file, copy, beside } of matches) {
    if (!beside) continue;
    const fileAge = age(file);
    if (fileAge === undefined) continue;
    // Beside a temporary file removed just now, or one gone before (then only once it is as old as a leftover).
    if (removedCopies.has(copy) || (!present.has(copy) && fileAge > LEFTOVER_MS)) remove(file);
  }
  return removed;
}

/**
 * Makes a backup's name (and its temporary name's removal) survive a power loss: fsyncs its folder. A folder this
 * user may write but not read (a drop folder, mode 0300) cannot be opened for it, and some file systems (FUSE, CIFS)
 * refuse an fsync of a folder: the backup is in place all the same, its name as durable as the file system makes it,
 * so those are not failures; any other (EIO) is.
 */
export function syncFolder(folder: string): void {
  try {
    fsyncFile(folder);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (!["EACCES", "EPERM", "EINVAL", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EISDIR"].includes(code)) throw e;
  }
}

/**
 * Makes the backup folder (and the folders above it) if missing, and checks that this user can write into it; throws
 * an Error that says which folder and why. One level at a time: Node's recursive mkdir, under a folder where mkdir
 * fails with ENOENT though the parent exists (/proc), retried for ever on the calling thread (a server with
 * `--backup-dir /proc/x/backups` stopped answering and ignored SIGTERM). `serve` calls it before it starts, so that a
 * folder that cannot be used fails the start rather than the first scheduled run.
 */
export function ensureBackupDir(dir: string): void {
  const absolute = path.resolve(dir);
  const missing: string[] = [];
  let existing = absolute;
  for (;;) {
    let stat: Stats | undefined;
    try {
      stat = statSync(existing);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw folderError(existing, e);
    }
    if (stat) {
      if (!stat.isDirectory()) throw new Error(`${existing} is not a folder`);
      break;
    }
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw folderError(folder, e);
    }
  }
  try {
    accessSync(absolute, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw folderError(absolute, e);
  }
  // A drop folder (written, never listed) takes backups but cannot keep the newest N: each run would write its copy
  // and then fail at the pruning, for ever (the leftovers of crashed backups are listed the same way).
  try {
    accessSync(absolute, constants.R_OK);
  } catch (e) {
    throw new Error(
      `${absolute}: this user can write it but not list it (${systemErrorReason(e) ?? (e as Error).message}), ` +
        "and the newest backups are kept by listing it",
    );
  }
}

function folderError(folder: string, e: unknown): Error {
  return new Error(`${folder}: ${systemErrorReason(e) ?? (e as Error).message}`);
}

/** Deletes all but the newest `keep` backups in a folder (only files this module named). */
export function pruneBackups(dir: string, keep: number): string[] {
  const names = readdirSync(dir)
    .filter((n) => NAME.test(n))
    .sort();
  const doomed = names.slice(0, Math.max(0, names.length - keep));
  for (const n of doomed) rmSync(path.join(dir, n), { force: true });
  return doomed;
}
