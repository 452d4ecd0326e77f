/** The error stage (DESIGN §3, §4): every refusal and failure of a request answered as the coded error body. */

import { ApiError } from "../../domain/errors.js";
import { redactSecrets } from "../../runtime/log.js";
import type { Services } from "../context.js";
import { errorBody, toApiError } from "../errors.js";
import { jsonOutgoing, type Outgoing } from "../exchange.js";
import { rateHeaders, takeByAddress } from "./rate-limit.js";
import type { RequestEnv, RequestState } from "./state.js";

/** Logs an error that is no ApiError (a 500): its message and stack, secrets redacted, with the trace id. */
function logUnhandled(services: Services, traceId: string, err: unknown): void {
  services.logger.error("unhandled error", {
    trace_id: traceId,
    error: redactSecrets(err instanceof Error ? err.message : String(err)),
    // SQLite's extended result code (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_FSYNC) says which of its failures it was.
    ...(typeof (err as { code?: unknown })?.code === "string" ? { code: (err as { code: string }).code } : {}),
    stack: redactSecrets(err instanceof Error ? err.stack : undefined),
  });
}

/**
 * The error stage: the answer to whatever a stage threw, with X-RateLimit-*, X-Trace-Id, the error's own headers,
 * X-API-Stability on a beta path and WWW-Authenticate on a 401. An error before the rate limit was decided (a busy
 * database while authenticating) still reports a bucket, as every response does (spec §8): the client address's,
 * peeked. A secret the client put in a path or field is never echoed back (DESIGN §3), and a route with a protocol of
 * its own shapes the body (RouteDef.errorBody).
 */
export function renderError(services: Services, state: RequestState, err: unknown): Outgoing {
  const apiError = toApiError(err);
  if (!(err instanceof ApiError)) logUnhandled(services, state.traceId, err);
  state.errorCode = apiError.code;
  // Readiness answers 503 until the disk has room again (storage-watch.ts).
  if (apiError.code === "storage_full") services.storage.noteFull();
  const rate = rateHeaders(state.decision ?? takeByAddress(services, state.clientAddress, true));
  const headers: Record<string, string> = { ...rate, "x-trace-id": state.traceId, ...apiError.headers };
  if (state.beta) headers["x-api-stability"] = "beta";
  if (apiError.status === 401) headers["www-authenticate"] = 'Bearer realm="content-service"';
  const coded = errorBody(apiError, state.traceId);
  const body = state.route?.errorBody ? state.route.errorBody(coded, apiError) : coded;
  return jsonOutgoing(apiError.status, redactSecrets(body), headers);
}

/**
 * The answer to a request that could not be read as HTTP (node.ts clientErrorListener): the error's coded body with
 * a fresh trace id and the X-RateLimit-* of the client's address (peeked: nothing is taken). Such a request has no
 * header to read a forwarded address from: its address is its connection's peer.
 */
export function renderRefusal(services: Services, apiError: ApiError, traceId: string, env: RequestEnv): Outgoing {
  const headers = {
    ...rateHeaders(takeByAddress(services, env.remoteAddress, true)),
    "x-trace-id": traceId,
    ...apiError.headers,
  };
  return jsonOutgoing(apiError.status, errorBody(apiError, traceId), headers);
}
