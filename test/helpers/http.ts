/** Shared pieces of the HTTP suites: DESIGN §3/§4 body checks, credentials per route, raw sends and probe routes. */
import * as v from "valibot";
import { expect } from "vitest";
import type { ApiKeyRow } from "../../src/db/apikeys.js";
import { createUser } from "../../src/domain/admin.js";
import { hashKey } from "../../src/domain/apikeys.js";
import { createApp } from "../../src/http/app.js";
import type { Ctx } from "../../src/http/context.js";
import { type Method, type RouteDef, route } from "../../src/http/route.js";
import { ROUTES } from "../../src/routes/index.js";
import { type Answer, type Harness, type Send, sendTo } from "./harness.js";

/** The harness's send, for any app over its services: the HTTP suites take it from here with their other pieces. */
export { sendTo };

/** DESIGN §4: the `error` word of each status an error may have. */
export const DESIGN_STATUS_WORDS: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
  500: "INTERNAL",
};

/**
 * The words of the statuses DESIGN §4 does not list: input past its processing time, the model server's failures, a
 * busy database, a full disk.
 */
const OTHER_STATUS_WORDS: Record<number, string> = {
  422: "UNPROCESSABLE_ENTITY",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
  507: "INSUFFICIENT_STORAGE",
};

/** Routes of the API, public and internal (everything but the health probes, the dashboard and /docs). */
export const API_ROUTES: RouteDef[] = ROUTES.filter((r) => r.stability !== "outside");

/** Whether a method needs the write scope (DESIGN §3: every method other than GET and HEAD). */
export function isWriteMethod(method: string): boolean {
  return method !== "GET" && method !== "HEAD";
}

/** A short name for a route in test titles. */
export function label(def: { method: string; path: string }): string {
  return `${def.method} ${def.path}`;
}

/**
 * Whether an error answer of this route and status is a JSON-RPC error carrying the coded body: only POST /mcp's
 * 400s (-32700 and -32600, which JSON-RPC itself defines, and -32000 for a header or query the transport refuses;
 * -32602 answers one request of a 200). Written here rather than read from the route table,
 * so that a route that wrongly wraps its errors fails the route walks.
 */
export function answersJsonRpc(def: { method: string; path: string }, status: number): boolean {
  return def.method === "POST" && def.path === "/api/v1/mcp" && status === 400;
}

/**
 * Checks that a response is an error whose body is exactly DESIGN §3's shape, with the trace id of the
 * X-Trace-Id header, no stack trace, and (for 401) a WWW-Authenticate: Bearer challenge. Only with `jsonRpc` (POST
 * /mcp, see expectJsonRpcErrorBody) is the body a JSON-RPC error carrying that shape as its `error.data`, with
 * `id: null`; without it such an envelope fails, as it would be a route answering another protocol's error.
 */
export function expectErrorBody(
  res: Answer,
  status: number,
  code?: string,
  opts: { jsonRpc?: boolean } = {},
): Record<string, unknown> {
  const context = `${status} ${code ?? ""}: ${JSON.stringify(res.body)}`;
  expect(res.status, context).toBe(status);
  expect(res.headers.get("content-type"), context).toMatch(/^application\/json/);
  expect(isJsonRpcError(res.body), `${opts.jsonRpc ? "a JSON-RPC error" : "the coded body"}: ${context}`).toBe(
    opts.jsonRpc === true,
  );
  const body = opts.jsonRpc ? jsonRpcErrorData(res.body, context) : res.body;
  expect(body, context).toBeTypeOf("object");
  expect(Object.keys(body).sort(), context).toEqual(["detail", "details", "error", "message", "trace_id"]);
  expect(body.error, context).toBe(DESIGN_STATUS_WORDS[status] ?? OTHER_STATUS_WORDS[status]);
  expect(body.message, context).toBeTypeOf("string");
  expect(body.message.length, context).toBeGreaterThan(0);
  expect(body.details, context).toBeTypeOf("object");
  expect(body.details.error_code, context).toBeTypeOf("string");
  if (code !== undefined) expect(body.details.error_code, context).toBe(code);
  expect(body.detail, context).toEqual(body.details);
  expect(body.trace_id, context).toBeTypeOf("string");
  expect(body.trace_id, context).toBe(res.headers.get("x-trace-id"));
  expect(JSON.stringify(body), context).not.toMatch(/\n\s+at |\bat .*\.(ts|js):\d+/);
  if (status === 401) expect(res.headers.get("www-authenticate"), context).toMatch(/^Bearer/);
  return body.details;
}

/** expectErrorBody for POST /mcp: a JSON-RPC error (id null) whose `error.data` is the coded body. */
export function expectJsonRpcErrorBody(res: Answer, status: number, code?: string): Record<string, unknown> {
  return expectErrorBody(res, status, code, { jsonRpc: true });
}

/** expectErrorBody for an answer of the route `def`: a JSON-RPC error where that route answers its errors so. */
export function expectErrorBodyOf(
  def: { method: string; path: string },
  res: Answer,
  status: number,
  code?: string,
): Record<string, unknown> {
  return expectErrorBody(res, status, code, { jsonRpc: answersJsonRpc(def, status) });
}

/** Whether a body is a JSON-RPC 2.0 error response. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are arbitrary JSON.
export function isJsonRpcError(body: any): boolean {
  return body !== null && typeof body === "object" && body.jsonrpc === "2.0" && "error" in body;
}

/** An error answer's coded body: the body itself, or a JSON-RPC error's `error.data`. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are arbitrary JSON.
export function codedBody(body: any): any {
  return isJsonRpcError(body) ? body.error.data : body;
}

/** The `error.data` of a JSON-RPC error answering a whole request (id null), after checking its envelope. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are arbitrary JSON.
function jsonRpcErrorData(body: any, context: string): any {
  expect(Object.keys(body).sort(), context).toEqual(["error", "id", "jsonrpc"]);
  expect(body.id, context).toBeNull();
  expect(Object.keys(body.error).sort(), context).toEqual(["code", "data", "message"]);
  expect(Number.isInteger(body.error.code), context).toBe(true);
  expect(body.error.message, context).toBeTypeOf("string");
  return body.error.data;
}

/**
 * The light check of an error answer where its suite checks the full body elsewhere: the status (with the start of
 * the body in the failure's message), the error code, and the trace id the X-Trace-Id header names.
 */
export function expectCode(res: Answer, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(status);
  expect(res.body.details.error_code).toBe(code);
  expect(res.body.trace_id).toBe(res.headers.get("x-trace-id"));
}

/** Checks the three X-RateLimit-* headers: integers, remaining within the limit, reset a Unix time in seconds. */
export function expectRateHeaders(res: Answer, nowMs?: number): { limit: number; remaining: number; reset: number } {
  const raw = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"].map((h) => res.headers.get(h));
  for (const value of raw) expect(value, `rate headers ${JSON.stringify(raw)}`).toMatch(/^\d+$/);
  const [limit, remaining, reset] = raw.map(Number);
  expect(remaining).toBeLessThanOrEqual(limit);
  if (nowMs !== undefined) {
    expect(reset).toBeGreaterThanOrEqual(Math.floor(nowMs / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowMs / 1000) + 3600);
  }
  return { limit, remaining, reset };
}

/**
 * Generates a content (POST /generate, checked to answer 201) and finalizes it (POST /finalizeContent, checked to
 * answer 200), as the setup of a test about what a finalized content does; `text` makes the finalized text, from the
 * generated one where it is a function. Through a harness, or anything that sends as it does (a running server's app
 * through sendTo).
 */
export async function generateAndFinalize(
  via: { send(method: string, path: string, opts?: Send): Promise<Answer> },
  auth: string,
  generate: Record<string, unknown>,
  finalize: { text: string | ((generated: string) => string); editSeconds: number },
): Promise<{ generated: Answer; finalized: Answer; text: string }> {
  const generated = await via.send("POST", "/api/v1/generate", { auth, body: generate });
  expect(generated.status, JSON.stringify(generated.body)).toBe(201);
  const text = typeof finalize.text === "function" ? finalize.text(generated.body.content) : finalize.text;
  const finalized = await via.send("POST", "/api/v1/finalizeContent", {
    auth,
    body: { content_id: generated.body.content_id, finalized_content: text, edit_seconds: finalize.editSeconds },
  });
  expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
  return { generated, finalized, text };
}

let addressCounter = 0;
/** A client address no other request of the run has used, so per-address buckets never interfere. */
export function freshAddress(): string {
  addressCounter += 1;
  return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

/** A session token for an existing user, minted directly (no password check, no per-address budget used). */
export async function sessionOf(h: Harness, email: string): Promise<string> {
  const user = h.services.store.users.byEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  return (await h.services.sessions.issue(user)).token;
}

/** Creates a user in an account, with the harness's known password, and returns a session token for it. */
export async function userIn(h: Harness, accountId: number, email: string, role: "admin" | "member"): Promise<string> {
  const hash = h.services.store.users.byEmail("admin@a.test")!.password_hash;
  createUser(h.services.store, "test", accountId, email, hash, role, h.clock.now());
  return sessionOf(h, email);
}

/** The stored row of a key secret. */
export function keyRow(h: Harness, secret: string): ApiKeyRow {
  const row = h.services.store.apiKeys.byHash(hashKey(secret));
  if (!row) throw new Error("no such key");
  return row;
}

/** Valid credentials for a route of account A: none for public routes, a read+write key, or an admin session. */
export async function credentialFor(h: Harness, def: RouteDef): Promise<string | undefined> {
  if (def.access === "public") return undefined;
  if (def.access === "any") return h.key();
  return sessionOf(h, "admin@a.test");
}

/** Path values of account A's real records, so a route's call can reach its handler. */
export function realParams(h: Harness): Record<string, string> {
  const keyId = h.services.store.apiKeys.list(h.a.id)[0]?.id ?? "key_missing";
  return { workspaceId: h.a.ws2, id: String(h.a.id), keyId };
}

/** Fills a route path with account A's real ids (`{id}` of api-keys routes is a key id). */
export function realPath(h: Harness, def: RouteDef): string {
  const values = realParams(h);
  return def.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "id" && def.path.startsWith("/api/v1/api-keys/")) return values.keyId;
    return values[name] ?? "x1";
  });
}

/** What the probe routes saw: one entry per handler run. */
export interface ProbeLog {
  calls: { method: string; path: string; workspaceId: string | null }[];
}

/** What a test-only route (a probe) says of itself: beta, open to any caller, documenting no answers. */
export const PROBE_ROUTE = {
  summary: "probe",
  tag: "Probe",
  stability: "beta" as const,
  access: "any" as const,
  responses: {},
};

/**
 * Test-only routes that exercise pipeline rules the foundation's route table does not use yet
 * (write methods open to keys, `workspace: "required"`, workspace_id in a JSON body).
 */
export function probeRoutes(log: ProbeLog): RouteDef[] {
  const handler = (ctx: Ctx) => {
    const url = new URL(ctx.request.url);
    const workspaceId = ctx.workspace ? ctx.workspace.id : null;
    log.calls.push({ method: ctx.request.method, path: url.pathname, workspaceId });
    return { body: { workspace_id: workspaceId } };
  };
  const body = v.optional(v.looseObject({ workspace_id: v.optional(v.string()) }));
  const defs: RouteDef[] = [];
  for (const method of ["POST", "PUT", "PATCH", "DELETE"] as Method[])
    defs.push(
      route({
        ...PROBE_ROUTE,
        method,
        path: "/api/v1/__probe/write",
        operationId: `probeWrite${method}`,
        ...(method === "DELETE" ? {} : { body }),
        handler,
      }),
    );
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as Method[])
    defs.push(
      route({
        ...PROBE_ROUTE,
        method,
        path: "/api/v1/__probe/workspace",
        operationId: `probeWorkspace${method}`,
        workspace: "required",
        ...(method === "GET" || method === "DELETE" ? {} : { body }),
        handler,
      }),
    );
  return defs;
}

/** The app with the route table plus the probe routes, over the harness's services. */
export function probeApp(h: Harness) {
  const log: ProbeLog = { calls: [] };
  const probes = probeRoutes(log);
  const app = createApp(h.services, [...ROUTES, ...probes]);
  return {
    log,
    probes,
    routes: [...ROUTES, ...probes],
    send: (method: string, path: string, opts?: Send & { bytes?: Uint8Array }) => sendTo(app, method, path, opts),
  };
}
