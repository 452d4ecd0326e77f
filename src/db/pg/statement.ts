/**
 * A prepared statement on PostgreSQL with better-sqlite3's members (src/db/connection.ts SqlStatement): rows as
 * objects keyed by column name, or the first column's value after pluck(); get/all/iterate refuse a statement that
 * returns no data, run reports the rows changed. test/db/pg/connection.test.ts holds it.
 */
import type { SqlRunResult, SqlStatement } from "../connection.js";
import type { TranslatedSql } from "./parameters.js";
import type { PgField, PgResult } from "./protocol.js";

/** How a statement runs: its connection's, which binds the arguments and tracks transactions. */
export type RunStatement = (sql: TranslatedSql, args: unknown[]) => PgResult;

/** What reading lastInsertRowid on PostgreSQL says: there is no rowid, the statement must return the id itself. */
export const NO_ROWID_MESSAGE =
  "lastInsertRowid: PostgreSQL has no rowid; write INSERT … RETURNING id and read the id with get() or pluck().get()";

/** One prepared statement of a PgConnection. */
export class PgStatement implements SqlStatement<unknown[], unknown> {
  private plucked = false;

  constructor(
    private readonly sql: TranslatedSql,
    private readonly execute: RunStatement,
  ) {}

  /** The first row, or undefined when there is none. */
  get(...params: unknown[]): unknown {
    const result = this.read(params);
    return result.rows.length > 0 ? this.shape(result.rows[0]!, result.fields) : undefined;
  }

  /** Every row. */
  all(...params: unknown[]): unknown[] {
    const result = this.read(params);
    return result.rows.map((row) => this.shape(row, result.fields));
  }

  /** The rows one by one (all of them are read first: the connection holds no cursor open between calls). */
  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.all(...params)[Symbol.iterator]();
  }

  /** Runs the statement: `changes` is PostgreSQL's row count; lastInsertRowid throws NO_ROWID_MESSAGE. */
  run(...params: unknown[]): SqlRunResult {
    return runResult(this.execute(this.sql, params).rowCount);
  }

  /** Rows read as their first column's value from now on (or again as objects with `false`): the statement. */
  pluck(toggle = true): this {
    this.plucked = toggle;
    return this;
  }

  private read(params: unknown[]): PgResult {
    const result = this.execute(this.sql, params);
    // better-sqlite3 refuses get/all on a statement without result columns, before it runs; here it has run.
    if (result.fields.length === 0) throw new TypeError("This statement does not return data. Use run() instead");
    return result;
  }

  private shape(values: unknown[], fields: PgField[]): unknown {
    if (this.plucked) return values[0];
    const row: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) row[fields[i]!.name] = values[i];
    return row;
  }
}

/** A run's report; lastInsertRowid is a getter that throws, left out of enumeration so that logging the report works. */
function runResult(changes: number): SqlRunResult {
  const result = { changes } as SqlRunResult;
  return Object.defineProperty(result, "lastInsertRowid", {
    enumerable: false,
    get(): never {
      throw new TypeError(NO_ROWID_MESSAGE);
    },
  });
}
