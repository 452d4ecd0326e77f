/**
 * GET /metrics: the server's Prometheus metrics (http/metrics.ts), outside the API and every description (DESIGN
 * §10). Loopback clients only by default (the client's address, http/client-address.ts: behind a proxy on this machine
 * not given to --trust-proxy, every client is loopback); with `serve --metrics-token`, any client sending it as a
 * bearer token, and no client without it. test/http/metrics.test.ts.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "../domain/errors.js";
import { bearerToken } from "../http/auth.js";
import type { Ctx } from "../http/context.js";
import { type RouteDef, route } from "../http/route.js";

/** Whether an address is this machine's own: 127.0.0.0/8 or ::1, also as an IPv4-mapped IPv6 address. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}

/** Compares two tokens in constant time (their SHA-256 digests, so that their lengths tell nothing either). */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The 401 of a scrape the server does not take from this client, saying what it takes. */
function refused(tokenConfigured: boolean): ApiError {
  const message = tokenConfigured
    ? "GET /metrics needs the server's metrics token as a bearer token."
    : "GET /metrics answers loopback clients only; give the server a --metrics-token to scrape it from elsewhere.";
  return new ApiError("unauthorized", message);
}

/** Refuses a scrape unless its client may read the metrics (loopback, or the token when one is configured). */
function requireScraper(ctx: Ctx): void {
  const token = ctx.services.config.metricsToken;
  if (token === undefined) {
    if (!isLoopback(ctx.clientAddress)) throw refused(false);
    return;
  }
  const given = bearerToken(ctx.request);
  if (!given || !sameToken(given, token)) throw refused(true);
}

/** The metrics endpoint. */
export const metricsRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/metrics",
    operationId: "metrics",
    summary: "Prometheus metrics of this server (loopback only, or with the metrics token)",
    tag: "System",
    stability: "outside",
    access: "public",
    responses: { 200: { description: "The metrics in Prometheus's text format." }, 401: { description: "Refused." } },
    async handler(ctx: Ctx) {
      requireScraper(ctx);
      const metrics = ctx.services.metrics;
      if (!metrics) throw new ApiError("route_not_found", "This server keeps no metrics.");
      const { text, contentType } = await metrics.scrape();
      return {
        bytes: Buffer.from(text),
        headers: { "content-type": contentType, "cache-control": "no-store" },
      };
    },
  }),
];
