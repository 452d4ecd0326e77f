/**
 * The database as a worker thread sees it: a connection of the thread's own to the server's database file, opened on
 * first use and kept (one per data directory), so that the text a task works on is read where the task runs and
 * never crosses the HTTP thread (see domain/writer.ts).
 */
import { openDb } from "./open.js";
import { createStore, type Store } from "./store.js";

/** Where a worker thread finds the database, and how it loads the SQLite addon (runtime/assets.ts). */
export interface DbLocation {
  dataDir: string;
  addonFile?: string;
  /** The server's write flag (open.ts writeSignal), shared with the thread: the writer thread raises it. */
  writeSignal?: Int32Array;
}

const stores = new Map<string, Store>();

/**
 * This thread's store of a database. `groupCommit`: its commits do not fsync; the server's group commit covers them,
 * and its transactions raise the location's write flag (the writer's connection; see open.ts). `readonly`: a thread
 * that only reads (learning analyses, the graph's extractions) never takes the write lock. A thread opens a data
 * directory with one setting only.
 */
export function threadStore(location: DbLocation, options: { groupCommit?: boolean; readonly?: boolean } = {}): Store {
  let store = stores.get(location.dataDir);
  if (!store) {
    const { addonFile, writeSignal } = location;
    store = createStore(
      openDb(location.dataDir, {
        addonFile,
        groupCommit: options.groupCommit,
        readonly: options.readonly,
        writeSignal: options.groupCommit && writeSignal ? { flag: writeSignal, role: "writer" } : undefined,
      }),
    );
    stores.set(location.dataDir, store);
  }
  return store;
}

/** Closes this thread's connection to a database (at shutdown). */
export function closeThreadStore(location: DbLocation): void {
  stores.get(location.dataDir)?.db.close();
  stores.delete(location.dataDir);
}
