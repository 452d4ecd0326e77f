/**
 * The error a code asked for (Prefer `error_code=`/`status=`, a fault rule's answer) as the server raises it, where
 * it raises it in one way: built by the function that raises it, so that its message and details are the server's
 * own, never a second copy of them. A code raised in many ways, each with its own words (validation_failed,
 * unauthorized, the *_not_found codes), answers a message saying the sandbox answered it. Held by
 * test/sandbox/prefer.test.ts.
 */
import { ApiError, type ErrorCode } from "../domain/errors.js";
import { invalid, type LlmConfig, timedOut, unavailable, upstreamError } from "../domain/generation/llm.js";
import { JSON_BODY_LIMIT } from "../http/body.js";
import { toApiError } from "../http/errors.js";
import { tooLarge } from "../http/exchange.js";
import { requestTimedOut } from "../http/node.js";

/** The model server the upstream errors name when none is configured (`--llm-base-url`): a placeholder. */
const NO_MODEL_SERVER: LlmConfig = { baseUrl: "http://127.0.0.1:11434", model: "none configured", timeoutMs: 60_000 };

/** The server's own error of `code`, or undefined when it has no one way of raising it. */
function serversOwn(code: ErrorCode, llm: LlmConfig): ApiError | undefined {
  switch (code) {
    case "service_busy":
      return toApiError(Object.assign(new Error("busy"), { code: "SQLITE_BUSY" }));
    case "storage_full":
      return toApiError(Object.assign(new Error("full"), { code: "SQLITE_FULL" }));
    case "internal_error":
      return toApiError(new Error("sandbox"));
    case "payload_too_large":
      return tooLarge(JSON_BODY_LIMIT);
    case "request_timeout":
      return requestTimedOut();
    case "upstream_unavailable":
      return unavailable(llm, "ECONNREFUSED");
    case "upstream_error":
      return upstreamError(llm, "The model server failed.", 500);
    case "upstream_invalid_response":
      return invalid(llm, "not JSON");
    case "upstream_timeout":
      return timedOut(llm);
    default:
      return undefined;
  }
}

/** The error of `code` the sandbox answers: the server's own (with `llm`, the model server it names), or else one that says where it came from. */
export function sandboxError(code: ErrorCode, llm: LlmConfig | undefined): ApiError {
  return (
    serversOwn(code, llm ?? NO_MODEL_SERVER) ??
    new ApiError(code, `Answered with ${code}, as the request's Prefer header asked (sandbox mode).`)
  );
}
