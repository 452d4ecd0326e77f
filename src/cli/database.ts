/**
 * Opening a data directory's database for a command: under the maintenance lock (no restore meanwhile), read-only
 * where this user cannot write, and as a store only once it is up to date.
 */
import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
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
import { openPostgres, type PgConnection, shownUrl } from "../db/pg/connection.js";
import { createStore, type Store } from "../db/store.js";
import { ApiError } from "../domain/errors.js";
import { damagedMessage, dataDirOf, requireDatabase, requireWritable, unreadable, unwritable } from "./data-dir.js";
import { databaseUrlOf } from "./database-url.js";
import { CliError } from "./errors.js";
import { holdCommandLock, LockHeldError, MAINTENANCE_LOCK_FILE } from "./lock.js";
import { shellWord } from "./output.js";

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

/** Opens an initialised, up-to-date database and runs `fn` with its store, closing it afterwards. */
export async function withStore<T>(cmd: Command, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const url = databaseUrlOf(cmd);
  if (url) return postgresStoreOf(url, fn);
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
  const url = databaseUrlOf(cmd);
  if (url) return postgresStoreOf(url, fn);
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

/**
 * Connects to a PostgreSQL database for a command; a failure names the database (without its password). Neither the
 * data directory's lock nor its files are involved: PostgreSQL serializes the writers of every server and command.
 */
export function openPostgresDatabase(url: string): PgConnection {
  try {
    return openPostgres(url);
  } catch (e) {
    throw new CliError(`cannot connect to ${shownUrl(url)}: ${(e as Error).message}`);
  }
}

/** As storeOf, on a PostgreSQL database: up to date, or the command says to migrate it first. */
async function postgresStoreOf<T>(url: string, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const db = openPostgresDatabase(url);
  try {
    const pending = pendingMigrations(db);
    if (pending.length > 0)
      throw new CliError(
        `${fileOf(db)} needs ${pending.length} migration(s): run \`content-service migrate --database-url URL\` first`,
      );
    return await fn(createStore(db));
  } catch (e) {
    if (e instanceof ApiError) throw new CliError(e.message);
    throw e;
  } finally {
    db.close();
  }
}
