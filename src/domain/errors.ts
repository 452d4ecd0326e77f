/**
 * The one error type of the API and its codes, thrown anywhere below a route (the domain, the store's callers, the
 * routes); http/errors.ts renders it as DESIGN §3's body.
 */

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
  entity_not_found: 404,
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
  fault_rule_not_found: 404,
  snapshot_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_status: 409,
  idempotency_key_reused: 409,
  idempotency_response_not_kept: 409,
  billing_managed_locally: 409,
  workspace_not_empty: 409,
  last_workspace: 409,
  api_key_limit_reached: 409,
  template_built_in: 409,
  template_name_taken: 409,
  template_limit_reached: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_image_type: 415,
  processing_limit_exceeded: 422,
  output_too_large: 422,
  request_headers_too_large: 431,
  rate_limit_exceeded: 429,
  sign_in_backoff: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  upstream_error: 502,
  upstream_invalid_response: 502,
  upstream_timeout: 504,
  service_busy: 503,
  storage_full: 507,
  storage_quota_exceeded: 507,
} as const;

/** One of the error codes of ERROR_CODES. */
export type ErrorCode = keyof typeof ERROR_CODES;

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
