/**
 * GET /docs, the API reference page, and the Redoc bundle it loads, without a browser (test/browser/docs-page.test.ts
 * renders it): answered from memory with a strong ETag, the page under a policy that allows nothing from another
 * origin, both public and outside the description.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../src/http/openapi.js";
import { DOCS_CSP } from "../../src/routes/docs.js";
import { ROUTES } from "../../src/routes/index.js";
import { DEFAULT_CONFIG } from "../../src/server/services.js";
import { makeHarness } from "../helpers/harness.js";

const bundleFile = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");

async function raw(path: string, init: RequestInit = {}): Promise<Response> {
  const h = makeHarness();
  return h.app.handle(new Request(`http://test.local${path}`, init), { remoteAddress: "10.9.0.1" });
}

describe("GET /docs", () => {
  it("is an HTML page that loads the bundle and the live description by relative addresses", async () => {
    const res = await raw("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain('<script src="docs/redoc.standalone.js"></script>');
    expect(html).toContain('<redoc spec-url="api/v1/openapi.json"');
    // No address of another origin, and no inline script for the policy to allow.
    expect(html).not.toMatch(/(https?:)?\/\/[a-z]/i);
    expect(html).not.toMatch(/<script>/);
  });

  it("moves /docs/ to /docs, by a relative address, where the page's own relative addresses resolve", async () => {
    const res = await raw("/docs/");
    expect(res.status).toBe(308);
    const location = res.headers.get("location");
    expect(location).toBe("../docs");
    expect(new URL(location!, "http://test.local/prefix/docs/").pathname).toBe("/prefix/docs");
  });

  it("carries a Content-Security-Policy that allows only this origin (and blob: workers, inline styles)", async () => {
    const res = await raw("/docs");
    const csp = res.headers.get("content-security-policy");
    expect(csp).toBe(DOCS_CSP);
    const directives = Object.fromEntries(
      (csp ?? "").split(";").map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values];
      }),
    );
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(directives["img-src"]).toEqual(["'self'", "data:"]);
    expect(directives["worker-src"]).toEqual(["blob:"]);
    for (const values of Object.values(directives))
      for (const value of values as string[]) expect(value).toMatch(/^('self'|'none'|'unsafe-inline'|data:|blob:)$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("answers a current ETag with 304, and HEAD with the GET's headers and no body", async () => {
    const first = await raw("/docs");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const again = await raw("/docs", { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    const head = await raw("/docs", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(etag);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await head.text()).toBe("");
  });

  it("is public: credentials are not needed, and bad ones are ignored", async () => {
    const res = await raw("/docs", { headers: { authorization: "Bearer svc_live_not-a-key" } });
    expect(res.status).toBe(200);
  });

  it("is not part of the API description", () => {
    const doc = buildOpenApi(ROUTES, DEFAULT_CONFIG) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/docs"))).toEqual([]);
  });
});

describe("GET /docs/redoc.standalone.js", () => {
  it("is Redoc's standalone bundle from the npm package, as JavaScript", async () => {
    const res = await raw("/docs/redoc.standalone.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(bundleFile))).toBe(true);
  });

  it("is gzip-encoded when the client takes gzip, with its own ETag, and 304 when current", async () => {
    const plain = await raw("/docs/redoc.standalone.js");
    const gz = await raw("/docs/redoc.standalone.js", { headers: { "accept-encoding": "gzip" } });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("vary")).toBe("Accept-Encoding");
    expect(gz.headers.get("etag")).not.toBe(plain.headers.get("etag"));
    const bytes = Buffer.from(await gz.arrayBuffer());
    expect(gunzipSync(bytes).equals(readFileSync(bundleFile))).toBe(true);
    const again = await raw("/docs/redoc.standalone.js", {
      headers: { "accept-encoding": "gzip", "if-none-match": gz.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("comes with its licence notices", async () => {
    const res = await raw("/docs/redoc.standalone.js.LICENSE.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toMatch(/MIT/);
  });
});
