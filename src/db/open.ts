/** The one place a database connection is opened and configured. */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { loadSqliteAddon, sqliteNativeBinding } from "../runtime/assets.js";
import type { OpenConnection } from "./connection.js";

/** A connection to the data directory's SQLite database. */
export type Db = Database.Database;

/**
 * The SQLite connection an opener holds, for what only SQLite has (checkpoints, backups' copies, sandbox states); a
 * PostgreSQL connection is refused, naming `what` needed the file.
 */
export function sqliteOf(db: OpenConnection, what: string): Db {
  if (db.dialect === "postgres") throw new Error(`${what} needs the data directory's SQLite file, not PostgreSQL`);
  return db as Db;
}

// better-sqlite3 is built without URI filenames (SQLITE_USE_URI=0) and turns them on when this variable is "1" as its
// addon loads (the first connection of the process): openReadOnly needs `?immutable=1`, which only a URI can say. Every
// file this program opens is an absolute path, which reads the same with URIs on.
process.env.SQLITE_USE_URI ??= "1";

/** The file name of the database inside a data directory. */
export const DB_FILE = "content-service.db";

/** How a connection is opened: read-only, another file name, the addon's file (worker threads), group commit. */
export interface OpenOptions {
  readonly?: boolean;
  file?: string;
  /**
   * The file must be there already (a backup's copy, checked after VACUUM INTO made it): one gone meanwhile is an
   * error, not a new empty database, which its check would pass.
   */
  mustExist?: boolean;
  /**
   * `file` is an SQLite URI (`file:///…?immutable=1`, openReadOnly's), not a name in the data directory. Said here, not
   * guessed from a `file:` prefix: a backup named `file:x.db` is a file of that name in its folder.
   */
  uri?: boolean;
  /** Load the SQLite addon from this file (a worker thread of the executable; see runtime/assets.ts). */
  addonFile?: string;
  /**
   * The server's connection: commits do not fsync (synchronous = NORMAL) because the pipeline awaits a grouped
   * fsync of the WAL before answering a write (durability.ts), and it leaves checkpoints to another thread
   * (checkpoints.ts), so that the HTTP thread does not wait for the disk.
   */
  groupCommit?: boolean;
  /**
   * Two connections of the server that write (the HTTP thread's and the writer thread's, domain/writer.ts) share a
   * flag: the writer raises it for each transaction; the other, before beginning one or running a write statement
   * outside one, waits for it to fall (Atomics.wait, woken by the writer's commit) instead of SQLite's busy handler,
   * which sleeps 1, 2, 5, 10, 15, 20 ms... between tries: a 2 ms transaction of the writer cost the HTTP thread 8 ms
   * asleep. The busy handler stays behind it (another process). Should the writer thread end mid-transaction,
   * the server lowers the flag once its operation has settled (domain/writer.ts).
   */
  writeSignal?: { flag: Int32Array; role: "writer" | "waiter" };
  /**
   * Called once the file is open, before the first statement reads it: before a WAL left by a crash is recovered and
   * before any migration (serve's `database opened` log line, which the crash run's start-up kills count from).
   */
  opened?: () => void;
  /**
   * Tests: called after each step of a new database file's creation (createDbFile) with the temporary file's name,
   * to look at the folder between steps or to stop there.
   */
  createStep?: (step: CreateStep, temp: string) => void;
}

/** The steps of a new database file's creation, in order (createDbFile). */
export type CreateStep = "created" | "written" | "synced" | "placed";

/** How long a transaction waits for the writer's flag before trying anyway (busy_timeout, as the busy handler). */
const BUSY_TIMEOUT_MS = 5000;

/** Waits (blocking this thread) while the writer's flag is raised, at most `ms`. */
export function waitWhileRaised(flag: Int32Array, ms = BUSY_TIMEOUT_MS): void {
  const deadline = performance.now() + ms;
  // Sleeps only while the flag is still 1: lowered (and notified) between the check and the wait, it returns at once.
  while (Atomics.load(flag, 0) === 1) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    Atomics.wait(flag, 0, 1, left);
  }
}

/** Lowers the writer's flag and wakes its waiters (the writer's commit, or its thread ending mid-transaction). */
export function lowerFlag(flag: Int32Array): void {
  Atomics.store(flag, 0, 0);
  Atomics.notify(flag, 0);
}

/**
 * Creates a data directory (and the folders above it) for its owner alone: the database holds password and key
 * hashes and the session signing secret. With the umask's 0755 every local user could read them (and forge a
 * session with the secret); with umask 000 the folder was 0777 and anyone could swap the database. An existing
 * folder is left as it is.
 */
export function makeDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (e) {
    // Node's recursive mkdir reports ENOENT for a folder it could not make on read-only media (mkdir(2) says EROFS),
    // naming the last folder: made again one folder at a time from the top, the first that cannot be made throws its
    // own error (EROFS, EACCES, ENOTDIR), naming it. Should that succeed (another process made them meanwhile), fine.
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    const folders: string[] = [];
    for (let dir = path.resolve(dataDir); dir !== path.dirname(dir); dir = path.dirname(dir)) folders.unshift(dir);
    for (const dir of folders) {
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (step) {
        if ((step as NodeJS.ErrnoException).code !== "EEXIST") throw step;
      }
    }
  }
}

/**
 * Opens a data directory's database read-only, for the commands that only read (`keys list`, `users list`...) where
 * this user cannot write the folder or the database: read-only media (EROFS), or another owner's files (EACCES).
 * A WAL database needs its -shm, which SQLite creates beside it even to read: where it cannot, and no -wal holds
 * commits not yet in the file (a writer keeps one while it has the database open), the file is read as immutable
 * (no -shm, no locks). better-sqlite3's `readonly: true` alone fails there (SQLITE_READONLY_DIRECTORY). Immutable
 * is only right while nothing writes: a writer that starts meanwhile (its owner's server) could be read mid-checkpoint,
 * which is why it is the second choice and only without a -wal.
 */
export function openReadOnly(dataDir: string): Db {
  const file = path.join(dataDir, DB_FILE);
  refuseEmpty(file);
  const immutable = () => {
    try {
      return openDb(dataDir, { readonly: true, uri: true, file: `${pathToFileURL(file).href}${IMMUTABLE}` });
    } catch (e) {
      throw markImmutableRead(e);
    }
  };
  // Where the folder can be written but the database cannot (another user's database), SQLite would create the
  // -wal and -shm as this user, and a read-only connection cannot remove them when it closes: they would stay behind,
  // this user's, and could keep the database's owner from opening it. Without either (nothing writes, nothing is
  // pending), the file is read as immutable instead.
  // A -journal is a rollback-mode write (a `VACUUM`, a restore's old file) under way or cut short: the file may be
  // changing or half-written, which only a connection that sees the journal reads right.
  const journal = existsSync(`${file}-journal`);
  if (!journal && !existsSync(`${file}-wal`) && !existsSync(`${file}-shm`)) return immutable();
  let db: Db | undefined;
  try {
    // Its first statement (a pragma) already reads the -shm.
    db = openDb(dataDir, { readonly: true });
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (e) {
    db?.close();
    const code = (e as { code?: string }).code ?? "";
    const noShm = code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN");
    if (!noShm || journal || existsSync(`${file}-wal`)) throw e;
  }
  return immutable();
}

const IMMUTABLE = "?immutable=1";

/** Whether a connection reads its file as immutable (openReadOnly's second choice), where no lock keeps writers out. */
export function readsImmutable(db: Db): boolean {
  return db.name.endsWith(IMMUTABLE);
}

/**
 * Marks a damaged-database error met reading a file as immutable (immutableRead): the file may only be changing under
 * the read (its owner's server writing), not damaged.
 */
export function markImmutableRead(e: unknown): unknown {
  if (isDamagedDatabase(e)) Object.assign(e as object, { immutableRead: true });
  return e;
}

/** Whether a damaged-database error came from a read of a file as immutable (markImmutableRead). */
export function immutableRead(e: unknown): boolean {
  return (e as { immutableRead?: unknown } | null)?.immutableRead === true;
}

/** Whether an error is SQLite's for a file that is not a whole database (SQLITE_CORRUPT*, SQLITE_NOTADB). */
export function isDamagedDatabase(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

/** What an empty database file is refused as (refuseEmpty), a -wal beside it named after it. */
export const EMPTY_DATABASE = "the file is empty, 0 bytes";

/**
 * Refuses a database file that exists but is empty (0 bytes): what a copy cut short, a full disk or a `> file` leaves.
 * SQLite takes it for a new, empty database: `serve` had set up a new one in its place (new credentials, the old
 * data's loss unsaid) and the other commands asked for migrations. It fails as SQLite fails a file that is not a
 * database (SQLITE_NOTADB), so that every command names it and the `restore` to run. This program never leaves an
 * empty database file: a new one appears at its name already whole (createDbFile), so an empty file is another's
 * doing, and a -wal beside it (a crash's, the file truncated since) holds no database either: it is refused too.
 */
function refuseEmpty(file: string): void {
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return undefined;
    }
  };
  if (size(file) !== 0) return;
  const wal = size(`${file}-wal`);
  const beside = wal ? `, beside a ${wal}-byte -wal` : "";
  throw Object.assign(new Error(`${EMPTY_DATABASE}${beside}`), { code: "SQLITE_NOTADB" });
}

/** A database file being created (createDbFile): `<name>.creating-<pid>-<random>`, and SQLite's files beside it. */
const CREATING = /^(.*)\.creating-(\d+)-[0-9a-f]+(?:-journal|-wal|-shm)?$/;

/**
 * Creates a new database file whole: it appears at its name already a database (its first page written, WAL mode
 * persisted in its header), never empty. A file created at its name and then opened by SQLite was empty until the
 * journal_mode pragma wrote that page: a first start killed in between left an empty file, which every later start
 * refused (refuseEmpty) until it was removed by hand. The file is made under a temporary name in the same folder
 * (0600, its owner's alone: it will hold password and key hashes; its -wal and -shm take its mode), written, closed,
 * fsynced, then linked to its name and the temporary name removed, and the folder fsynced so that the name survives
 * a power loss. link, not rename: rename replaces a file that appeared at the name meanwhile (another process's
 * first start, which may already have written to it), link fails then (EEXIST) and that file is kept, this one
 * removed (placeNew, which backups share; on a file system without hard links an exclusive create takes the name
 * first).
 *
 * A crash leaves the temporary file (and a -journal beside it) behind: every writable open (openDb) removes those a
 * crash left (see staleCreation), never, as far as it can tell, one another process is making now.
 */
function createDbFile(file: string, nativeBinding: unknown, step?: (step: CreateStep, temp: string) => void): void {
  const dir = path.dirname(file);
  const temp = `${file}.creating-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      // Whatever the umask (one that takes the owner's bits too). A file system without modes (some FUSE or CIFS
      // mounts) refuses it: the file is then as that file system makes it, as before.
      fchmodSync(fd, 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw e;
    } finally {
      closeSync(fd);
    }
    step?.("created", temp);
    const db = new Database(temp, nativeBinding ? { nativeBinding: nativeBinding as string } : {});
    try {
      db.pragma("journal_mode = WAL");
    } finally {
      db.close();
    }
    step?.("written", temp);
    fsyncFile(temp);
    step?.("synced", temp);
    // Another process's file at the name is kept, this one removed.
    if (!placeNew(temp, file)) return;
    fsyncFile(dir);
    step?.("placed", temp);
  } finally {
    // Linked (or another process's file kept), failed, or stopped by a step: the temporary name goes.
    for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(`${temp}${suffix}`, { force: true });
  }
}

/**
 * What link() fails with where the file system has no hard links (vfat, exFAT, some FUSE and CIFS mounts), or refuses
 * them where a rename and an exclusive create still work (EACCES, EMLINK on some CIFS and FUSE mounts).
 */
const LINK_REFUSED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EACCES", "EMLINK"]);

/**
 * Gives the finished file `tmp` the name `target` only if nothing is there; false, and nothing done, when something
 * is (a file, a FIFO, a symbolic link, even one whose file is missing). A hard link, which fails (EEXIST) where
 * anything appeared since the caller looked, where a rename would replace it; the caller removes `tmp`. On a file
 * system without hard links the name is first taken with an exclusive create (O_EXCL, which fails the same way) and
 * `tmp` renamed over that empty file: a crash in between leaves an empty file at `target`, which restore refuses as no
 * database, rather than a moment in which another file would be replaced (as a rename after a re-check would).
 */
export function placeNew(tmp: string, target: string): boolean {
  try {
    linkSync(tmp, target);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return false;
    if (!LINK_REFUSED.has(code)) throw e;
  }
  let taken: number;
  try {
    const fd = openSync(target, "wx", 0o600);
    taken = fstatSync(fd).ino;
    closeSync(fd);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    renameSync(tmp, target);
  } catch (e) {
    // The empty file goes, if it is still the one made here.
    try {
      if (lstatSync(target).ino === taken) rmSync(target);
    } catch {}
    throw e;
  }
  return true;
}

/** Flushes a file or a folder to disk. */
export function fsyncFile(name: string): void {
  const fd = openSync(name, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes what crashed creations of `base` left in `dir` (createDbFile's temporary files and their -journal). Only
 * housekeeping: a file that cannot be removed (another owner's folder) is left, and the open goes on.
 */
function removeStaleCreations(dir: string, base: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  let database: { dev: number; ino: number } | undefined;
  try {
    database = statSync(path.join(dir, base));
  } catch {}
  for (const name of names) {
    const match = CREATING.exec(name);
    if (!match || match[1] !== base) continue;
    const temp = path.join(dir, name);
    try {
      if (staleCreation(temp, Number(match[2]), database)) rmSync(temp, { force: true });
    } catch {}
  }
}

/** How old a temporary file must be to count as a crash's (a creation takes ms), unless it is the database's name. */
const STALE_CREATION_MS = 60_000;

/**
 * Whether a temporary file of createDbFile's, made by process `pid`, was left by a crash:
 * - it is the database itself under a second name (the same inode): a creation stopped between its link and the
 *   removal of the temporary name, whoever made it; removing the name loses nothing;
 * - it is over a minute old, and its process is gone, or has this process's number but the file is older than this
 *   process (a container's server often has the same pid at each start). Not sooner: a process in another pid
 *   namespace (a container sharing the folder, perhaps pid 1 as well) looks gone, or like this one, from here while
 *   it is creating the file.
 * One made by a live process is kept; should that process be another that reused a crashed one's number, the file
 * goes once that one ends.
 */
function staleCreation(temp: string, pid: number, database: { dev: number; ino: number } | undefined): boolean {
  const stat = statSync(temp);
  if (database && stat.dev === database.dev && stat.ino === database.ino) return true;
  const old = Date.now() - stat.mtimeMs > STALE_CREATION_MS;
  // Older than this process, and a minute old: a container's other server, also pid 1, may be making it now.
  if (pid === process.pid) return stat.mtimeMs < performance.timeOrigin && old;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    // EPERM: alive, another user's.
    return (e as NodeJS.ErrnoException).code === "ESRCH" && old;
  }
}

/** Opens (creating if needed) the database of a data directory, with every pragma set here and nowhere else. */
export function openDb(dataDir: string, options: OpenOptions = {}): Db {
  if (!options.readonly && dataDir !== ":memory:") makeDataDir(dataDir);
  const file =
    dataDir === ":memory:"
      ? ":memory:"
      : options.uri && options.file !== undefined
        ? options.file
        : path.join(dataDir, options.file ?? DB_FILE);
  const nativeBinding = options.addonFile ? loadSqliteAddon(options.addonFile) : sqliteNativeBinding();
  if (!options.readonly && file !== ":memory:" && !options.uri) {
    // At every open, not only a creation's: a creation stopped after its link leaves a second name of the database.
    removeStaleCreations(path.dirname(file), path.basename(file));
    if (!existsSync(file) && !options.mustExist) createDbFile(file, nativeBinding, options.createStep);
  }
  if (file !== ":memory:" && !options.uri) refuseEmpty(file);
  const db = new Database(file, {
    readonly: options.readonly ?? false,
    fileMustExist: (options.readonly || options.mustExist) ?? false,
    ...(nativeBinding ? { nativeBinding: nativeBinding as string } : {}),
  });
  options.opened?.();
  // busy_timeout first so that the following pragmas wait for a writer in another process.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!options.readonly && file !== ":memory:") db.pragma("journal_mode = WAL");
  // A write acknowledged to a client is on disk before the answer leaves (survives kill -9 and power loss): FULL
  // fsyncs in each commit; the server's connection fsyncs in groups instead (see OpenOptions.groupCommit).
  const groupCommit = options.groupCommit === true && file !== ":memory:";
  db.pragma(groupCommit ? "synchronous = NORMAL" : "synchronous = FULL");
  if (groupCommit) {
    // A safety net only: the checkpointer keeps the WAL far shorter (checkpoints.ts). After a burst, a WAL that starts
    // over is cut back to 64 MiB.
    db.pragma("wal_autocheckpoint = 65536");
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  }
  db.pragma("foreign_keys = ON");
  // Transactions take the write lock when they begin (BEGIN IMMEDIATE), waiting up to busy_timeout for it. A deferred
  // transaction that reads, then writes, fails at once (SQLITE_BUSY_SNAPSHOT, no wait) when another process commits
  // in between: the server and the CLI write to the same file. `.deferred` stays available.
  if (!options.readonly) {
    const transaction = db.transaction.bind(db);
    const signal = options.writeSignal;
    db.transaction = ((fn: (...args: never[]) => unknown) => {
      const variants = transaction(fn);
      const run = variants.immediate;
      if (!signal) return run;
      const { flag, role } = signal;
      const signalled = function (this: unknown, ...args: never[]) {
        // A nested transaction is a savepoint of the one in progress.
        if (db.inTransaction) return run.apply(this, args);
        if (role === "waiter") {
          waitWhileRaised(flag);
          return run.apply(this, args);
        }
        Atomics.store(flag, 0, 1);
        try {
          return run.apply(this, args);
        } finally {
          lowerFlag(flag);
        }
      };
      // The variants better-sqlite3 hangs on a transaction function, read-only as there: the default and immediate
      // ones are this one; deferred and exclusive neither raise nor wait for the flag.
      const fixed = (value: unknown) => ({ value, enumerable: true });
      return Object.defineProperties(signalled, {
        default: fixed(signalled),
        immediate: fixed(signalled),
        deferred: fixed(variants.deferred),
        exclusive: fixed(variants.exclusive),
        database: fixed(db),
      });
    }) as Db["transaction"];
  }
  if (!options.readonly && options.writeSignal?.role === "waiter") waitBeforeStatements(db, options.writeSignal.flag);
  return db;
}

/**
 * A statement that writes outside a transaction (an insert on its own) waits for the writer's flag as a transaction
 * does: SQLite's busy handler would sleep 1, 2, 5, 10 ms… between tries, past the writer's commit. Statements that
 * only read, and those inside a transaction (which waited when it began), go straight through.
 */
function waitBeforeStatements(db: Db, flag: Int32Array): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((...args: Parameters<Db["prepare"]>) => {
    const statement = prepare(...args);
    if (statement.readonly) return statement;
    for (const method of ["run", "get", "all", "iterate"] as const) {
      const call = statement[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value: function (this: unknown, ...args: unknown[]) {
          if (!db.inTransaction) waitWhileRaised(flag);
          return call.apply(this, args);
        },
      });
    }
    return statement;
  }) as Db["prepare"];
}
