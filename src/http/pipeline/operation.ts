/**
 * The operation stage (DESIGN §3): the route's handler, wrapped in the Idempotency-Key's replay, answered once a
 * write is on disk, with the headers every answer carries.
 */
import type { Principal, Services } from "../context.js";
import { bindCursor } from "../cursors.js";
import { isEventStream, jsonOutgoing, type Outgoing, outgoingOf } from "../exchange.js";
import { idempotencyKeyOf, requestFingerprint } from "../idempotency.js";
import { isFetchResponse, type Reply, type RouteDef } from "../route.js";
import { rateHeaders, rereadBucket } from "./rate-limit.js";
import type { RoutedState } from "./state.js";

/**
 * A created record's Location: its path under the public address's own path (`--public-url https://host/content`
 * gives `/content/api/v1/…`), without the host, so that it resolves against whatever address the client used
 * (test/http/location.test.ts).
 */
export function locationOf(services: Services, path: string): string {
  let prefix = "";
  try {
    prefix = new URL(services.config.publicUrl).pathname.replace(/\/+$/, "");
  } catch {
    // Not a URL (serve checks it): no prefix.
  }
  return `${prefix}${path}`;
}

/** Runs the handler and turns its reply into an answer: a list's next cursor bound, a created record's Location. */
async function operate(services: Services, state: RoutedState): Promise<Outgoing> {
  const { route, cursorScope } = state;
  const reply: Reply = await route.handler(state.ctx!);
  if (isFetchResponse(reply)) return outgoingOf(reply);
  const listed = reply.body as { next_cursor?: unknown } | undefined;
  if (cursorScope && listed && typeof listed === "object" && typeof listed.next_cursor === "string")
    listed.next_cursor = bindCursor(listed.next_cursor, cursorScope);
  const status = reply.status ?? 200;
  const headers = reply.headers ?? {};
  // The created record's address (kept with a stored Idempotency-Key response, so replays carry it too).
  if (status === 201 && route.created) headers.location = locationOf(services, route.created(reply.body));
  if (reply.bytes !== undefined) return { status, headers, body: reply.bytes };
  return jsonOutgoing(status, reply.body, headers);
}

/**
 * Whose Idempotency-Key answers a request replays: a key's own, a web user's, or (RouteDef.idempotencyPerSession)
 * the calling session's.
 */
function idempotencyCaller(principal: Principal, route: RouteDef): string {
  if (principal.kind === "key") return principal.key.id;
  return route.idempotencyPerSession ? `session:${principal.claims.jti}` : `user:${principal.userId}`;
}

/** Runs the operation, through the Idempotency-Key's stored answers when an authenticated POST sends one. */
function operateOnce(services: Services, state: RoutedState): Promise<Outgoing> {
  const { principal, request } = state;
  // Checked with the input (DESIGN §3), it wraps the operation alone (see idempotency.ts).
  const idempotencyKey = principal ? idempotencyKeyOf(request) : undefined;
  if (!principal || idempotencyKey === undefined) return operate(services, state);
  return services.idempotency.run(
    { accountId: principal.accountId, caller: idempotencyCaller(principal, state.route) },
    idempotencyKey,
    requestFingerprint(request.method, state.url, state.body),
    state.traceId,
    () => operate(services, state),
    state.route.shownOnce,
    () => request.signal,
  );
}

/**
 * The operation stage: the answer of the route's handler. A write is answered once it is on disk
 * (db/durability.ts); reads wait for nothing. An event stream acknowledges what it stores in its own last event, after
 * its own sync (the generate stream's done): its start waits for nothing. The answer carries X-RateLimit-*, X-Trace-Id
 * and, on a beta route, X-API-Stability (DESIGN §3); one carrying a secret, Cache-Control: no-store.
 */
export function runOperation(services: Services): (state: RoutedState) => Promise<Outgoing> {
  return async function runOperation(state) {
    const response = await operateOnce(services, state);
    if (state.writes && !isEventStream(response)) await services.durability.sync();
    rereadBucket(services, state);
    const extra: Record<string, string> = { ...rateHeaders(state.decision), "x-trace-id": state.traceId };
    if (state.route.stability === "beta") extra["x-api-stability"] = "beta";
    if (state.route.secret || state.route.shownOnce) extra["cache-control"] = "no-store";
    Object.assign(response.headers, extra);
    return response;
  };
}
