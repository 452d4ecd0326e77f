/** The route stage: the route table's answer for a method and path, and the 404 or 405 of a request it has none for. */
import { Router } from "itty-router";
import { ApiError } from "../../domain/errors.js";
import type { RouteDef } from "../route.js";
import { isRouted, type Match, type RequestState, type RoutedState, type Stage } from "./state.js";

/** At most this many paths' answers are kept by the matcher; the table starts over when full. */
const RECENT_PATHS = 2_000;

/** Converts `/a/{id}` to itty's `/a/:id`. */
function ittyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** A matcher's answer for a method, an absolute URL and its (decoded) path; synchronous for a path seen recently. */
export type Matcher = (method: string, url: string, pathname: string) => Match | Promise<Match>;

/** Builds the route matcher from the route table (itty-router does the path matching). */
export function buildMatcher(routes: RouteDef[]): Matcher {
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
  // the same few paths over and over.
  const recent = new Map<string, Match>();
  const fresh = (m: Match): Match => (m.kind === "route" ? { ...m, params: { ...m.params } } : m);
  // Synchronous for a known path: no promise on the hot path.
  return (method, url, pathname) => {
    const id = `${method} ${pathname}`;
    const known = recent.get(id);
    if (known) return fresh(known);
    return matchOnce(method, url, pathname).then((m) => {
      if (recent.size >= RECENT_PATHS) recent.clear();
      recent.set(id, m);
      return fresh(m);
    });
  };

  async function matchOnce(method: string, url: string, pathname: string): Promise<Match> {
    const m = await fetch(method === "HEAD" ? "GET" : method, url);
    // A path some route names word for word (/images/generate) is that route's, not a value of another's parameter
    // (/images/{id}): GET /images/generate is 405 naming POST (test/http/errors.error.test.ts).
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

/**
 * The route stage: settles the request's route and whether it answers as beta. Refuses nothing: its 404 and 405 wait
 * for the rate limit (requireRoute), so that they are counted and carry X-RateLimit-* like every answer.
 */
export function matchRoute(routes: RouteDef[]): Stage {
  const match = buildMatcher(routes);
  return function matchRoute(state) {
    const matched = match(state.request.method, state.url.href, state.url.pathname);
    if (matched instanceof Promise) return matched.then((m) => settleMatch(state, m));
    settleMatch(state, matched);
  };
}

function settleMatch(state: RequestState, m: Match): void {
  state.match = m;
  state.route = m.kind === "route" ? m.def : undefined;
  // A wrong method on a beta path answers as that path's routes do (their stability, DESIGN §3).
  state.beta = m.kind === "method" ? m.beta : state.route?.stability === "beta";
}

/** The request's route, or its 404 route_not_found or 405 method_not_allowed (with Allow) (DESIGN §3). */
export function requireRoute(state: RequestState): RoutedState {
  if (isRouted(state)) return state;
  const { match: m, request, url } = state;
  if (m.kind === "method")
    throw new ApiError(
      "method_not_allowed",
      `${request.method} is not allowed on ${url.pathname}.`,
      { allowed: m.allowed },
      { allow: m.allowed.join(", ") },
    );
  throw new ApiError("route_not_found", `No route ${request.method} ${url.pathname}.`);
}
