/** The one error type of the API, its code → status map and the renderer of DESIGN §3's body. */
import { TaskLimitError } from "../workers/limits.js";

/** Every error_code the API can answer with, mapped to its HTTP status and `error` word. */
export const ERROR_CODES = {
  validation_failed: 400,
  invalid_json: 400,
  workspace_required: 400,
  authorization_pending: 400,
  device_code_expired: 400,
  oauth_not_configured: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  workspace_mismatch: 403,
  plan_upgrade_required: 403,
  admin_required: 403,
  route_not_found: 404,
  account_not_found: 404,
  api_key_not_found: 404,
  content_not_found: 404,
  conversion_not_found: 404,
  device_code_not_found: 404,
  image_not_found: 404,
  learning_job_not_found: 404,
  memory_not_found: 404,
  reference_material_not_found: 404,
  template_not_found: 404,
  user_not_found: 404,
  voice_profile_not_found: 404,
  workspace_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_status: 409,
  idempotency_key_reused: 409,
  idempotency_response_not_kept: 409,
  billing_managed_locally: 409,
  workspace_not_empty: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_image_type: 415,
  processing_limit_exceeded: 422,
  output_too_large: 422,
  request_headers_too_large: 431,
  rate_limit_exceeded: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  upstream_error: 502,
  upstream_invalid_response: 502,
  upstream_timeout: 504,
  service_busy: 503,
  storage_full: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

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

/** An error that the renderer turns into the coded JSON body; thrown anywhere below a route. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_CODES[code];
    this.details = details;
    this.headers = headers;
  }
}

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
  if (isStorageFull(err))
    return new ApiError(
      "storage_full",
      "The server's disk is full: the write was not stored (nothing of it is kept). Retry once room has been made.",
    );
  return new ApiError("internal_error", "The server met an unexpected error.");
}

/**
 * A write that found no room on the disk: SQLite's SQLITE_FULL, its transaction rolled back whole. It had been a 500
 * internal_error, which tells a client nothing it can act on; writes work again once there is room, without a
 * restart. A failed fsync (ENOSPC there included) is not one: it stops every write until a restart (durability.ts)
 * and stays a 500.
 */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_FULL(_|$)/.test(code);
}

/** How long a client is told to wait before retrying after a busy database. */
const BUSY_RETRY_SECONDS = 1;

/**
 * SQLite's "the database is locked" (SQLITE_BUSY and its extended codes): another connection held the write lock
 * longer than busy_timeout (db/open.ts). The transaction that met it did not run. SQLITE_LOCKED is not one: it is a
 * conflict within one connection, a bug, and stays a 500.
 */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_BUSY(_|$)/.test(code);
}

/**
 * 400 validation_failed with one issue (DESIGN §4): `path` names the field as the request carries it (`body.…`,
 * `query.…`, `header.…`); `issue` says what is wrong in plain words, naming the field as a schema's issue does
 * (`from must be a day on or before to (2030-01-31)`: http/messages.ts), and is the message unless one is given.
 */
export function invalidInput(path: string, issue: string, message = issue): ApiError {
  return new ApiError("validation_failed", message, { issues: [{ path, message: issue }] });
}

/** Shorthand for the 404 of a missing record. */
export function notFound(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return new ApiError(code, message, details);
}

/**
 * 409 invalid_status: a record whose status forbids the change, with the status it has and the ones it needs
 * (`required_status` a string for one, as /api/v1 has always answered; `required_statuses` always an array), and
 * `more` details of the record's own (its id).
 */
export function invalidStatus(
  message: string,
  current: string,
  allowed: readonly string[],
  more: Record<string, unknown> = {},
): ApiError {
  return new ApiError("invalid_status", message, {
    current_status: current,
    required_status: allowed.length === 1 ? allowed[0] : allowed,
    required_statuses: allowed,
    ...more,
  });
}

/** 404: a workspace that is not the caller's, or no longer exists; `where`, the place it was looked for in. */
export function workspaceNotFound(id: string, where?: string): ApiError {
  return new ApiError("workspace_not_found", `No workspace ${id}${where ? ` in ${where}` : ""}.`, {
    workspace_id: id,
  });
}

/** 403: a key bound to one workspace named, or reached a record of, another. */
export function workspaceMismatch(bound: string, requested: string): ApiError {
  return new ApiError(
    "workspace_mismatch",
    `This API key is bound to workspace ${bound} and cannot act on workspace ${requested}.`,
    { bound_workspace_id: bound, requested_workspace_id: requested },
  );
}
