/** Health and readiness (outside the API and /api/v1) and the machine-readable description. */
import * as v from "valibot";
import type { Ctx } from "../http/context.js";
import { type FixedBody, fixedBody, replyFixed } from "../http/fixed-body.js";
import { route } from "../http/route.js";

/** Set by the server while it drains on shutdown, so readiness answers 503. */
export const lifecycle = { draining: false };

/** Health, readiness and the machine-readable description of the API. */
export const systemRoutes = [
  route({
    method: "GET",
    path: "/healthz",
    operationId: "healthz",
    summary: "Liveness",
    tag: "System",
    stability: "outside",
    access: "public",
    responses: { 200: { description: "Alive." } },
    handler: () => ({ body: { status: "ok" } }),
  }),
  route({
    method: "GET",
    path: "/readyz",
    operationId: "readyz",
    summary: "Readiness: the database answers, the server is not draining and its disk is not full",
    tag: "System",
    stability: "outside",
    access: "public",
    responses: { 200: { description: "Ready." }, 503: { description: "Not ready." } },
    async handler(ctx: Ctx) {
      ctx.services.store.misc.ping();
      if (lifecycle.draining) return { status: 503, body: { status: "draining" } };
      // A write met a full disk: not ready until the data directory's file system has room again (storage-watch.ts):
      // 16 MiB, and the -wal's size on top after a WAL checkpoint met it. The body says how much this check required.
      const storage = await ctx.services.storage.state();
      if (storage.full)
        return {
          status: 503,
          body: {
            status: "storage_full",
            error_code: "storage_full",
            message: `The server's disk is full: not ready until at least ${storage.requiredFreeBytes} bytes are free again.`,
            required_free_bytes: storage.requiredFreeBytes,
          },
        };
      return { body: { status: "ready" } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/openapi.json",
    operationId: "getOpenApi",
    summary: "This API's OpenAPI 3.1 description",
    description:
      "This document: every operation with its parameters, request bodies and their examples, responses, error " +
      "codes (x-error-codes) and the named record schemas under components.schemas. Feed it to a client generator, " +
      "a request tester or an API browser. It needs no credentials, is built once per start, and answers 304 to an " +
      "If-None-Match with its current ETag.",
    tag: "System",
    stability: "stable",
    access: "public",
    responses: {
      200: {
        description:
          "The OpenAPI document; gzip-encoded (`Content-Encoding: gzip`) when Accept-Encoding allows gzip, with an ETag per encoding.",
        schema: v.looseObject({ openapi: v.pipe(v.string(), v.description("The OpenAPI version: 3.1.0.")) }),
        headers: ["ETag", "Vary", "Content-Encoding"],
      },
      304: { description: "Not modified: the If-None-Match ETag is current.", headers: ["ETag", "Vary"] },
    },
    handler: (ctx: Ctx) =>
      replyFixed(
        ctx.request,
        representationsOf(openApiProvider.document(ctx.services.config) as object),
        "application/json; charset=utf-8",
      ),
  }),
];

/** Per built document (one per configured pair of URLs, routes/index.ts): serialized once, as it does not change. */
const representations = new WeakMap<object, FixedBody>();

function representationsOf(doc: object): FixedBody {
  let found = representations.get(doc);
  if (!found) {
    found = fixedBody(Buffer.from(JSON.stringify(doc)));
    representations.set(doc, found);
  }
  return found;
}

/** Filled in by the route table, which knows every route (avoids an import cycle). */
export const openApiProvider: { document(config: Ctx["services"]["config"]): unknown } = {
  document: () => ({}),
};
