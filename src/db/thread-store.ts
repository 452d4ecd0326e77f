/**
 * The database as a worker thread sees it: a connection of the thread's own to the server's database file, opened on
 * first use and kept (one per data directory), so that the text a task works on is read where the task runs and
 * never crosses the HTTP thread (see domain/writer.ts).
 */
import { type Db, openDb } from "./open.js";
import { createStore, type Store } from "./store.js";

/** Where a worker thread finds the database, and how it loads the SQLite addon (runtime/assets.ts). */
export interface DbLocation {
  dataDir: string;
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
  db: Db;
  store: Store;
}

const connections = new Map<string, ThreadConnection>();

/** This thread's connection to a database, opened with `options` on first use. */
function connectionOf(location: DbLocation, options: ThreadOptions): ThreadConnection {
  let connection = connections.get(location.dataDir);
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

/** The connection under this thread's store of a database, for what db/ runs on it outside the store (checkpoints). */
export function threadDb(location: DbLocation, options: ThreadOptions = {}): Db {
  return connectionOf(location, options).db;
}

/** Closes this thread's connection to a database (at shutdown). */
export function closeThreadStore(location: DbLocation): void {
  connections.get(location.dataDir)?.db.close();
  connections.delete(location.dataDir);
}
