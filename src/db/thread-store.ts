/**
 * The database as a worker thread sees it: a connection of the thread's own to the server's database file, opened on
 * first use and kept (one per data directory), so that the text a task works on is read where the task runs and
 * never crosses the HTTP thread (see domain/writer.ts).
 */
import type { OpenConnection } from "./connection.js";
import { type Db, openDb, sqliteOf } from "./open.js";
import { openPostgres } from "./pg/connection.js";
import { createStore, type Store } from "./store.js";

/** Where a worker thread finds the database, and how it loads the SQLite addon (runtime/assets.ts). */
export interface DbLocation {
  dataDir: string;
  /** The PostgreSQL database the server runs on (`serve --database-url`) instead of the data directory's file. */
  databaseUrl?: string;
  addonFile?: string;
  /** The server's write flag (open.ts writeSignal), shared with the thread: the writer thread raises it. */
  writeSignal?: Int32Array;
}

/** Options of a thread's connection; see threadStore. */
interface ThreadOptions {
  groupCommit?: boolean;
  readonly?: boolean;
}

/** A thread's connection and the store over it: the store has no handle of its own to close or checkpoint with. */
interface ThreadConnection {
  db: OpenConnection;
  store: Store;
}

const connections = new Map<string, ThreadConnection>();

/** This thread's connection to a database, opened with `options` on first use. */
function connectionOf(location: DbLocation, options: ThreadOptions): ThreadConnection {
  let connection = connections.get(location.dataDir);
  if (!connection && location.databaseUrl) {
    // A PostgreSQL connection commits durably itself, and readers never hold a writer back: the options are SQLite's.
    const db = openPostgres(location.databaseUrl);
    connection = { db, store: createStore(db) };
    connections.set(location.dataDir, connection);
  }
  if (!connection) {
    const { addonFile, writeSignal } = location;
    const db = openDb(location.dataDir, {
      addonFile,
      groupCommit: options.groupCommit,
      readonly: options.readonly,
      writeSignal: options.groupCommit && writeSignal ? { flag: writeSignal, role: "writer" } : undefined,
    });
    connection = { db, store: createStore(db) };
    connections.set(location.dataDir, connection);
  }
  return connection;
}

/**
 * This thread's store of a database. `groupCommit`: its commits do not fsync; the server's group commit covers them,
 * and its transactions raise the location's write flag (the writer's connection; see open.ts). `readonly`: a thread
 * that only reads (learning analyses, the graph's extractions) never takes the write lock. A thread opens a data
 * directory with one setting only.
 */
export function threadStore(location: DbLocation, options: ThreadOptions = {}): Store {
  return connectionOf(location, options).store;
}

/**
 * The SQLite connection under this thread's store of a database, for what db/ runs on it outside the store
 * (checkpoints, backups' copies): none of it runs on PostgreSQL, which has its own.
 */
export function threadDb(location: DbLocation, options: ThreadOptions = {}): Db {
  return sqliteOf(connectionOf(location, options).db, "a checkpoint or a backup's copy");
}

/** Closes this thread's connection to a database (at shutdown). */
export function closeThreadStore(location: DbLocation): void {
  connections.get(location.dataDir)?.db.close();
  connections.delete(location.dataDir);
}
