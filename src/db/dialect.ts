/**
 * The few places where the query modules' SQL differs between SQLite and PostgreSQL. Every other statement is one
 * text that both engines run alike; where no such text exists (JSON functions, instr, GLOB, the catalog, index
 * hints), the statement names both texts side by side through sqlFor. test/db/dialect.test.ts holds that the
 * PostgreSQL texts use none of SQLite's own forms, and that each statement answers alike on both engines.
 */
import type { SqlConnection } from "./connection.js";

/** Whether the connection speaks PostgreSQL's SQL (src/db/pg/), rather than SQLite's. */
export function isPostgres(db: SqlConnection): boolean {
  return db.dialect === "postgres";
}

/** The text of one statement (or of one part of it) for the connection's engine. */
export function sqlFor(db: SqlConnection, texts: { sqlite: string; postgres: string }): string {
  return isPostgres(db) ? texts.postgres : texts.sqlite;
}

/**
 * An index hint after a table name: SQLite's INDEXED BY, so that a plan without statistics takes the index the
 * statement was written for (and a dropped index is an error, not a slow read); nothing on PostgreSQL, which has no
 * hints and plans from its statistics.
 */
export function indexedBy(db: SqlConnection, index: string): string {
  return sqlFor(db, { sqlite: `INDEXED BY ${index}`, postgres: "" });
}

/**
 * The rows of a JSON array of integers bound as text (`param`, e.g. "@ids"), as a FROM item `alias` with columns
 * `value` (the integer) and `key` (its position, for ORDER BY: the order asked for). SQLite's json_each; on
 * PostgreSQL json_array_elements_text, numbered WITH ORDINALITY.
 */
export function jsonIntegers(db: SqlConnection, param: string, alias: string): string {
  return sqlFor(db, {
    sqlite: `json_each(${param}) AS ${alias}`,
    postgres: `(SELECT CAST(e.value AS BIGINT) AS value, e.key
      FROM json_array_elements_text(CAST(${param} AS json)) WITH ORDINALITY AS e(value, key)) AS ${alias}`,
  });
}

/** The texts of a JSON array of strings bound as text (`param`), as a subquery for `IN (…)`. */
export function jsonTexts(db: SqlConnection, param: string): string {
  return sqlFor(db, {
    sqlite: `SELECT value FROM json_each(${param})`,
    postgres: `SELECT json_array_elements_text(CAST(${param} AS json))`,
  });
}

/**
 * The name of the function that finds a text in another (1-based position, 0 when absent): instr(haystack, needle)
 * in SQLite, strpos(haystack, needle) in PostgreSQL, the same arguments in the same order.
 */
export function positionFunction(db: SqlConnection): string {
  return sqlFor(db, { sqlite: "instr", postgres: "strpos" });
}
