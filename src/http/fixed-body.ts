/**
 * Bodies that do not change while the server runs (the description, the API reference page and its script): kept in
 * memory with a strong ETag, answered gzip-encoded when the client takes it, and 304 when its copy is current.
 */
import { createHash } from "node:crypto";
import { gzip } from "node:zlib";
import type { Reply } from "./route.js";

/** One fixed body: its bytes, the ETag of each encoding, and its gzip encoding, made once when first asked. */
export interface FixedBody {
  plain: Uint8Array;
  etag: string;
  gzipEtag: string;
  gzip(): Promise<Uint8Array>;
}

/** Wraps bytes that will not change as a FixedBody; the gzip encoding is made on the first request that takes it. */
export function fixedBody(plain: Uint8Array): FixedBody {
  const hash = createHash("sha256").update(plain).digest("hex");
  let compressed: Promise<Uint8Array> | undefined;
  return {
    plain,
    etag: `"${hash}"`,
    // A representation's own validator (RFC 9110 §8.8.3): the gzip bytes are not the plain ones.
    gzipEtag: `"${hash}-gzip"`,
    // Compressed once, on libuv's thread pool rather than the event loop (the description: 450 KB to 24 KB, a few
    // ms); a failure is not kept, so the next request tries again.
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
}

/**
 * The answer to a GET (or HEAD) of a fixed body: 304 when If-None-Match names the current ETag, else the bytes, gzip
 * when Accept-Encoding takes it. `headers` go on both answers (Cache-Control); `contentType` and `bodyHeaders` only
 * on the one with a body (a Content-Security-Policy applies to a document, not to its 304).
 */
export async function replyFixed(
  request: { headers: { get(name: string): string | null } },
  body: FixedBody,
  contentType: string,
  headers: Record<string, string> = {},
  bodyHeaders: Record<string, string> = {},
): Promise<Reply> {
  const gzipped = acceptsGzip(request.headers.get("accept-encoding"));
  const etag = gzipped ? body.gzipEtag : body.etag;
  const out: Record<string, string> = { ...headers, etag, vary: "Accept-Encoding" };
  if (matchesEtag(request.headers.get("if-none-match"), etag)) return { status: 304, headers: out };
  Object.assign(out, bodyHeaders, { "content-type": contentType });
  if (!gzipped) return { bytes: body.plain, headers: out };
  out["content-encoding"] = "gzip";
  return { bytes: await body.gzip(), headers: out };
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
export function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}
