/**
 * The API reference in the browser: GET /docs is a page on which Redoc's standalone bundle (served by this server
 * too) renders the live description, /api/v1/openapi.json. Outside the API and its description (internal), public,
 * and answered from memory: the page is made once, each bundle file read once on its first request.
 */
import type { Ctx } from "../http/context.js";
import { type FixedBody, fixedBody, replyFixed } from "../http/fixed-body.js";
import { type RouteDef, route } from "../http/route.js";
import { type ServedAsset, servedAsset } from "../runtime/assets.js";

/**
 * Everything the page loads comes from this server: its script, the description, and the search index's worker,
 * which Redoc starts from a blob: URL. Its styles are inline (styled-components writes them at run time), its images
 * data: URLs. Nothing from another origin is allowed, so that the page works offline and tells no one it was read:
 * Redoc's sidebar links a logo on its own CDN, which this policy keeps from loading (test/browser/docs-page.test.ts).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

// System fonts: Redoc's default theme names web fonts (Roboto, Montserrat) that a page loading nothing from another
// origin does not have.
const THEME = {
  typography: {
    fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
    headings: { fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif" },
    code: { fontFamily: "ui-monospace, DejaVu Sans Mono, Menlo, Consolas, monospace" },
  },
};

/** A value made safe to stand between an HTML attribute's double quotes. */
function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/**
 * The page. Its addresses are relative, so that it works under any path a proxy puts the server at (`--public-url
 * https://host/content` serves it at /content/docs): "docs/…" and "api/v1/…" resolve beside /docs. Redoc starts
 * itself from the <redoc> element, so the page has no inline script for the policy to allow.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>content-service API reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; }</style>
</head>
<body>
<noscript>This page needs JavaScript. The description it shows is at <a href="api/v1/openapi.json">api/v1/openapi.json</a>.</noscript>
<redoc spec-url="api/v1/openapi.json" theme="${escapeAttribute(JSON.stringify(THEME))}"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`;

/** Revalidated on every use (a 304 when current), so that a browser sees a new server's page and bundle at once. */
const CACHE_CONTROL = { "cache-control": "no-cache" };

const page = fixedBody(Buffer.from(PAGE));
const assets = new Map<ServedAsset, FixedBody>();

/** A served asset, read into memory on its first request and kept for the life of the process. */
function assetBody(key: ServedAsset): FixedBody {
  let found = assets.get(key);
  if (!found) {
    found = fixedBody(servedAsset(key));
    assets.set(key, found);
  }
  return found;
}

/** A route answering one served asset at /docs/<key>. */
function assetRoute(key: ServedAsset, operationId: string, contentType: string, summary: string): RouteDef {
  return route({
    method: "GET",
    path: `/docs/${key}`,
    operationId,
    summary,
    tag: "System",
    stability: "outside",
    access: "public",
    responses: { 200: { description: summary }, 304: { description: "Not modified." } },
    handler: (ctx: Ctx) =>
      replyFixed(ctx.request, assetBody(key), contentType, CACHE_CONTROL, { "x-content-type-options": "nosniff" }),
  });
}

/** The reference page and the files it loads. */
export const docsRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/docs",
    operationId: "docs",
    summary: "The API reference, rendered in the browser from the description",
    tag: "System",
    stability: "outside",
    access: "public",
    responses: {
      200: { description: "The page (HTML)." },
      304: { description: "Not modified." },
      308: { description: "/docs/ moves to /docs." },
    },
    handler: (ctx: Ctx) => {
      // The page's addresses are relative (so that it works behind a --public-url prefix): from /docs/ they would
      // name /docs/docs/…, a blank page. Its Location is relative too. Tested by test/routes/docs.test.ts.
      if (new URL(ctx.request.url).pathname.endsWith("/")) return { status: 308, headers: { location: "../docs" } };
      return replyFixed(ctx.request, page, "text/html; charset=utf-8", CACHE_CONTROL, {
        "content-security-policy": DOCS_CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
      });
    },
  }),
  assetRoute(
    "redoc.standalone.js",
    "docsScript",
    "text/javascript; charset=utf-8",
    "Redoc's standalone bundle, for /docs",
  ),
  assetRoute(
    "redoc.standalone.js.LICENSE.txt",
    "docsScriptLicense",
    "text/plain; charset=utf-8",
    "The licences of Redoc's bundle",
  ),
];
