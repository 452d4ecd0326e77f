/**
 * The application: the request pipeline of DESIGN §3's order, composed from its stages (src/http/pipeline/), over
 * the services and the route table.
 */
import type { ApiError } from "../domain/errors.js";
import { randomUuid } from "../runtime/random.js";
import { clientAddress, trustProxyOf } from "./client-address.js";
import type { Services } from "./context.js";
import { type Cors, corsFor } from "./cors.js";
import { type Incoming, incomingOf, type Outgoing, responseOf } from "./exchange.js";
import { UNMATCHED_ROUTE } from "./metrics.js";
import { requireAccess } from "./pipeline/access.js";
import { authenticateCaller, refuseUnauthenticated } from "./pipeline/authenticate.js";
import { receiveBody, validateInput } from "./pipeline/input.js";
import { matchRoute, requireRoute } from "./pipeline/match.js";
import { runOperation } from "./pipeline/operation.js";
import { requirePlan } from "./pipeline/plan.js";
import { limitRate, rateHeaders, takeByAddress } from "./pipeline/rate-limit.js";
import { recheckWrite } from "./pipeline/recheck.js";
import { logAnswer, recordAnswer } from "./pipeline/record.js";
import { renderError, renderRefusal } from "./pipeline/render-error.js";
import { requireScope } from "./pipeline/scope.js";
import {
  openRequest,
  type RequestEnv,
  type RequestState,
  type RoutedState,
  runStages,
  type Stage,
} from "./pipeline/state.js";
import { resolveBodyWorkspace, resolveQueryWorkspace } from "./pipeline/workspace.js";
import type { Method, RouteDef } from "./route.js";

export type { RequestEnv } from "./pipeline/state.js";

/** The header through which trusted proxies name the addresses they were reached from. */
const FORWARDED_FOR = "x-forwarded-for";

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

/**
 * What a server in sandbox mode adds to the pipeline (src/sandbox/): without one, the pipeline is the same as before
 * and pays nothing for it (test/sandbox/index.test.ts).
 */
export interface AppExtension {
  /** Stages run after the rate limit, before the route's 404 and 405: they may refuse, delay or mark a request. */
  afterRateLimit: Stage[];
  /** Stages run once the input is valid, before the operation: they see the caller, the route and the body. */
  beforeOperation: Stage<RoutedState>[];
  /** Sees every answer as it leaves serve() (its state) or refuse() (none), and may change its headers and body. */
  finish(response: Outgoing, state?: RequestState): void;
}

/** A preflight's 204, with the X-Trace-Id and the peeked X-RateLimit-* of its address every answer carries. */
function answerPreflight(services: Services, cors: Cors, state: RequestState, allowed: readonly string[]): Outgoing {
  const out = cors.preflight(state.request, allowed);
  Object.assign(out.headers, rateHeaders(takeByAddress(services, state.clientAddress, true)), {
    "x-trace-id": state.traceId,
  });
  return out;
}

/**
 * Counts an answer in the metrics (GET /metrics): by its route's pattern, never by the path as sent. An MCP tool call
 * made inside its POST /mcp is no HTTP request of its own: the POST is counted.
 */
function countAnswer(services: Services, state: RequestState, response: Outgoing): void {
  if (state.env.enclosing !== undefined) return;
  const route = state.route?.path ?? UNMATCHED_ROUTE;
  const seconds = (performance.now() - state.started) / 1000;
  const refused = state.errorCode === "rate_limit_exceeded";
  services.metrics?.observe(route, state.request.method, response.status, seconds, refused);
}

/** Builds the application over its services and route table. */
export function createApp(services: Services, routes: RouteDef[], extension?: AppExtension): App {
  const match = matchRoute(routes); // the route of the method and path; its 404 or 405 waits for requireRoute
  const cors = corsFor(services.config.corsOrigins);
  const trust = trustProxyOf(services.config.trustProxy ?? []); // the CLI refused bad values with a usage error
  // DESIGN §3's order of checks, which decides the error a request gets. The caller and its bucket come before the
  // route's 404 and 405, so that every request is rate limited and counted, routed or not.
  const beforeRoute: Stage[] = [
    authenticateCaller(services), // authenticate (DESIGN §3, spec §5): its 401 waits for the route's 404 and 405
    limitRate(services), // rate limit (DESIGN §5): 429 per key, session user or client address
    ...(extension?.afterRateLimit ?? []), // sandbox mode only: the faults a request's Prefer header asks for
  ];
  const onRoute: Stage<RoutedState>[] = [
    refuseUnauthenticated, // authenticate's 401 (DESIGN §3)
    requirePlan(services), // plan (DESIGN §5): 403 plan_upgrade_required
    requireAccess, // access (spec §4.11): 401 for a session-only operation called with a key
    requireScope(services), // scope (DESIGN §3): 403 insufficient_scope for a write without the write scope
    resolveQueryWorkspace(services), // workspace (spec §5): the query's workspace_id, before the body is read
    receiveBody(services), // input (DESIGN §3): the body read and parsed, a write's turn (turns.ts) between
    resolveBodyWorkspace(services), // workspace (spec §5): the body's workspace_id, or the default
    recheckWrite(services), // a write's credentials and workspace, read again once its body is in
    validateInput(services), // input validation (DESIGN §3): 400 validation_failed, the handler's context
    ...(extension?.beforeOperation ?? []), // sandbox mode only: the faults its rules answer
  ];
  const operation = runOperation(services); // the operation (DESIGN §3), with Idempotency-Key and durability

  /** The answer of the pipeline: a preflight's 204 (cors.ts), or the stages of DESIGN §3 and the operation. */
  async function answer(state: RequestState): Promise<Outgoing> {
    try {
      const matching = match(state);
      if (matching) await matching;
      // A preflight from a configured origin, at a path some route answers, takes no token and needs no credentials.
      if (state.match.kind === "method" && cors.isPreflight(state.request))
        return answerPreflight(services, cors, state, state.match.allowed);
      const routing = runStages(beforeRoute, state);
      if (routing) await routing;
      const routed = requireRoute(state); // 404 route_not_found, 405 method_not_allowed (DESIGN §3)
      const checking = runStages(onRoute, routed);
      if (checking) await checking;
      return await operation(routed);
    } catch (err) {
      return renderError(services, state, err); // the error body of DESIGN §3, for every refusal
    }
  }

  async function serve(request: Incoming, env: RequestEnv = {}): Promise<Outgoing> {
    const state = openRequest(
      request,
      env,
      clientAddress(env.remoteAddress, request.headers.get(FORWARDED_FOR), trust),
    );
    const response = await answer(state);
    // Every answer, whatever stage or handler made it (JSON, errors, the dashboard's files, /docs, 404s, 405s): no
    // browser reads it as another type than it says (test/http/node-edge.test.ts).
    response.headers["x-content-type-options"] = "nosniff";
    cors.decorate(request, response);
    recordAnswer(services, state, response);
    countAnswer(services, state, response);
    extension?.finish(response, state);
    return response;
  }

  function refuse(apiError: ApiError, env: RequestEnv = {}): Outgoing {
    const traceId = randomUuid();
    const response = renderRefusal(services, apiError, traceId, env); // a JSON answer: with nosniff
    logAnswer(services, {
      method: "-",
      path: "-",
      status: apiError.status,
      duration_ms: 0,
      key_id: null,
      user_id: null,
      trace_id: traceId,
      error_code: apiError.code,
    });
    extension?.finish(response);
    return response;
  }

  return {
    serve,
    handle: async (request, env) => responseOf(await serve(incomingOf(request), env), request.method),
    refuse,
    routes,
  };
}

export type { Method };
