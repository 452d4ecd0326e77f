/** Every query module of one connection, prepared once. */
import { accountQueries } from "./accounts.js";
import { apiKeyQueries } from "./apikeys.js";
import type { SqlConnection } from "./connection.js";
import { contentQueries } from "./contents.js";
import { conversionQueries } from "./conversions.js";
import { graphQueries } from "./graph.js";
import { idempotencyQueries } from "./idempotency.js";
import { imageQueries } from "./images.js";
import { learningQueries } from "./learning.js";
import { libraryQueries } from "./library.js";
import { miscQueries } from "./misc.js";
import { periodicQueries } from "./periodic.js";
import { rateBucketQueries } from "./rate-buckets.js";
import { signInBackoffQueries } from "./sign-in-backoff.js";
import { storageQueries } from "./storage.js";
import { usageQueries } from "./usage.js";
import { userQueries } from "./users.js";
import { workspaceQueries } from "./workspaces.js";

/**
 * The named queries the rest of the program uses over one connection; nothing else writes SQL. The connection itself
 * stays with whoever opened it (migrations, checkpoints, backups, closing): the store's interface names no
 * better-sqlite3 type, so that another storage engine can stand behind it (test/db/store.test.ts holds that).
 * `now` stamps the audit log's rows: the server's clock (sandbox mode's test clock), real time elsewhere.
 */
export function createStore(db: SqlConnection, now: () => number = Date.now) {
  return {
    /** Runs `fn` in one transaction and returns its value; a call inside another transaction is a savepoint of it. */
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    /** Runs `fn` in one read transaction (BEGIN DEFERRED), so that all its reads see one state of the database. */
    readTransaction: <T>(fn: () => T): T => db.transaction(fn).deferred(),
    /** Whether a transaction is open on this connection (a failed statement can have rolled it back). */
    inTransaction: (): boolean => db.inTransaction,
    accounts: accountQueries(db),
    workspaces: workspaceQueries(db),
    users: userQueries(db),
    apiKeys: apiKeyQueries(db),
    misc: miscQueries(db, now),
    ...libraryQueries(db),
    images: imageQueries(db),
    contents: contentQueries(db),
    learning: learningQueries(db),
    periodic: periodicQueries(db),
    conversions: conversionQueries(db),
    graph: graphQueries(db),
    usage: usageQueries(db),
    idempotency: idempotencyQueries(db),
    signInBackoff: signInBackoffQueries(db),
    storage: storageQueries(db),
    rateBuckets: rateBucketQueries(db),
  };
}

/** The store of one connection: every named query, and transactions over them. */
export type Store = ReturnType<typeof createStore>;
