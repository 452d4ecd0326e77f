/** The HTTP rendering of an ApiError: its status word, DESIGN §3's body, and what becomes one of an unknown error. */
import { PgError, PgUnavailableError } from "../db/pg/errors.js";
import { ApiError } from "../domain/errors.js";
import { TaskHeapLimitError, TaskLimitError } from "../runtime/task-pool.js";

/** The `error` word of the body for each status. */
export const STATUS_WORDS: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  408: "REQUEST_TIMEOUT",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_ENTITY",
  431: "REQUEST_HEADER_FIELDS_TOO_LARGE",
  429: "RATE_LIMITED",
  500: "INTERNAL",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
  507: "INSUFFICIENT_STORAGE",
};

/** The JSON body of every error response (DESIGN §3). */
export interface ErrorBody {
  error: string;
  message: string;
  details: Record<string, unknown>;
  detail: Record<string, unknown>;
  trace_id: string;
}

/** Builds the body of an ApiError; 401 carries no error_code requirement but gets one for uniformity. */
export function errorBody(err: ApiError, traceId: string): ErrorBody {
  const details = { error_code: err.code, ...err.details };
  return {
    error: STATUS_WORDS[err.status] ?? "ERROR",
    message: err.message,
    details,
    detail: details,
    trace_id: traceId,
  };
}

/** Turns anything thrown into an ApiError; unknown errors become a generic 500 (never a stack). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof TaskHeapLimitError)
    return new ApiError(
      "processing_limit_exceeded",
      `Processing this input needed more than the ${err.limitMb} MB of memory the server gives one request, and was ` +
        "stopped. Send a shorter or simpler input.",
      { limit_heap_mb: err.limitMb },
    );
  if (err instanceof TaskLimitError)
    return new ApiError(
      "processing_limit_exceeded",
      `Processing this input took more than the ${err.limitMs / 1000} s of processing time the server gives one ` +
        "request, and was stopped. Send a shorter or simpler input.",
      { limit_cpu_seconds: err.limitMs / 1000 },
    );
  if (isBusy(err))
    return new ApiError(
      "service_busy",
      "The database stayed locked by another writer (a command-line tool, another process) for longer than the server waits. Retry shortly.",
      { retry_after_seconds: BUSY_RETRY_SECONDS },
      { "retry-after": String(BUSY_RETRY_SECONDS) },
    );
  if (err instanceof PgUnavailableError)
    return new ApiError(
      "service_busy",
      "The database server (PostgreSQL) did not answer: it may be restarting. Retry shortly.",
      { retry_after_seconds: BUSY_RETRY_SECONDS },
      { "retry-after": String(BUSY_RETRY_SECONDS) },
    );
  if (isStorageFull(err))
    return new ApiError(
      "storage_full",
      "The server's disk is full: the write was not stored (nothing of it is kept). Retry once room has been made.",
    );
  return new ApiError("internal_error", "The server met an unexpected error.");
}

/**
 * A write that found no room on the disk: SQLite's SQLITE_FULL, its transaction rolled back whole. It answers 507
 * storage_full rather than 500 internal_error, which would tell a client nothing it can act on: writes work again
 * once there is room, without a restart. A failed fsync (ENOSPC there included) is not one: it stops every write until a restart (durability.ts)
 * and stays a 500.
 */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof PgError) return POSTGRES_FULL.has(code as string);
  return typeof code === "string" && /^SQLITE_FULL(_|$)/.test(code);
}

/** PostgreSQL's SQLSTATE of a full disk (disk_full): its transaction is rolled back whole, as SQLite's. */
const POSTGRES_FULL = new Set(["53100"]);

/** How long a client is told to wait before retrying after a busy database. */
const BUSY_RETRY_SECONDS = 1;

/**
 * SQLite's "the database is locked" (SQLITE_BUSY and its extended codes): another connection held the write lock
 * longer than busy_timeout (db/open.ts). The transaction that met it did not run. SQLITE_LOCKED is not one: it is a
 * conflict within one connection, a bug, and stays a 500.
 */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof PgError) return POSTGRES_BUSY.has(code as string);
  return typeof code === "string" && /^SQLITE_BUSY(_|$)/.test(code);
}

/**
 * PostgreSQL's SQLSTATEs of a transaction that met another and did not run: a serialization failure, a deadlock, a
 * lock not available in time, too many connections. Retried, it runs.
 */
const POSTGRES_BUSY = new Set(["40001", "40P01", "55P03", "53300"]);
