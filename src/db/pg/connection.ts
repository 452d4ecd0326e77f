/**
 * The store's connection (src/db/connection.ts SqlConnection) on PostgreSQL, synchronous as better-sqlite3's: it
 * prepares statements written with SQLite's parameters (parameters.ts) and runs them over a SyncPgClient
 * (sync-client.ts), and runs transactions with SQLite's guarantees across every server on the database (see
 * PgConnection.transaction). test/db/pg/connection.test.ts and transactions.test.ts hold it.
 */
import type { SqlBody, SqlConnection, SqlStatement, SqlTransaction } from "../connection.js";
import { PgError, PgUnavailableError } from "./errors.js";
import { bind, type TranslatedSql, translate } from "./parameters.js";
import type { PgResult } from "./protocol.js";
import { PgStatement } from "./statement.js";
import { SyncPgClient, type SyncPgClientOptions } from "./sync-client.js";

/**
 * The advisory lock every write transaction holds (pg_advisory_xact_lock), on every connection of every server:
 * one fixed key, so that write transactions run one at a time as SQLite's do. Nothing else in the database may use
 * this key.
 */
export const WRITE_LOCK_KEY = 3_400_034;

/**
 * A write transaction: READ COMMITTED (PostgreSQL's default), which gives each statement a snapshot taken when it
 * starts, so that every statement after the lock sees what the previous writer committed. Under REPEATABLE READ the
 * snapshot would be the lock statement's own, taken before the lock was granted, and a writer would miss the commit
 * it had waited for.
 */
const BEGIN_WRITE = `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`;

/** A read transaction: one snapshot for every statement (SQLite's deferred read), no lock, no write allowed. */
const BEGIN_READ = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

/** The savepoint of a nested transaction; one name serves every level (a ROLLBACK TO takes the innermost). */
const SAVEPOINT = "cs_savepoint";

/** What a transaction reads from its first statement on: "write" takes the write lock, "read" one snapshot. */
type TransactionKind = "write" | "read";

/** A SqlConnection to PostgreSQL. */
export class PgConnection implements SqlConnection {
  /** The store's queries read this where the engines' SQL differs. */
  readonly dialect = "postgres" as const;
  /** 0 outside a transaction, 1 in one, one more per savepoint inside it. */
  private depth = 0;
  /** The connection was lost inside the open transaction: the server has rolled it back. */
  private lost = false;

  /**
   * @param name what messages call the database: its URL without the password (shownUrl), never the password
   */
  constructor(
    private readonly client: SyncPgClient,
    readonly name = "the PostgreSQL database",
  ) {}

  /** Whether a transaction is open: false again once it ends, fails to commit, or its connection is lost. */
  get inTransaction(): boolean {
    return this.depth > 0 && !this.lost;
  }

  /** A statement of SQLite-style SQL (`?`, `@name`): its translation is computed once per text. */
  prepare<P extends unknown[] | object = unknown[], R = unknown>(
    sql: string,
  ): P extends unknown[] ? SqlStatement<P, R> : SqlStatement<[P], R> {
    return new PgStatement(translate(sql), this.runStatement) as never;
  }

  /** Runs a script of statements without parameters (migrations): the connection. */
  exec(script: string): this {
    this.send(() => this.client.exec(script));
    return this;
  }

  /** Ends the connection and its thread. */
  close(): void {
    this.client.close();
  }

  /**
   * `fn` in a transaction, with better-sqlite3's variants and nesting. Called plainly or `.immediate`, a write
   * transaction: BEGIN, then the write lock (WRITE_LOCK_KEY), so that write transactions are serialized across all
   * connections of all servers exactly as SQLite serializes its writers, and none reads a state another writer is
   * about to change. `.deferred`, a read transaction: one REPEATABLE READ snapshot, read-only. Called inside a
   * transaction, any variant is a SAVEPOINT of it, rolled back alone when its body throws. The body's error rolls
   * back and is rethrown; a body that returns a promise is refused (its awaits would run outside the transaction).
   */
  transaction<F extends SqlBody>(fn: F): SqlTransaction<F> {
    const connection = this;
    const write = function (this: unknown, ...args: unknown[]) {
      return connection.within("write", fn, this, args);
    };
    const read = function (this: unknown, ...args: unknown[]) {
      return connection.within("read", fn, this, args);
    };
    return Object.assign(write, { deferred: read, immediate: write }) as unknown as SqlTransaction<F>;
  }

  private readonly runStatement = (sql: TranslatedSql, args: unknown[]): PgResult => {
    const values = bind(sql, args);
    return this.send(() => this.client.query(sql.text, values));
  };

  /** A call to the server; a connection lost inside a transaction makes the rest of it fail (see `lost`). */
  private send<T>(call: () => T): T {
    if (this.lost) {
      // The next call would connect again and run outside the transaction, whose earlier statements are undone.
      throw new PgUnavailableError("the connection to PostgreSQL was lost in this transaction; it was rolled back");
    }
    try {
      return call();
    } catch (error) {
      if (error instanceof PgUnavailableError && this.depth > 0) this.lost = true;
      throw error;
    }
  }

  private within(kind: TransactionKind, fn: SqlBody, self: unknown, args: unknown[]): unknown {
    if (this.depth > 0) return this.savepoint(fn, self, args);
    this.depth = 1;
    try {
      this.send(() => this.client.exec(kind === "write" ? BEGIN_WRITE : BEGIN_READ));
      const result = settled(fn.apply(self, args));
      this.commit();
      return result;
    } catch (error) {
      this.quietly("ROLLBACK");
      throw error;
    } finally {
      this.depth = 0;
      this.lost = false;
    }
  }

  /**
   * COMMIT, which PostgreSQL answers ROLLBACK (no error) when a statement of the transaction failed: SQLite goes on
   * after a failed statement, PostgreSQL aborts the whole transaction at it. That is an error here, not a silent
   * loss of the transaction's writes; a body that means to go on after a failure runs that part as a nested
   * transaction, whose savepoint undoes the failure alone.
   */
  private commit(): void {
    const result = this.send(() => this.client.exec("COMMIT"));
    if (result.command === "ROLLBACK") {
      throw new PgError({
        code: "25P02",
        message: "the transaction was rolled back: a statement in it failed, which aborts a PostgreSQL transaction",
      });
    }
  }

  private savepoint(fn: SqlBody, self: unknown, args: unknown[]): unknown {
    this.send(() => this.client.exec(`SAVEPOINT ${SAVEPOINT}`));
    this.depth++;
    try {
      const result = settled(fn.apply(self, args));
      this.send(() => this.client.exec(`RELEASE SAVEPOINT ${SAVEPOINT}`));
      return result;
    } catch (error) {
      this.quietly(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}; RELEASE SAVEPOINT ${SAVEPOINT}`);
      throw error;
    } finally {
      this.depth--;
    }
  }

  /** Undoes after a failure; its own failure is dropped for the body's error (a lost connection undid it anyway). */
  private quietly(script: string): void {
    if (this.lost) return;
    try {
      this.client.exec(script);
    } catch {
      // The body's error is the one to report; the server ends the transaction with the connection.
    }
  }
}

/** A body's result; a promise is refused as better-sqlite3 refuses it. */
function settled(result: unknown): unknown {
  if (typeof (result as { then?: unknown } | null)?.then === "function")
    throw new TypeError("Transaction function cannot return a promise");
  return result;
}

/** A database URL as messages and logs show it: its password left out. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return parsed.href;
    const user = parsed.username ? `${parsed.username}:` : ":";
    return `${parsed.protocol}//${user}***@${parsed.host}${parsed.pathname}`;
  } catch {
    return "the PostgreSQL database";
  }
}

/** Whether a string is a PostgreSQL connection URL (postgres:// or postgresql://). */
export function isPostgresUrl(url: string): boolean {
  try {
    return ["postgres:", "postgresql:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * A connection to the database at `url` (postgres://user:password@host:port/database), connected now: a wrong URL,
 * a refused password or a missing server fails here rather than at the first request.
 */
export function openPostgres(url: string, options: SyncPgClientOptions = {}): PgConnection {
  if (!isPostgresUrl(url))
    throw new TypeError("the database URL must be a postgres:// URL (postgres://user:password@host:port/database)");
  const client = new SyncPgClient(url, options);
  try {
    client.connect();
  } catch (error) {
    client.close();
    throw error;
  }
  return new PgConnection(client, shownUrl(url));
}
