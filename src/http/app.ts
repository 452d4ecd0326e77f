/** The request pipeline: trace id → route match → authenticate → rate limit → plan → access → scope → workspace → input → handler. */
import { randomUUID } from "node:crypto";
import { Router } from "itty-router";
import type { AccountRow } from "../db/accounts.js";
import type { WorkspaceRow } from "../db/workspaces.js";
import { iso } from "../domain/clock.js";
import { requireWorkspaceStill } from "../domain/contents.js";
import { ApiError, invalidInput, workspaceMismatch, workspaceNotFound } from "../domain/errors.js";
import { API_PLANS, effectiveRateLimits, PLAN_LIMITS, REISSUE_KEY_PATH, UPGRADE_PATH } from "../domain/plans.js";
import { kindOf } from "../domain/wording.js";
import { redactSecrets } from "../runtime/log.js";
import { authenticate, bearerToken, isApiKey, requireCredentialsStill, unauthorized } from "./auth.js";
import { parseBody, readBody } from "./body.js";
import type { Ctx, Principal, Services } from "./context.js";
import { bindCursor, type CursorScope, unbindCursor } from "./cursors.js";
import { errorBody, toApiError } from "./errors.js";
import {
  type Incoming,
  incomingOf,
  isStreamBody,
  jsonOutgoing,
  type Outgoing,
  outgoingOf,
  responseOf,
} from "./exchange.js";
import { idempotencyKeyOf, requestFingerprint } from "./idempotency.js";
import { publicUrlOf } from "./public-url.js";
import { ANONYMOUS_PER_MINUTE, type RateDecision } from "./ratelimit.js";
import { isFetchResponse, type Method, type Reply, type RouteDef } from "./route.js";
import { EMPTY_WORKSPACE_ID } from "./schemas.js";
import { parseBodyInput, parseInput, queryObjectOf, repeatedQuery } from "./validate.js";

/** Per-request facts the transport knows (client address). */
export interface RequestEnv {
  remoteAddress?: string;
  /**
   * The request this one is made inside (an MCP tool call inside its POST /mcp), which took a rate-limit token and
   * was counted in usage: the first request made inside it is covered by that, later ones (a batch's further tool
   * calls) take their own. So a tool call counts once, as the API request it is.
   */
  enclosing?: { covered: boolean };
}

type Match =
  | { kind: "route"; def: RouteDef; params: Record<string, string> }
  | { kind: "method"; allowed: string[]; beta: boolean }
  | { kind: "none" };

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    return new URL("http://localhost/");
  }
}

/** Converts `/a/{id}` to itty's `/a/:id`. */
function ittyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** A path with its percent-encoded unreserved characters decoded; other escapes (`%2F`, `%20`) stay as sent. */
export function decodeUnreserved(pathname: string): string {
  return pathname.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : encoded;
  });
}

/** Builds the route matcher from the route table (itty-router does the path matching). */
function buildMatcher(routes: RouteDef[]) {
  const router = Router();
  for (const def of routes) {
    const method = def.method.toLowerCase() as "get";
    router[method](ittyPath(def.path), (req: { params: Record<string, string> }) => ({
      kind: "route",
      def,
      params: { ...req.params },
    }));
  }
  // A path that exists under other methods answers 405 with Allow.
  for (const path of new Set(routes.map((d) => d.path)))
    router.all(ittyPath(path), () => ({ kind: "method", allowed: [], beta: false }));
  router.all("*", () => ({ kind: "none" }));
  const literalPaths = new Set(routes.map((d) => d.path).filter((p) => !p.includes("{")));
  const fetch = async (method: string, url: string) =>
    (await router.fetch({ method, url } as unknown as Request)) as Match;
  // The answers for recent paths: matching walks the route table and parses the URL again (itty-router does), for
  // the same few paths over and over. At most 2,000 kept; the table starts over when full.
  const recent = new Map<string, Match>();
  const fresh = (m: Match): Match => (m.kind === "route" ? { ...m, params: { ...m.params } } : m);
  // Synchronous for a known path: no promise on the hot path.
  return (method: string, url: string, pathname: string): Match | Promise<Match> => {
    const id = `${method} ${pathname}`;
    const known = recent.get(id);
    if (known) return fresh(known);
    return matchOnce(method, url, pathname).then((m) => {
      if (recent.size >= 2_000) recent.clear();
      recent.set(id, m);
      return fresh(m);
    });
  };

  async function matchOnce(method: string, url: string, pathname: string): Promise<Match> {
    const m = await fetch(method === "HEAD" ? "GET" : method, url);
    // A path some route names word for word (/images/generate) is that route's, not a value of another's parameter
    // (/images/{id}): GET /images/generate had been a 400 on path.id instead of 405 naming POST.
    const literal = literalPaths.has(pathname);
    if (m.kind === "route" && !(literal && m.def.path !== pathname)) return m;
    if (m.kind === "none") return m;
    // Allow lists every method some route answers at this URL (/api-keys/current is also /api-keys/{id}; a path
    // named word for word, only its own routes); the answer is beta (X-API-Stability, DESIGN §3) when every one of
    // those routes is.
    const allowed: string[] = [];
    let beta = true;
    for (const candidate of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const found = await fetch(candidate, url);
      if (found.kind !== "route" || (literal && found.def.path !== pathname)) continue;
      allowed.push(candidate);
      if (found.def.stability !== "beta") beta = false;
    }
    if (allowed.includes("GET")) allowed.push("HEAD");
    return { kind: "method", allowed, beta: beta && allowed.length > 0 };
  }
}

function rateHeaders(d: RateDecision | undefined): Record<string, string> {
  if (!d) return {};
  return {
    "x-ratelimit-limit": String(d.limit),
    "x-ratelimit-remaining": String(d.remaining),
    "x-ratelimit-reset": String(d.reset),
  };
}

function rateLimited(d: RateDecision): ApiError {
  return new ApiError(
    "rate_limit_exceeded",
    `Rate limit exceeded for this ${d.window === "hour" ? "hour" : "minute"}; retry in ${d.retryAfterSeconds} s.`,
    { window: d.window, limit: d.limit, retry_after_seconds: d.retryAfterSeconds },
    { "retry-after": String(d.retryAfterSeconds) },
  );
}

/** The workspace_id a request's JSON body names, if any (null is none). */
function bodyWorkspace(body: unknown): string | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body) || !("workspace_id" in body)) return undefined;
  const value = (body as Record<string, unknown>).workspace_id;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string")
    throw invalidInput("body.workspace_id", `workspace_id must be a string (got ${kindOf(value)})`);
  if (value === "") throw emptyWorkspaceId("body.workspace_id");
  return value;
}

/** An empty workspace_id is a mistake in the request, not a workspace's name (it was a 403 or 404 naming ""). */
function emptyWorkspaceId(path: string): ApiError {
  return invalidInput(path, `workspace_id ${EMPTY_WORKSPACE_ID}`);
}

/**
 * A body's workspace_id beside the query's (spec §5: never silently overridden): a bound key naming another workspace
 * in either is 403 workspace_mismatch (the query's was settled before the body was read); two different values are
 * 400 validation_failed, for any caller.
 */
function checkBodyWorkspace(principal: Principal, fromQuery: string, fromBody: string | undefined): void {
  if (fromBody === undefined) return;
  const bound = principal.boundWorkspaceId;
  if (bound !== null && fromBody !== bound) throw workspaceMismatch(bound, fromBody);
  if (fromBody !== fromQuery) {
    const message = `workspace_id names ${fromBody}, but the query's names ${fromQuery}: send one workspace_id`;
    throw new ApiError("validation_failed", message, {
      issues: [
        { path: "query.workspace_id", message: `workspace_id names ${fromQuery}, but the body's names ${fromBody}` },
        { path: "body.workspace_id", message },
      ],
    });
  }
}

/** A workspace by id, through the row cache (db/row-cache.ts). */
function workspaceRow(services: Services, id: string): WorkspaceRow | undefined {
  return services.rows.get(`workspace:${id}`, () => services.store.workspaces.byId(id));
}

/** A route's workspace mode for this body: `optional` when the body names the record that brings its own. */
function workspaceMode(def: RouteDef, body: unknown): "required" | "optional" {
  const field = def.workspaceUnless;
  if (field !== undefined && body && typeof body === "object" && !Array.isArray(body)) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined && value !== null) return "optional";
  }
  return def.workspace ?? "optional";
}

/** Resolves the workspace of a workspace-aware request per spec §5's table. */
function resolveWorkspace(
  services: Services,
  principal: Principal,
  requested: string | undefined,
  mode: "required" | "optional",
): WorkspaceRow | undefined {
  const bound = principal.boundWorkspaceId;
  if (bound !== null) {
    if (requested !== undefined && requested !== bound) throw workspaceMismatch(bound, requested);
    // The key's workspace can be gone while the request waited (its body, its turn): the key went with it.
    const ws = workspaceRow(services, bound);
    if (!ws) throw workspaceNotFound(bound);
    return ws;
  }
  if (requested !== undefined) {
    const ws = workspaceRow(services, requested);
    if (!ws || ws.account_id !== principal.accountId) throw workspaceNotFound(requested);
    return ws;
  }
  if (mode === "optional") return undefined;
  const accountId = principal.accountId;
  const fallback = services.rows.get(`default-workspace:${accountId}`, () =>
    services.store.workspaces.defaultOf(accountId),
  );
  if (!fallback) throw new ApiError("workspace_required", "This operation needs a workspace: pass workspace_id.", {});
  return fallback;
}

/**
 * An absolute URL of this server's own operation (spec §7: upgrade_action is a URL), under its public address
 * (`serve --public-url`), so that a client can follow it as given.
 */
function actionUrl(services: Services, path: string): string {
  return publicUrlOf(services.config.publicUrl, path);
}

/**
 * A created record's Location: its path under the public address's own path (`--public-url https://host/content`
 * gives `/content/api/v1/…`), without the host, so that it resolves against whatever address the client used.
 */
function locationOf(services: Services, path: string): string {
  let prefix = "";
  try {
    prefix = new URL(services.config.publicUrl).pathname.replace(/\/+$/, "");
  } catch {
    // Not a URL (serve checks it): no prefix.
  }
  return `${prefix}${path}`;
}

function planForbidden(services: Services, account: AccountRow): ApiError {
  return new ApiError(
    "plan_upgrade_required",
    `API access needs a Business or Agency plan; this account is on ${account.plan}.`,
    { current_plan: account.plan, required_plans: API_PLANS, upgrade_action: actionUrl(services, UPGRADE_PATH) },
  );
}

function scopeForbidden(services: Services, principal: Principal): ApiError {
  return new ApiError(
    "insufficient_scope",
    "This operation needs the write scope; this API key is read-only. A web session issues a read+write key at upgrade_action.",
    {
      required_scope: "write",
      current_scopes: principal.scopes,
      upgrade_action: actionUrl(services, REISSUE_KEY_PATH),
    },
  );
}

/** The assembled application: `serve` answers one request; `handle` does so with Fetch API objects. */
export interface App {
  serve(request: Incoming, env?: RequestEnv): Promise<Outgoing>;
  handle(request: Request, env?: RequestEnv): Promise<Response>;
  /**
   * The answer to a request that could not be read as HTTP (node.ts clientErrorListener): the error's coded body
   * with X-Trace-Id and the X-RateLimit-* of the client's address (peeked: nothing is taken), logged as an answer.
   */
  refuse(error: ApiError, env?: RequestEnv): Outgoing;
  routes: RouteDef[];
}

/** Builds the application over its services and route table. */
export function createApp(services: Services, routes: RouteDef[]): App {
  const match = buildMatcher(routes);
  const turns = services.turns;
  // The bucket of requests without credentials, per client address.
  const byAddress = (env: RequestEnv, peek = false) =>
    services.limiter.take(`addr:${env.remoteAddress ?? "unknown"}`, { perMinute: ANONYMOUS_PER_MINUTE }, peek);

  async function serve(request: Incoming, env: RequestEnv = {}): Promise<Outgoing> {
    const started = performance.now();
    const traceId = randomUUID();
    // Claimed before the first await, so that of a batch's concurrent tool calls exactly one is covered.
    const covered = env.enclosing !== undefined && !env.enclosing.covered;
    if (covered) env.enclosing!.covered = true;
    // Transports hand over a valid absolute URL (node.ts checks the Host header); a bad one is a request for "/".
    const url = parseUrl(request.url);
    // Percent-encoded unreserved characters are those characters (RFC 3986 §6.2.2.2): /workspaces/ws%5Fabc is
    // /workspaces/ws_abc and /contents/%32 is /contents/2 (they were a 404 and a 400). Decoded before anything reads
    // the path: the match, the Idempotency-Key fingerprint, the messages and the log line (with its redaction).
    if (url.pathname.includes("%")) url.pathname = decodeUnreserved(url.pathname);
    // Every method but GET and HEAD writes: it needs the write scope, waits for a turn and for the disk.
    const writes = request.method !== "GET" && request.method !== "HEAD";
    let principal: Principal | null = null;
    let decision: RateDecision | undefined;
    // The caller's bucket, to read again when the operation took further tokens (spendsTokens).
    let bucketId: string | undefined;
    let bucketLimits: { perMinute: number; perHour: number } | undefined;
    let response: Outgoing;
    let errorCode: string | undefined;
    let beta = false;
    // The route matched, whose errorBody (if any) shapes an error answer.
    let answering: RouteDef | undefined;
    try {
      const matched = match(request.method, url.href, url.pathname);
      const m = matched instanceof Promise ? await matched : matched;
      const def = m.kind === "route" ? m.def : undefined;
      answering = def;
      // A wrong method on a beta path answers as that path's routes do (their stability, DESIGN §3).
      beta = m.kind === "method" ? m.beta : def?.stability === "beta";
      const internal = def?.stability === "internal";

      // Authenticate (not on public routes: their credentials are ignored). A refusal waits for the
      // rate limit, so that it is counted and carries the X-RateLimit-* headers like every response.
      let authFailure: string | undefined;
      if (def && def.access === "public") {
        if (def.rejectsApiKeys) {
          const token = bearerToken(request);
          if (token && isApiKey(token))
            authFailure = "This operation is not available to API keys; sign in with a web session.";
        }
      } else if (!internal) {
        const authenticated = authenticate(request, services);
        const auth = authenticated instanceof Promise ? await authenticated : authenticated;
        if (auth.principal) principal = auth.principal;
        else if (def) authFailure = auth.reason;
      }

      // Rate limit: per key (or session user), else per client address (not again for a covered request).
      let account: AccountRow | undefined;
      if (!internal) {
        if (principal) {
          const accountId = principal.accountId;
          account = services.rows.get(`account:${accountId}`, () => services.store.accounts.byId(accountId));
          if (!account) throw unauthorized("The account of these credentials no longer exists.");
          const id = principal.kind === "key" ? principal.key.id : `user:${principal.userId}`;
          // Plans without API access: their sessions get the business limits (see effectiveRateLimits).
          bucketId = id;
          bucketLimits = effectiveRateLimits(account);
          if (!covered) decision = services.limiter.take(id, bucketLimits);
        } else if (!covered) decision = byAddress(env);
        if (decision && !decision.allowed) throw rateLimited(decision);
      } else {
        // The health probes are never refused (a monitor polling them must not be), but they answer like every
        // response (spec §8, DESIGN §3) with the X-RateLimit-* of their client's address, which they do not use.
        decision = byAddress(env, true);
      }

      if (m.kind === "none") throw new ApiError("route_not_found", `No route ${request.method} ${url.pathname}.`);
      if (m.kind === "method")
        throw new ApiError(
          "method_not_allowed",
          `${request.method} is not allowed on ${url.pathname}.`,
          { allowed: m.allowed },
          { allow: m.allowed.join(", ") },
        );
      const routeDef = m.def;
      if (authFailure !== undefined) throw unauthorized(authFailure);

      if (principal && account) {
        // Plan: API keys always need a plan with API access; sessions only outside the exempt routes.
        if (!PLAN_LIMITS[account.plan].apiAccess && (principal.kind === "key" || !routeDef.planExempt))
          throw planForbidden(services, account);
        // Operations reserved to web sessions (spec §4.11).
        if ((routeDef.access === "session" || routeDef.access === "admin") && principal.kind === "key")
          throw unauthorized("This operation is not available to API keys; sign in with a web session.");
        if (routeDef.access === "admin" && principal.kind === "session" && principal.role !== "admin")
          throw new ApiError("admin_required", "This operation needs an administrator.", { required_role: "admin" });
        // Scope: every method but GET and HEAD needs write.
        if (writes && !principal.scopes.includes("write")) throw scopeForbidden(services, principal);
      }

      // Workspace before input (DESIGN §3): a workspace_id in the query is settled before the body is read; one
      // in the body can only be settled once the body is parsed.
      const fromQuery = principal && routeDef.workspace ? url.searchParams.get("workspace_id") : null;
      let workspace: WorkspaceRow | undefined;
      if (fromQuery === "") throw emptyWorkspaceId("query.workspace_id");
      // A repeated workspace_id is refused with the workspace, before the rest of the query (queryObjectOf, below):
      // not there, as the rest is input validation, which comes after the workspace and the body (DESIGN §3), and
      // most workspace-aware operations read workspace_id without listing it in their query schema.
      const workspaceIds = fromQuery === null ? 0 : url.searchParams.getAll("workspace_id").length;
      if (workspaceIds > 1) throw repeatedQuery(new Map([["workspace_id", workspaceIds]]));
      if (fromQuery !== null && principal && routeDef.workspace)
        workspace = resolveWorkspace(services, principal, fromQuery, routeDef.workspace);

      const hasBody = routeDef.body && ["POST", "PUT", "PATCH"].includes(request.method);
      const raw = hasBody ? await readBody(request, routeDef.upload) : undefined;
      // A write waits for its turn (turns.ts) once its body is in, before the work that holds the thread.
      if (writes) await turns.next();
      const body = raw ? await parseBody(raw, routeDef.bodyRequired) : undefined;

      if (principal && routeDef.workspace) {
        if (fromQuery !== null) checkBodyWorkspace(principal, fromQuery, bodyWorkspace(body));
        else workspace = resolveWorkspace(services, principal, bodyWorkspace(body), workspaceMode(routeDef, body));
      }
      // The credentials, checked again once a write's body is in: a key revoked or a session signed out while the
      // body arrived (as slowly as its sender likes) had still written, though the revocation had been answered.
      if (writes && hasBody && principal) requireCredentialsStill(principal, services);
      // A write's workspace, read again from the database: it may have been deleted while the body arrived or the
      // write waited for its turn, or by another process within the row cache's check interval (a foreign key 500).
      if (writes && workspace) requireWorkspaceStill(services.store, workspace.id);

      const queryObject = queryObjectOf(url.searchParams, routeDef.query);

      const p = principal;
      const ctx: Ctx = {
        request,
        traceId,
        services,
        principal: p as Principal,
        account: account as AccountRow,
        workspace: workspace as WorkspaceRow,
        checkRecordWorkspace(recordWs: string) {
          if (p && p.boundWorkspaceId !== null && p.boundWorkspaceId !== recordWs)
            throw workspaceMismatch(p.boundWorkspaceId, recordWs);
        },
        params: routeDef.params ? parseInput(routeDef.params, m.params, "path") : m.params,
        query: routeDef.query ? parseInput(routeDef.query, queryObject, "query") : queryObject,
        body: routeDef.body ? parseBodyInput(routeDef.body, body) : undefined,
      };
      // A list's cursor is bound to the list that issued it (cursors.ts): checked here, and the handler sees its own.
      const query = ctx.query as Record<string, unknown>;
      const cursorScope: CursorScope | undefined = routeDef.lists
        ? {
            operationId: routeDef.operationId,
            params: ctx.params,
            query,
            accountId: p?.accountId,
            workspaceId: workspace?.id,
          }
        : undefined;
      if (cursorScope && typeof query.cursor === "string") query.cursor = unbindCursor(query.cursor, cursorScope);
      const operate = async (): Promise<Outgoing> => {
        const reply: Reply = await routeDef.handler(ctx);
        if (isFetchResponse(reply)) return outgoingOf(reply);
        const listed = reply.body as { next_cursor?: unknown } | undefined;
        if (cursorScope && listed && typeof listed === "object" && typeof listed.next_cursor === "string")
          listed.next_cursor = bindCursor(listed.next_cursor, cursorScope);
        const status = reply.status ?? 200;
        const headers = reply.headers ?? {};
        // The created record's address (kept with a stored Idempotency-Key response, so replays carry it too).
        if (status === 201 && routeDef.created) headers.location = locationOf(services, routeDef.created(reply.body));
        if (reply.bytes !== undefined) return { status, headers, body: reply.bytes };
        return jsonOutgoing(status, reply.body, headers);
      };
      // Idempotency-Key (DESIGN §3): checked with the input, it wraps the operation alone (see idempotency.ts).
      const idempotencyKey = p ? idempotencyKeyOf(request) : undefined;
      response =
        p && idempotencyKey !== undefined
          ? await services.idempotency.run(
              {
                accountId: p.accountId,
                caller:
                  p.kind === "key"
                    ? p.key.id
                    : routeDef.idempotencyPerSession
                      ? `session:${p.claims.jti}`
                      : `user:${p.userId}`,
              },
              idempotencyKey,
              requestFingerprint(request.method, url, body),
              traceId,
              operate,
              routeDef.shownOnce,
              () => request.signal,
            )
          : await operate();
      // A write is answered once it is on disk (db/durability.ts); reads wait for nothing. A stream acknowledges what
      // it stores in its own last event, after its own sync (the generate stream's done): its start waits for nothing.
      if (writes && !isStreamBody(response.body)) await services.durability.sync();
      // An MCP batch's further tool calls took tokens of their own: its answer says what they left.
      if (routeDef.spendsTokens && bucketId !== undefined && bucketLimits && decision)
        decision = services.limiter.take(bucketId, bucketLimits, true);
      const extra: Record<string, string> = { ...rateHeaders(decision), "x-trace-id": traceId };
      if (routeDef.stability === "beta") extra["x-api-stability"] = "beta";
      Object.assign(response.headers, extra);
    } catch (err) {
      const apiError = toApiError(err);
      if (!(err instanceof ApiError))
        services.logger.error("unhandled error", {
          trace_id: traceId,
          error: redactSecrets(err instanceof Error ? err.message : String(err)),
          // SQLite's extended result code (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_FSYNC) says which of its failures it was.
          ...(typeof (err as { code?: unknown })?.code === "string" ? { code: (err as { code: string }).code } : {}),
          stack: redactSecrets(err instanceof Error ? err.stack : undefined),
        });
      errorCode = apiError.code;
      // Readiness answers 503 until the disk has room again (storage-watch.ts).
      if (errorCode === "storage_full") services.storage.noteFull();
      // An error before the rate limit was decided (a busy database while authenticating) still reports a bucket, as
      // every response does (spec §8): the client address's, peeked.
      const rate = rateHeaders(decision ?? byAddress(env, true));
      const headers: Record<string, string> = { ...rate, "x-trace-id": traceId, ...apiError.headers };
      if (beta) headers["x-api-stability"] = "beta";
      if (apiError.status === 401) headers["www-authenticate"] = 'Bearer realm="content-service"';
      // A secret the client put in a path or field is never echoed back (DESIGN §3).
      const coded = errorBody(apiError, traceId);
      const body = answering?.errorBody ? answering.errorBody(coded, apiError) : coded;
      response = jsonOutgoing(apiError.status, redactSecrets(body), headers);
    }
    // Usage: every authenticated request, counted in memory (src/domain/usage.ts).
    if (principal && !covered) services.usage.countFor(principal, { requests: 1 });
    logAnswer({
      method: request.method,
      path: redactSecrets(url.pathname),
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      key_id: principal?.kind === "key" ? principal.key.id : null,
      user_id: principal?.kind === "session" ? principal.userId : null,
      trace_id: traceId,
      ...(errorCode ? { error_code: errorCode } : {}),
    });
    return response;
  }

  /** One request log line: its time, and its level from the status (a 5xx is an error). */
  function logAnswer(entry: Omit<Parameters<typeof services.logger.request>[0], "time" | "level">): void {
    services.logger.request({
      time: iso(services.clock.now()),
      level: entry.status >= 500 ? "error" : "info",
      ...entry,
    });
  }

  function refuse(apiError: ApiError, env: RequestEnv = {}): Outgoing {
    const traceId = randomUUID();
    const headers = { ...rateHeaders(byAddress(env, true)), "x-trace-id": traceId, ...apiError.headers };
    logAnswer({
      method: "-",
      path: "-",
      status: apiError.status,
      duration_ms: 0,
      key_id: null,
      user_id: null,
      trace_id: traceId,
      error_code: apiError.code,
    });
    return jsonOutgoing(apiError.status, errorBody(apiError, traceId), headers);
  }

  return {
    serve,
    handle: async (request, env) => responseOf(await serve(incomingOf(request), env), request.method),
    refuse,
    routes,
  };
}

export type { Method };
