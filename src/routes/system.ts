/** Health and readiness (internal, outside /api/v1) and the machine-readable description. */
import { createHash } from "node:crypto";
import { gzip } from "node:zlib";
import * as v from "valibot";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";

/** Set by the server while it drains on shutdown, so readiness answers 503. */
export const lifecycle = { draining: false };

export const systemRoutes = [
  route({
    method: "GET",
    path: "/healthz",
    operationId: "healthz",
    summary: "Liveness",
    tag: "System",
    stability: "internal",
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
    stability: "internal",
    access: "public",
    responses: { 200: { description: "Ready." }, 503: { description: "Not ready." } },
    async handler(ctx: Ctx) {
      ctx.services.store.db.prepare("SELECT 1").get();
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
    async handler(ctx: Ctx) {
      const doc = representationsOf(openApiProvider.document(ctx.services.config) as object);
      const gzipped = acceptsGzip(ctx.request.headers.get("accept-encoding"));
      const etag = gzipped ? doc.gzipEtag : doc.etag;
      const headers: Record<string, string> = { etag, vary: "Accept-Encoding" };
      if (matchesEtag(ctx.request.headers.get("if-none-match"), etag)) return { status: 304, headers };
      headers["content-type"] = "application/json; charset=utf-8";
      if (!gzipped) return { bytes: doc.plain, headers };
      headers["content-encoding"] = "gzip";
      return { bytes: await doc.gzip(), headers };
    },
  }),
];

/** The description serialized once, its ETag, and its gzip encoding, made on the first request that takes it. */
interface Representations {
  plain: Uint8Array;
  etag: string;
  gzipEtag: string;
  gzip(): Promise<Uint8Array>;
}

/** Per built document (one per configured pair of URLs, routes.ts): it does not change while the server runs. */
const representations = new WeakMap<object, Representations>();

function representationsOf(doc: object): Representations {
  let found = representations.get(doc);
  if (!found) {
    const plain = Buffer.from(JSON.stringify(doc));
    const hash = createHash("sha256").update(plain).digest("hex");
    let compressed: Promise<Uint8Array> | undefined;
    found = {
      plain,
      etag: `"${hash}"`,
      // A representation's own validator (RFC 9110 §8.8.3): the gzip bytes are not the plain ones.
      gzipEtag: `"${hash}-gzip"`,
      // Compressed once, on libuv's thread pool rather than the event loop (450 KB to 24 KB, a few ms); a failure is
      // not kept, so the next request tries again. Serialized once too: JSON.stringify of the document ran on the
      // event loop for every request.
      gzip: () => {
        compressed ??= new Promise<Uint8Array>((resolve, reject) =>
          gzip(plain, (err, out) => (err ? reject(err) : resolve(out))),
        ).catch((err) => {
          compressed = undefined;
          throw err;
        });
        return compressed;
      },
    };
    representations.set(doc, found);
  }
  return found;
}

/**
 * Whether an Accept-Encoding value takes gzip (RFC 9110 §12.5.3): `gzip` (or `x-gzip`) with a q-value above 0, or
 * `*` above 0 where gzip is not named; not when `identity` is named with a higher q-value than gzip's.
 */
export function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  let gzipQ: number | undefined;
  let anyQ: number | undefined;
  let identityQ: number | undefined;
  for (const part of header.split(",")) {
    const [coding, ...params] = part.split(";").map((s) => s.trim());
    if (!coding) continue;
    let q = 1;
    for (const param of params) {
      const m = /^q\s*=\s*([0-9.]+)$/i.exec(param);
      if (m) q = Number.isFinite(Number(m[1])) ? Number(m[1]) : 0;
    }
    const name = coding.toLowerCase();
    if (name === "gzip" || name === "x-gzip") gzipQ = Math.max(gzipQ ?? 0, q);
    else if (name === "*") anyQ = q;
    else if (name === "identity") identityQ = q;
  }
  const q = gzipQ ?? anyQ ?? 0;
  return q > 0 && (identityQ === undefined || q >= identityQ);
}

/** Whether an If-None-Match value names this ETag (weak comparison, RFC 9110 §13.1.2) or is `*`. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/** Filled in by the route table, which knows every route (avoids an import cycle). */
export const openApiProvider: { document(config: Ctx["services"]["config"]): unknown } = {
  document: () => ({}),
};
