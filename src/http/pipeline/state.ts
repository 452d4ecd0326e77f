/** What one request carries from stage to stage of the pipeline (DESIGN §3's order), and how the stages are run. */
import type { AccountRow } from "../../db/accounts.js";
import type { WorkspaceRow } from "../../db/workspaces.js";
import { randomUuid } from "../../runtime/random.js";
import type { Ctx, Principal } from "../context.js";
import type { CursorScope } from "../cursors.js";
import type { Incoming } from "../exchange.js";
import type { RateDecision } from "../ratelimit.js";
import type { RouteDef } from "../route.js";
import { requestUrl } from "./url.js";

/** Per-request facts the transport knows. */
export interface RequestEnv {
  /** The connection's peer: the client, or a proxy in front of it (http/client-address.ts). */
  remoteAddress?: string;
  /**
   * The request this one is made inside (an MCP tool call inside its POST /mcp), which took a rate-limit token and
   * was counted in usage: the first request made inside it is covered by that, later ones (a batch's further tool
   * calls) take their own. So a tool call counts once, as the API request it is.
   */
  enclosing?: { covered: boolean };
}

/** What the route table says of a method and path: a route, a path other methods answer (405), or nothing (404). */
export type Match =
  | { kind: "route"; def: RouteDef; params: Record<string, string> }
  | { kind: "method"; allowed: string[]; beta: boolean }
  | { kind: "none" };

/** The rate-limit bucket of an authenticated caller, to read again when the operation took further tokens. */
export interface Bucket {
  id: string;
  limits: { perMinute: number; perHour: number };
}

/** One request on its way through the stages: each stage reads what the earlier ones settled and adds its own. */
export interface RequestState {
  readonly request: Incoming;
  readonly env: RequestEnv;
  /** The client's address (http/client-address.ts), what every per-address rule reads. */
  readonly clientAddress?: string;
  readonly traceId: string;
  /** performance.now() when the request came in, for the log line's duration. */
  readonly started: number;
  readonly url: URL;
  /** Every method but GET and HEAD writes: it needs the write scope, waits for a turn and for the disk. */
  readonly writes: boolean;
  /** Covered by its enclosing request (RequestEnv.enclosing): it takes no rate-limit token and counts no usage. */
  readonly covered: boolean;
  match: Match;
  /** The matched route (undefined for a 404 or 405), whose errorBody shapes an error answer. */
  route?: RouteDef;
  /** The answer carries X-API-Stability: beta (DESIGN §3). */
  beta: boolean;
  principal: Principal | null;
  /** Why the credentials were refused: answered 401 after the route's 404 and 405 (refuseUnauthenticated). */
  authFailure?: string;
  /** The caller's account, set with the principal by the rate-limit stage. */
  account?: AccountRow;
  decision?: RateDecision;
  bucket?: Bucket;
  /** The workspace_id of the query of a workspace-aware request, null when it names none. */
  queryWorkspaceId: string | null;
  workspace?: WorkspaceRow;
  /** The route takes a body and the method sends one. */
  hasBody: boolean;
  /** The parsed body, before its validation. */
  body: unknown;
  /** The list's cursor scope (cursors.ts), for a route that lists. */
  cursorScope?: CursorScope;
  /** The handler's context, built by the input stage. */
  ctx?: Ctx;
  /** The error code of an error answer, for the log line. */
  errorCode?: string;
}

/** A request whose route matched: the stages from the route's own checks to the operation. */
export interface RoutedState extends RequestState {
  match: Extract<Match, { kind: "route" }>;
  route: RouteDef;
}

/** One step of the pipeline: it refuses the request by throwing an ApiError, or settles its part of the state. */
export type Stage<S extends RequestState = RequestState> = (state: S) => void | Promise<void>;

/** Whether the route matched (the stages after requireRoute see a RoutedState). */
export function isRouted(state: RequestState): state is RoutedState {
  return state.match.kind === "route";
}

/**
 * The state of a request as it comes in: its trace id, its URL, its client's address (the peer's unless a trusted
 * proxy forwarded another) and whether its enclosing request covers it.
 */
export function openRequest(request: Incoming, env: RequestEnv, clientAddress = env.remoteAddress): RequestState {
  const started = performance.now();
  const traceId = randomUuid();
  // Claimed before the first await, so that of a batch's concurrent tool calls exactly one is covered.
  const covered = env.enclosing !== undefined && !env.enclosing.covered;
  if (covered) env.enclosing!.covered = true;
  return {
    request,
    env,
    clientAddress,
    traceId,
    started,
    url: requestUrl(request.url),
    writes: request.method !== "GET" && request.method !== "HEAD",
    covered,
    match: { kind: "none" },
    beta: false,
    principal: null,
    queryWorkspaceId: null,
    hasBody: false,
    body: undefined,
  };
}

/**
 * Runs stages in order, each on the state the earlier ones left. Synchronous while the stages are: a request whose
 * stages all finish at once (an API key's GET of a known path) makes no promise here; from the first stage that
 * returns one, the rest run once it settles.
 */
export function runStages<S extends RequestState>(
  stages: readonly Stage<S>[],
  state: S,
  from = 0,
): void | Promise<void> {
  for (let i = from; i < stages.length; i++) {
    const pending = stages[i](state);
    if (pending) return pending.then(() => runStages(stages, state, i + 1));
  }
}
