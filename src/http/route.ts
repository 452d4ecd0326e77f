/** The shape of one endpoint: its place in the route table, its schemas and its handler. */
import type { GenericSchema } from "valibot";
import type { ApiError } from "../domain/errors.js";
import type { Ctx } from "./context.js";
import type { ErrorBody } from "./errors.js";

/** The HTTP methods a route can answer. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call a route:
 * public: anyone (credentials ignored, limited per address);
 * any: an API key or a web session;
 * session: a web session only (an API key gets 401, spec §4.11);
 * admin: a web session of an admin user.
 */
export type Access = "public" | "any" | "session" | "admin";

/** A documented response of a route. */
export interface ResponseDoc {
  description: string;
  schema?: GenericSchema;
  contentType?: string;
  /** Further media types of the same response, as JSON Schema (e.g. text/event-stream for a streamed answer). */
  alsoContent?: Record<string, Record<string, unknown>>;
  /** Headers of this response beyond those every response carries: names of components.headers (openapi.ts). */
  headers?: readonly string[];
  /** An example of this response's body, shown in the description (application/json only). */
  example?: unknown;
}

/**
 * What a handler returns: JSON with a status, or a ready Response. `bytes` is a body already encoded (its headers
 * name its Content-Type), sent as it is instead of `body` as JSON: the description's, serialized and compressed once.
 */
export type Reply =
  | { status?: number; body?: unknown; bytes?: Uint8Array; headers?: Record<string, string> }
  | Response;

/**
 * Whether a handler's reply is a Fetch Response (streams, images, MCP) rather than a plain reply. Told by its shape,
 * not by `instanceof Response`: naming the global `Response` makes Node load its fetch implementation (undici, 20-35
 * ms of compiling on the development machine), which a start would otherwise spend on its first answer.
 */
export function isFetchResponse(reply: Reply): reply is Response {
  return typeof (reply as { arrayBuffer?: unknown }).arrayBuffer === "function";
}

/** One endpoint. */
export interface RouteDef {
  method: Method;
  /** OpenAPI-style path, e.g. `/api/v1/workspaces/{workspaceId}`. */
  path: string;
  operationId: string;
  summary: string;
  /**
   * What the operation does, when to use it and what it changes, in plain words for the description's reader
   * (the summary is its one-line title).
   */
  description?: string;
  tag: string;
  /**
   * Spec §9.3: stable and beta operations are in the public description; internal ones (the administrators' /admin/*)
   * only in the internal one (`openapi --internal`) and are no part of the contract. `outside`: served beside the API
   * and no part of it (the health probes, the dashboard, /docs, /metrics: DESIGN §10): no credentials read, never
   * refused by the rate limit, in no description.
   */
  stability: "stable" | "beta" | "internal" | "outside";
  access: Access;
  /**
   * Workspace awareness (spec §5): `required` resolves the request's workspace (bound, explicit or the
   * account default; else 400); `optional` only checks an explicit workspace_id against the binding.
   */
  workspace?: "required" | "optional";
  /**
   * With `workspace: "required"`: a body field naming a record whose own workspace the operation uses (generate's
   * content_id). A body that names it resolves the workspace as `optional`; one without it as `required`, so that
   * 400 workspace_required comes before the body's validation (DESIGN §3).
   */
  workspaceUnless?: string;
  /**
   * The operation takes further rate-limit tokens of the caller (an MCP batch's tool calls, each a request of its
   * own): its X-RateLimit-* headers are read when it answers, not when it began.
   */
  spendsTokens?: boolean;
  /**
   * Where the record a 201 answer created is read (e.g. `/api/v1/memories/7`), from the answer's body: sent as the
   * `Location` header (RFC 9110 §10.2.2).
   */
  // biome-ignore lint/suspicious/noExplicitAny: each route reads its own answer's body.
  created?: (body: any) => string;
  /**
   * The operation acts on the calling web session itself (logout): its Idempotency-Key answers are kept per session,
   * not per user, so that another session's request under the same key runs instead of replaying "signed out".
   */
  idempotencyPerSession?: boolean;
  /** Set by route(): the operation is a list, whose query takes a cursor (bound to it: cursors.ts). */
  lists?: boolean;
  /** Reachable by sessions of starter/pro accounts (account reads, settings, billing). */
  planExempt?: boolean;
  /** A public route that must refuse API keys with 401 (login and other §4.11 operations). */
  rejectsApiKeys?: boolean;
  /**
   * A route that also takes a file: multipart/form-data (fields as strings, files as UploadedFile) or
   * JSON, up to `maxBytes` (DESIGN §3: 10 MiB for images). Without it a body must be JSON of at most 1 MiB.
   */
  upload?: {
    maxBytes: number;
    /** The limit of the same operation sent as JSON (default 1 MiB, DESIGN §3; images carry base64 in JSON). */
    jsonMaxBytes?: number;
    /**
     * The 413 of a body past its limit, when the limit the client cares for is another one (an image's 10 MiB, not the
     * envelope's bytes around its base64).
     */
    tooLarge?: () => ApiError;
  };
  /**
   * An empty JSON body (no bytes, or whitespace only) is 400 invalid_json, not `{}`: for a protocol whose message is
   * the body (POST /mcp: JSON-RPC 2.0 makes a body that does not parse a Parse error). Elsewhere an empty body is `{}`,
   * so that an operation whose fields are all optional may be sent without one. The Content-Type is checked first, as
   * for any body: an empty one sent as text/plain, or with no type, is 415 unsupported_media_type.
   */
  bodyRequired?: boolean;
  /**
   * Top-level fields of a success body that carry a secret shown once (a new key, a generated password): the copy
   * kept for an Idempotency-Key replay has them null, so the secret is never stored and never shown again.
   */
  shownOnce?: readonly string[];
  /**
   * The answer carries a secret (a session token; a route with `shownOnce` fields is one too): it goes with
   * Cache-Control: no-store, so that no browser or proxy keeps a copy (runOperation).
   */
  secret?: boolean;
  /**
   * The body of this route's error answers, given the coded body (DESIGN §3) every other route answers with: a
   * protocol of its own may carry it in its own envelope (POST /mcp answers its 400s as JSON-RPC errors). Its
   * `responses` describe what it returns.
   */
  errorBody?: (body: ErrorBody, error: ApiError) => unknown;
  params?: GenericSchema;
  query?: GenericSchema;
  body?: GenericSchema;
  /**
   * Examples of a valid request body, by name: the description shows them, and a test sends each one to the server
   * and expects the operation's documented success status.
   */
  bodyExamples?: Record<string, unknown>;
  responses: Record<number, ResponseDoc>;
  // biome-ignore lint/suspicious/noExplicitAny: each route narrows its own ctx types through its schemas.
  handler(ctx: Ctx<any, any, any>): Reply | Promise<Reply>;
}

/** Identity helper that keeps a route's literal types. */
export function route<const R extends RouteDef>(def: R): R {
  const entries = (def.query as { entries?: Record<string, unknown> } | undefined)?.entries;
  def.lists = entries !== undefined && "cursor" in entries;
  return def;
}
