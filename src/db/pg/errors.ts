/**
 * The two ways a PostgreSQL call fails: the server refused the statement (PgError, with its SQLSTATE), or there is
 * no server to ask (PgUnavailableError: refused or lost connection, no answer in time). The first is the caller's
 * to handle as SQLite's constraint errors are; the second is transient, and the HTTP layer answers it 503.
 */

/** What the server said of a statement it refused: the fields of its ErrorResponse the callers read. */
export interface PgErrorFields {
  /** The SQLSTATE, such as 23505 (unique_violation). */
  code: string;
  message: string;
  detail?: string;
  hint?: string;
  constraint?: string;
  table?: string;
  column?: string;
  severity?: string;
}

/** A statement PostgreSQL refused: `code` is its SQLSTATE (23505 a unique violation, 23503 a foreign key …). */
export class PgError extends Error {
  /** The SQLSTATE: five characters, the first two its class (23 integrity constraint violation). */
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly constraint?: string;
  readonly table?: string;
  readonly column?: string;
  readonly severity?: string;

  constructor(fields: PgErrorFields) {
    super(fields.message);
    this.name = "PgError";
    this.code = fields.code;
    this.detail = fields.detail;
    this.hint = fields.hint;
    this.constraint = fields.constraint;
    this.table = fields.table;
    this.column = fields.column;
    this.severity = fields.severity;
  }
}

/**
 * No PostgreSQL server answered: the connection was refused or lost (a restart, pg_terminate_backend, a network
 * fault), or no answer came within the client's bound. Transient by nature: the next call connects again, and the
 * HTTP layer answers 503 service_busy with Retry-After meanwhile. `code` is the system's or the server's code of the
 * cause where there is one (ECONNREFUSED, 57P01).
 */
export class PgUnavailableError extends Error {
  /** The cause's code (a system error code such as ECONNREFUSED, or an SQLSTATE such as 57P01), when known. */
  readonly code?: string;

  constructor(message: string, code?: string) {
    super(message);
    this.name = "PgUnavailableError";
    this.code = code;
  }
}
