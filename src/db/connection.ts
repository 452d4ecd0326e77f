/**
 * What the query modules need of a database connection: prepared statements and transactions, nothing else. A
 * better-sqlite3 connection is one (test/db/connection.test.ts holds that it stays so); another storage engine stands
 * behind the same store by providing these few members. The connection's other duties (opening, migrations,
 * checkpoints, backups, closing) stay with whoever opened it.
 */

/** What a statement's run reports: the rows it changed, and the last row id it inserted (SQLite's rowid). */
export interface SqlRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/**
 * One prepared statement. `P` are its parameters: positional (`?`), or one object of named ones (`@name`). `R` is
 * what one row reads as; after `pluck()`, the first column's value.
 */
export interface SqlStatement<P extends unknown[] = unknown[], R = unknown> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  run(...params: P): SqlRunResult;
  iterate(...params: P): IterableIterator<R>;
  /** Rows read as their first column's value from now on (better-sqlite3's pluck: the statement itself). */
  pluck(toggle?: boolean): this;
}

/** Any function's type, as a transaction's body (better-sqlite3's VariableArgFunction). */
// biome-ignore lint/suspicious/noExplicitAny: a transaction takes whatever its body takes.
export type SqlBody = (...params: any[]) => unknown;

/** The parameters of a body. */
type ArgumentsOf<F extends SqlBody> = F extends (...params: infer A) => unknown ? A : never;

/** A function run in one transaction; called inside another transaction, it is a savepoint of that one. */
export interface SqlTransaction<F extends SqlBody> {
  (...params: ArgumentsOf<F>): ReturnType<F>;
  /** The same in a read transaction (BEGIN DEFERRED): every read in it sees one state of the database. */
  deferred(...params: ArgumentsOf<F>): ReturnType<F>;
  /** The same in a write transaction taken at once (BEGIN IMMEDIATE): no other writer can come between its reads. */
  immediate(...params: ArgumentsOf<F>): ReturnType<F>;
}

/** A connection as the query modules use it. */
export interface SqlConnection {
  prepare<P extends unknown[] | object = unknown[], R = unknown>(
    sql: string,
  ): P extends unknown[] ? SqlStatement<P, R> : SqlStatement<[P], R>;
  transaction<F extends SqlBody>(fn: F): SqlTransaction<F>;
  /** Whether a transaction is open (a failed statement can have rolled it back). */
  readonly inTransaction: boolean;
  /**
   * Which SQL the connection speaks where the engines differ: "postgres" for a PostgreSQL connection (src/db/pg/);
   * absent on a better-sqlite3 connection, which speaks SQLite's.
   */
  readonly dialect?: "postgres";
}

/**
 * A connection as its opener holds it (the server, a command): the store's part, scripts (migrations), its name for
 * messages, and closing. Both a better-sqlite3 connection and a PgConnection are one.
 */
export interface OpenConnection extends SqlConnection {
  exec(script: string): unknown;
  readonly name: string;
  close(): void;
}
