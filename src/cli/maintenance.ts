/** `migrate`, `backup` and `restore`: the database's schema, its copies, and a copy put back. */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
} from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { BackupTargetError, checkCopy, copyDatabase } from "../db/backup-copy.js";
import { checkpointTruncate, hasMigrationsTable, integrityCheck, vacuumInto } from "../db/maintenance.js";
import { type MigratingConnection, MigrationMismatchError, migrate, pendingMigrations } from "../db/migrate.js";
import { DB_FILE, type Db, fsyncFile, openDb, placeNew } from "../db/open.js";
import { partialName, syncFolder } from "../jobs/backups.js";
import { systemErrorReason } from "../runtime/system-errors.js";
import { refuseBlank } from "./args.js";
import { dataDirOf, requireDatabase } from "./data-dir.js";
import { openDatabase, openPostgresDatabase, whileNoRestore, whileNoRestoreReading } from "./database.js";
import { databaseUrlOf } from "./database-url.js";
import { CliError, UsageError } from "./errors.js";
import { acquireRestoreLock, acquireServerLock, LOCK_FILE, LockHeldError, MAINTENANCE_LOCK_FILE } from "./lock.js";
import { printJson, shellWord, wantsJson } from "./output.js";

/** The database's file and the files SQLite and the server keep beside it, which a copy must never replace. */
const LIVE_SUFFIXES = ["", "-wal", "-shm", "-journal"];

const liveFiles = (dir: string) => [
  ...LIVE_SUFFIXES.map((s) => path.join(dir, `${DB_FILE}${s}`)),
  ...[LOCK_FILE, MAINTENANCE_LOCK_FILE].flatMap((f) => [path.join(dir, f), path.join(dir, `${f}-journal`)]),
];

/** A path with its directory's symbolic links resolved (the file itself need not exist). */
function resolvedPath(file: string): string {
  const abs = path.resolve(file);
  try {
    return path.join(realpathSync(path.dirname(abs)), path.basename(abs));
  } catch {
    return abs;
  }
}

/** Whether `file` is (a name or a hard link of) the live database or one of its companions in `dataDir`. */
function isLiveFile(dataDir: string, file: string): boolean {
  const target = resolvedPath(file);
  const live = liveFiles(resolvedPath(dataDir));
  if (live.includes(target)) return true;
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(target);
  } catch {
    return false;
  }
  return live.some((f) => {
    try {
      const l = statSync(f);
      return l.ino === st.ino && l.dev === st.dev;
    } catch {
      return false;
    }
  });
}

/**
 * What is at `file`, not following a symbolic link, in words ("a file", "a directory", "a character device", "a FIFO",
 * "a symbolic link"…); undefined when nothing is there.
 */
function whatIsAt(file: string): string | undefined {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch {
    return undefined;
  }
  return kindOf(st);
}

function kindOf(st: Stats): string {
  if (st.isFile()) return "a file";
  if (st.isDirectory()) return "a directory";
  if (st.isSymbolicLink()) return "a symbolic link";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "an entry of another kind";
}

/** Fails (exit 2) when what is at --out (`kind`, from whatIsAt) is there and is not a regular file. */
function refuseNonFile(target: string, kind: string | undefined): void {
  if (kind !== undefined && kind !== "a file")
    throw new UsageError(`--out ${target} is ${kind}, not a file: a backup goes to a new file or replaces a file only`);
}

/** Fails (exit 2) for what is at --out without --force: what is not a regular file says what it is (refuseNonFile). */
function refuseExisting(target: string, kind: string | undefined = whatIsAt(target)): never {
  refuseNonFile(target, kind);
  throw new UsageError(`--out ${target} exists: choose a new file, or pass --force to replace it`);
}

/**
 * Puts a backup's checked copy `tmp` at `target`. With --force (`replace`), a rename: it replaces a regular file (the
 * caller checked just before that nothing else is there). Without, only where nothing is (placeNew: a hard link, or
 * an exclusive create where there are none), so that what appeared at `target` since the up-front check (another
 * process's file, a second backup started at the same moment), which a rename would replace, is refused as the
 * up-front check refuses it (exit 2), the file kept and the copy removed (by the caller).
 */
function publishCopy(tmp: string, target: string, replace: boolean): void {
  if (replace) renameSync(tmp, target);
  else if (!placeNew(tmp, target)) refuseExisting(target);
}

/** Copies a live database into `out` as one consistent snapshot (VACUUM INTO reads in one transaction). */
export function backupDatabase(
  dataDir: string,
  out: string,
  progress: (line: string) => void = () => {},
  options: { replace?: boolean } = {},
): { bytes: number; file: string } {
  const target = path.resolve(out);
  // Renaming the copy over the database (or its WAL) would corrupt it under a running server.
  if (isLiveFile(dataDir, target))
    throw new UsageError(`--out ${target} is the database of ${dataDir} (or a file beside it): choose another file`);
  // lstat: a symbolic link is seen as itself, also one whose file is missing (the rename would replace the link).
  const kind = whatIsAt(target);
  const exists = kind !== undefined;
  if (kind === "a directory") throw new UsageError(`--out ${target} is a directory: give a file name`);
  // Only a regular file is ever replaced, even with --force: the rename would put a regular 0600 file in the place of
  // /dev/null (run as root), of a FIFO, or of a symbolic link such as /dev/stdout.
  refuseNonFile(target, kind);
  // An existing file is kept unless asked: a mistyped --out must not silently replace it, another data directory's
  // live database included (its server would go on writing to the file unlinked under it).
  if (exists && !options.replace) refuseExisting(target, kind);
  for (const suffix of ["-wal", "-shm", "-journal"])
    if (exists && existsSync(`${target}${suffix}`))
      throw new CliError(
        `${target} has a ${suffix} file beside it: it is a database in use (a server's?), not replaced even with --force`,
      );
  requireDatabase(dataDir);
  // A data directory this user can only read (read-only media, another owner's files) is copied through a read-only
  // connection, as the list commands read it (withReadStore): nothing is created beside the database, no -wal or
  // -shm, and no maintenance lock file of this user's, which could keep the database's owner from running a restore.
  return whileNoRestoreReading(dataDir, (readOnly) =>
    backupInto(dataDir, target, progress, readOnly, options.replace === true),
  );
}

/** Copies the database into a temporary file beside `target`, checks the copy, and puts it at `target`. */
function backupInto(
  dataDir: string,
  target: string,
  progress: (line: string) => void,
  readOnly: boolean,
  replace: boolean,
): { bytes: number; file: string } {
  progress(`backing up ${dataDir} to ${target}…\n`);
  // SQLite would name the temporary file it could not create, not the folder that is missing.
  const folder = path.dirname(target);
  if (!existsSync(folder)) throw new CliError(`cannot write ${target}: there is no folder ${folder}`);
  const tmp = partialName(target);
  try {
    try {
      copyDatabase({ dataDir }, tmp, readOnly);
    } catch (e) {
      // Named by the file asked for, not its temporary name.
      if (e instanceof BackupTargetError) throw new CliError(`cannot write ${target}: ${e.reason}`);
      throw e;
    }
    progress(`copied ${statSync(tmp).size} bytes; checking the copy…\n`);
    try {
      checkCopy(tmp);
    } catch (e) {
      throw new CliError(`${target}: ${(e as Error).message}`);
    }
    // On disk before it has its name: a power loss after the link or rename must not leave a name on a file whose
    // pages never got there (as restore and createDbFile do).
    fsyncFile(tmp);
    // Checked again: the copy took a while, and only a file (or nothing) may be replaced.
    refuseNonFile(target, whatIsAt(target));
    publishCopy(tmp, target, replace);
  } finally {
    rmSync(tmp, { force: true });
  }
  // The new name, and the temporary one's removal, on disk before the backup is reported written.
  syncFolder(folder);
  return { bytes: statSync(target).size, file: target };
}

/**
 * Opens a backup read-only and checks that it is a sound content-service database this program can serve; with the
 * number of migrations it still needs (an older backup).
 */
function checkBackup(from: string): { db: Db; pending: number } {
  let db: Db;
  try {
    db = openDb(path.dirname(from), { readonly: true, file: path.basename(from) });
  } catch (e) {
    if ((e as { code?: string }).code === "SQLITE_NOTADB") throw new CliError(`${from} is not a SQLite database`);
    throw new CliError(`cannot open ${from}: ${(e as Error).message}`);
  }
  try {
    let result: unknown;
    try {
      result = integrityCheck(db);
    } catch (e) {
      const code = (e as { code?: string }).code;
      throw new CliError(
        code === "SQLITE_NOTADB" ? `${from} is not a SQLite database` : `cannot read ${from}: ${(e as Error).message}`,
      );
    }
    if (result !== "ok") throw new CliError(`${from} failed its integrity check: ${String(result)}`);
    if (!hasMigrationsTable(db))
      throw new CliError(`${from} is not a content-service database (it has no schema_migrations)`);
    let pending: number;
    try {
      // Older is fine (serve or migrate applies the rest); newer, or another order, is refused as serve refuses it.
      pending = pendingMigrations(db).length;
    } catch (e) {
      if (e instanceof MigrationMismatchError)
        throw new CliError(e.message.replace(/; refusing to start$/, "; refusing to restore")); // names the file
      // Any other failure is the backup's (a schema_migrations of another shape), not the data directory's.
      throw new CliError(`${from} is not a content-service database this program can read: ${(e as Error).message}`);
    }
    return { db, pending };
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * Replaces a data directory's database with a backup, under the server lock (refused while a server runs): checks
 * the backup, copies it into a temporary file beside the database, fsyncs it, removes the old database's WAL,
 * shared-memory and journal files (SQLite would apply them to the new file) and renames the copy into place.
 */
export function restoreDatabase(
  dataDir: string,
  from: string,
  progress: (line: string) => void = () => {},
): { bytes: number; file: string; pending: number } {
  const source = path.resolve(from);
  if (isLiveFile(dataDir, source))
    throw new UsageError(`--from ${source} is the database of ${dataDir} itself: give a backup file`);
  let kind: string;
  try {
    // Followed: a link to a backup is read as the backup. A device or a FIFO is not read (`/dev/null` is no backup).
    kind = kindOf(statSync(source));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(
      code === "ENOENT"
        ? `no file ${source}`
        : `cannot read ${source}: ${systemErrorReason(e) ?? (e as Error).message}`,
    );
  }
  if (kind !== "a file") throw new UsageError(`--from ${source} is ${kind}, not a file: give a backup file`);
  let lock: ReturnType<typeof acquireServerLock>;
  try {
    lock = acquireServerLock(dataDir);
  } catch (e) {
    if (e instanceof LockHeldError)
      throw new CliError(
        `a server is using ${dataDir}${e.pid ? ` (pid ${e.pid})` : ""}: stop it before restoring into it`,
      );
    throw e;
  }
  let commands: ReturnType<typeof acquireRestoreLock>;
  try {
    commands = acquireRestoreLock(dataDir);
  } catch (e) {
    lock.release();
    if (e instanceof LockHeldError) throw new CliError(`another command is using ${dataDir}: restore when it ends`);
    throw e;
  }
  const target = path.join(dataDir, DB_FILE);
  const tmp = path.join(dataDir, `${DB_FILE}.restore-${process.pid}`);
  try {
    progress(`checking ${source}…\n`);
    const { db, pending } = checkBackup(source);
    try {
      progress(`restoring ${dataDir} from ${source}…\n`);
      rmSync(tmp, { force: true });
      // A copy through SQLite rather than of the file: it carries what a WAL beside the backup still holds.
      vacuumInto(db, tmp);
    } finally {
      db.close();
    }
    keepOwnership(target, tmp);
    fsyncFile(tmp);
    settleOld(target);
    for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${target}${suffix}`, { force: true });
    renameSync(tmp, target);
    fsyncFile(dataDir);
    return { bytes: statSync(target).size, file: target, pending };
  } finally {
    rmSync(tmp, { force: true });
    commands.release();
    lock.release();
  }
}

/**
 * The replaced database's owner and mode go to its replacement: a restore run with sudo would otherwise leave a
 * root-owned file the server's own user can only read, and a file kept at 0600 would come back 0644.
 */
function keepOwnership(target: string, replacement: string): void {
  let old: ReturnType<typeof statSync>;
  try {
    old = statSync(target);
  } catch {
    // None to replace (a restore into a new data directory): its owner's alone, as a database the program creates.
    chmodSync(replacement, 0o600);
    return;
  }
  chmodSync(replacement, old.mode & 0o7777);
  try {
    chownSync(replacement, old.uid, old.gid);
  } catch (e) {
    // Only root may give a file away; an unprivileged restore's files are its own user's anyway.
    if ((e as NodeJS.ErrnoException).code !== "EPERM") throw e;
  }
}

/**
 * Checkpoints the database being replaced into its own file, so that removing its -wal next loses nothing should the
 * restore stop before the rename: the old database is then still whole. A database that cannot be opened is being
 * replaced for that reason; its -wal goes as it is.
 */
function settleOld(target: string): void {
  if (!existsSync(target)) return;
  let db: Db | undefined;
  try {
    db = openDb(path.dirname(target));
    checkpointTruncate(db);
  } catch {
    // Replaced all the same.
  } finally {
    db?.close();
  }
}

/**
 * A backup is written to a temporary file, checked and renamed into place, and a restore reads its file twice (the
 * check, then the copy): neither works on a stream, so `-` is refused rather than taken for a file named "-".
 */
function refuseStream(flag: "--out" | "--from", value: string): void {
  if (value === "-")
    throw new UsageError(
      `${flag} -: ${flag === "--out" ? "standard output" : "standard input"} is not supported (a backup is a ` +
        "database file, written and checked in place): give a file name",
    );
  refuseBlank(flag, value, "give a file name");
}

/** Adds `migrate`, `backup` and `restore` to the program. */
export function registerMaintenanceCommands(program: Command): void {
  registerMigrateCommand(program);
  registerBackupCommand(program);
  registerRestoreCommand(program);
}

/** Adds `migrate` to the program. */
function registerMigrateCommand(program: Command): void {
  program
    .command("migrate")
    .description("Apply pending database migrations to an existing database (serve applies them too)")
    .option("--json", "print the applied migrations as JSON")
    .action((_opts, cmd: Command) => {
      const url = databaseUrlOf(cmd);
      if (url) return migrateAndSay(openPostgresDatabase(url), cmd);
      // A mistyped directory must not get a fresh database: `init` (or `serve`) makes one.
      const dir = dataDirOf(cmd);
      requireDatabase(dir);
      whileNoRestore(dir, () => migrateAndSay(openDatabase(dir), cmd));
    });
}

/** Applies a database's pending migrations, says which, and closes it. */
function migrateAndSay(db: MigratingConnection & { name: string; close(): void }, cmd: Command): void {
  try {
    const applied = migrate(db);
    if (wantsJson(cmd)) printJson({ applied });
    else process.stdout.write(applied.length ? `applied: ${applied.join(", ")}\n` : "up to date\n");
  } catch (e) {
    if (e instanceof MigrationMismatchError) throw new CliError(e.message);
    throw e;
  } finally {
    db.close();
  }
}

/** `backup` and `restore` copy the data directory's SQLite file: on PostgreSQL they are refused, naming its tools. */
function refusePostgres(cmd: Command, what: string): void {
  if (databaseUrlOf(cmd))
    throw new UsageError(
      `${what} the data directory's SQLite file; a PostgreSQL database is backed up with its own tools (pg_dump, ` +
        "pg_restore; docs/operations.md)",
    );
}

/** Adds `backup` to the program. */
function registerBackupCommand(program: Command): void {
  program
    .command("backup")
    .description("Write a consistent copy of the database, also while the server runs")
    .requiredOption("--out <file>", "backup file to write, a new one (not the database itself, nor a directory)")
    .option("--force", "replace --out if it exists (never a database in use: one with a -wal, -shm or -journal)")
    .option("--json", "print the result as JSON")
    .action((opts: { out: string; force?: boolean }, cmd: Command) => {
      refuseStream("--out", opts.out);
      refusePostgres(cmd, "backup copies");
      const started = Date.now();
      const dir = dataDirOf(cmd);
      const { bytes, file } = backupDatabase(dir, opts.out, (line) => process.stderr.write(line), {
        replace: opts.force === true,
      });
      if (wantsJson(cmd)) return printJson({ file, bytes, ms: Date.now() - started });
      process.stdout.write(`backup written: ${file} (${bytes} bytes)\n`);
    });
}

/** Adds `restore` to the program. */
function registerRestoreCommand(program: Command): void {
  program
    .command("restore")
    .description("Replace the database with a backup (refused while a server uses the data directory)")
    .requiredOption("--from <file>", "backup file (from `backup` or a scheduled backup)")
    .option("--json", "print the result as JSON")
    .action((opts: { from: string }, cmd: Command) => {
      refuseStream("--from", opts.from);
      refusePostgres(cmd, "restore replaces");
      const started = Date.now();
      const dir = dataDirOf(cmd);
      const { bytes, file, pending } = restoreDatabase(dir, opts.from, (line) => process.stderr.write(line));
      // An older backup: the other commands refuse its database until it is migrated.
      if (pending > 0)
        process.stderr.write(
          `note: the restored database needs ${pending} migration(s): \`serve\` applies them when it starts, or run ` +
            `\`content-service migrate --data-dir ${shellWord(dir)}\`\n`,
        );
      if (wantsJson(cmd))
        return printJson({
          file,
          from: path.resolve(opts.from),
          bytes,
          pending_migrations: pending,
          ms: Date.now() - started,
        });
      process.stdout.write(`restored: ${file} from ${path.resolve(opts.from)} (${bytes} bytes)\n`);
    });
}
