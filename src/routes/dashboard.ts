/**
 * The dashboard (DESIGN §10): the web app at /, built from src/dashboard/ (scripts/build-dashboard.ts) and answered
 * from memory. Outside the API and its description (internal) and public: the page signs in with POST /auth/login and
 * from then on is a client of /api/v1 like any other, with its web session (spec §5).
 *
 * - `/` is the page, revalidated on every use (a new server's page is seen at once);
 * - `/assets/{file}` are its script and styles, whose names carry their content's hash: cached for a year, immutable;
 * - `/device` is the device authorization's verification_uri (RFC 8628 §3.2): it opens the page's approval form, with
 *   the user code of verification_uri_complete filled in.
 */
import { ApiError } from "../domain/errors.js";
import type { Ctx } from "../http/context.js";
import { type FixedBody, fixedBody, replyFixed } from "../http/fixed-body.js";
import { type RouteDef, route } from "../http/route.js";
import { dashboardFiles } from "../runtime/assets.js";

/**
 * Everything the page loads comes from this server, and nothing runs but its own script: no inline script or style
 * (Preact sets styles through the CSSOM, which the policy allows), no other origin, no frame around it. Its
 * session is in memory only, so no cookie needs SameSite or CSRF defences (docs/dashboard.md).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The headers of the page itself. */
const PAGE_HEADERS = {
  "content-security-policy": DASHBOARD_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

/** Content types by file extension, for the built files. */
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** Shown at / by a server run from source before the dashboard was built. */
const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>content-service</title></head>
<body><h1>The dashboard is not built</h1>
<p>Run <code>npm run build:dashboard</code> (or start with <code>npm start</code>, which builds it), then reload.
The API is at <a href="api/v1/openapi.json">api/v1</a>; its reference at <a href="docs">docs</a>.</p></body></html>
`;

let files: Map<string, FixedBody> | undefined;

/** The built files, read once (from the executable or dist/dashboard) and kept for the life of the process. */
function builtFiles(): Map<string, FixedBody> | undefined {
  if (files) return files;
  const found = dashboardFiles();
  if (found) files = new Map([...found].map(([name, bytes]) => [name, fixedBody(bytes)]));
  return files;
}

function typeOf(name: string): string {
  return TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream";
}

function pageHandler(ctx: Ctx) {
  const page = builtFiles()?.get("index.html");
  if (!page)
    return { status: 503, bytes: Buffer.from(NOT_BUILT), headers: { "content-type": TYPES[".html"], ...PAGE_HEADERS } };
  return replyFixed(ctx.request, page, TYPES[".html"], { "cache-control": "no-cache" }, PAGE_HEADERS);
}

function assetHandler(ctx: Ctx<{ file: string }>) {
  const name = `assets/${ctx.params.file}`;
  const body = builtFiles()?.get(name);
  if (!body) throw new ApiError("route_not_found", `The dashboard has no file ${name}.`);
  return replyFixed(
    ctx.request,
    body,
    typeOf(name),
    { "cache-control": "public, max-age=31536000, immutable" },
    { "x-content-type-options": "nosniff" },
  );
}

/** The approval form's address inside the page, with the user code of verification_uri_complete when given. */
function deviceHandler(ctx: Ctx) {
  const code = new URL(ctx.request.url).searchParams.get("user_code");
  const query = code ? `?${new URLSearchParams({ user_code: code })}` : "";
  // Relative, as the page's own addresses are, so that it works under a proxy's path prefix.
  return { status: 303, headers: { location: `./#/device${query}`, "cache-control": "no-store" } };
}

const common = { tag: "System", stability: "outside", access: "public" } as const;

/** The page, its files, and the device approval's address. */
export const dashboardRoutes: RouteDef[] = [
  route({
    ...common,
    method: "GET",
    path: "/",
    operationId: "dashboard",
    summary: "The dashboard, the web app for keys, workspaces, content and usage",
    responses: {
      200: { description: "The page (HTML)." },
      304: { description: "Not modified." },
      503: { description: "A server run from source whose dashboard was not built." },
    },
    handler: pageHandler,
  }),
  route({
    ...common,
    method: "GET",
    path: "/assets/{file}",
    operationId: "dashboardAsset",
    summary: "A script or style sheet of the dashboard (its name carries its content's hash)",
    responses: {
      200: { description: "The file." },
      304: { description: "Not modified." },
      404: { description: "No such file." },
    },
    handler: assetHandler,
  }),
  route({
    ...common,
    method: "GET",
    path: "/device",
    operationId: "dashboardDevice",
    summary: "Where a person approves a command-line sign-in (the device authorization's verification_uri)",
    responses: { 303: { description: "To the dashboard's approval form." } },
    handler: deviceHandler,
  }),
];
