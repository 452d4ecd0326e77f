/**
 * CORS for a browser front end on another origin (`serve --cors-origin`, docs/operations.md): the preflight's 204 and
 * the headers of an answer to a named origin. None by default: without origins a preflight gets the pipeline's coded
 * 405, and no answer says anything of CORS. Origins match exactly (scheme, host and port); never `*`, and never
 * credentials (the API takes bearer tokens, which a page sends as a header, not cookies). test/http/cors.test.ts.
 */
import type { Incoming, Outgoing } from "./exchange.js";

/** Request headers a page may send: the API's own (spec §5, DESIGN §3). */
const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, If-None-Match";

/** Answer headers a page may read: the rate limit's, the trace id and the rest the description lists. */
const EXPOSED_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "X-Trace-Id",
  "X-API-Stability",
  "Location",
  "ETag",
  "Idempotent-Replayed",
  "Content-Disposition",
  "WWW-Authenticate",
].join(", ");

/** How long a browser may keep a preflight's answer: 10 minutes (Chromium keeps at most 2 hours). */
const MAX_AGE_SECONDS = 600;

/** An origin as a browser sends it (`https://app.example:8443`), or undefined for a value that is not one. */
export function originOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  // An origin has no user, path, query or fragment: `https://app.example/` is one written with its root path.
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return;
  return url.origin;
}

/** The CORS rules of a server: which origins it answers, how a preflight and an answer carry them. */
export interface Cors {
  /** Whether the request is a preflight from a named origin (answered 204 by `preflight`). */
  isPreflight(request: Incoming): boolean;
  /** The 204 of a preflight, naming the methods the path answers. */
  preflight(request: Incoming, allowed: readonly string[]): Outgoing;
  /** Adds the CORS headers an answer to this request carries (none without configured origins). */
  decorate(request: Incoming, response: Outgoing): void;
}

/** Adds `Origin` to an answer's Vary, keeping what it had (Accept-Encoding). */
function varyOnOrigin(headers: Record<string, string>): void {
  const vary = headers.vary;
  headers.vary = vary ? `${vary}, Origin` : "Origin";
}

/** The CORS rules for these origins (already checked by serve: originOf). */
export function corsFor(origins: readonly string[] = []): Cors {
  const named = new Set(origins);
  const allowedOrigin = (request: Incoming): string | undefined => {
    const origin = request.headers.get("origin");
    return origin !== null && named.has(origin) ? origin : undefined;
  };
  return {
    isPreflight: (request) =>
      named.size > 0 &&
      request.method === "OPTIONS" &&
      request.headers.get("access-control-request-method") !== null &&
      allowedOrigin(request) !== undefined,
    preflight(request, allowed) {
      const headers: Record<string, string> = {
        "access-control-allow-origin": allowedOrigin(request)!,
        "access-control-allow-methods": allowed.join(", "),
        "access-control-allow-headers": ALLOWED_HEADERS,
        "access-control-max-age": String(MAX_AGE_SECONDS),
        vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      };
      return { status: 204, headers, body: null };
    },
    decorate(request, response) {
      // Without origins nothing; a preflight's 204 has its own.
      if (named.size === 0 || response.headers["access-control-allow-origin"] !== undefined) return;
      // Vary on every answer once origins are named: a cache must not give one origin's answer to another.
      varyOnOrigin(response.headers);
      const origin = allowedOrigin(request);
      if (origin === undefined) return;
      response.headers["access-control-allow-origin"] = origin;
      response.headers["access-control-expose-headers"] = EXPOSED_HEADERS;
    },
  };
}
