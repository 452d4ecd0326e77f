/** The OpenAPI 3.1 description, generated from the route table's valibot schemas (never written by hand). */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import { ERROR_CODES } from "../domain/errors.js";
import type { ServerConfig } from "./context.js";
import { IDEMPOTENCY_PARAMETER } from "./idempotency.js";
import {
  type ConvertedSchemas,
  conversionConfig,
  convertSchemas,
  mergeSchema,
  type OfferedModels,
  offeredModels,
} from "./openapi-schemas.js";
import type { ResponseDoc, RouteDef } from "./route.js";
import { ErrorBodySchema, NAMED_SCHEMAS } from "./schemas.js";

/** A path or query schema's JSON Schema, inline (parameters are listed one by one, never by reference). */
function schemaOf(schema: GenericSchema, typeMode: "input" | "output", models: OfferedModels): Record<string, unknown> {
  const json = toJsonSchema(schema, conversionConfig(typeMode, models)) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * The error responses the pipeline itself can give a route (DESIGN §3's order of checks), with their codes; a
 * route's own documentation of a status wins, and its codes are added to these.
 */
export function pipelineErrors(r: RouteDef): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  const add = (status: number, ...codes: string[]) => {
    out[status] = [...new Set([...(out[status] ?? []), ...codes])];
  };
  if (r.stability === "outside") return out;
  add(429, "rate_limit_exceeded");
  if (r.access !== "public") {
    add(401, "unauthorized");
    add(403, "plan_upgrade_required");
    if (r.method !== "GET") add(403, "insufficient_scope");
    if (r.access === "admin") add(403, "admin_required");
  } else if (r.rejectsApiKeys) add(401, "unauthorized");
  if (r.params || r.query || r.body) add(400, "validation_failed");
  if (r.body) {
    add(400, "invalid_json");
    add(413, "payload_too_large");
    add(415, "unsupported_media_type");
  }
  if (r.workspace) {
    add(400, "validation_failed", ...(r.workspace === "required" ? ["workspace_required"] : []));
    add(403, "workspace_mismatch");
    add(404, "workspace_not_found");
  }
  if (r.method === "POST" && r.access !== "public") {
    add(400, "validation_failed");
    add(409, "idempotency_key_reused", "idempotency_response_not_kept");
  }
  // A write that found the database locked by another process for longer than the server waits, and on PostgreSQL
  // any request while the database server cannot be reached (errors.ts; test/db/pg/restart.test.ts).
  add(503, "service_busy");
  // No room on the disk for the write (errors.ts isStorageFull).
  if (r.method !== "GET") add(507, "storage_full");
  return out;
}

/** Query or path parameters from an object schema, each field's description as the parameter's. */
function parametersOf(schema: GenericSchema | undefined, where: "path" | "query", models: OfferedModels) {
  if (!schema) return [];
  const json = schemaOf(schema, "input", models) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description, ...schema } = s as Record<string, unknown>;
    // The default of an integer carried as a string ("20") is the integer it stands for.
    if (schema.type === "integer" && typeof schema.default === "string") schema.default = Number(schema.default);
    const required = where === "path" || (json.required ?? []).includes(name);
    return { name, in: where, ...(description ? { description } : {}), required, schema };
  });
}

type Json = Record<string, unknown>;

/**
 * A body schema with only the fields one media type carries (`keep`): its `oneOf` alternatives (schemas.ts
 * exactlyOneOf) that require a field it lacks are dropped, and a single one left is merged into it.
 */
function carrying(json: Json, keep: (name: string) => boolean): Json {
  const props = (json.properties ?? {}) as Record<string, Json>;
  const out: Json = { ...json, properties: Object.fromEntries(Object.entries(props).filter(([name]) => keep(name))) };
  const alternatives = json.oneOf as { required?: string[] }[] | undefined;
  if (alternatives === undefined) return out;
  const left = alternatives.filter((a) => (a.required ?? []).every(keep));
  delete out.oneOf;
  if (left.length > 1) return { ...out, oneOf: left };
  return left.length === 1 ? mergeSchema(out, left[0]) : out;
}

/** The JSON form of an upload's body schema: every field but `file`, which only multipart/form-data carries. */
function jsonOf(json: Json): Json {
  return carrying(json, (name) => name !== "file");
}

/**
 * The multipart form of an upload's body schema: `file` is binary and required, every other field a string part;
 * the JSON-only fields (base64 data) and the alternatives to the file (schemas.ts exactlyOneOf) are left out.
 */
function multipartOf(json: Json): Json {
  const others = new Set(
    ((json.oneOf as { required?: string[] }[] | undefined) ?? [])
      .flatMap((a) => a.required ?? [])
      .filter((n) => n !== "file"),
  );
  const form = carrying(json, (name) => !name.startsWith("data_base64") && !others.has(name));
  const props = form.properties as Record<string, Json>;
  const properties = Object.fromEntries(
    Object.entries(props).map(([name, schema]) => [
      name,
      name === "file"
        ? { description: schema.description, type: "string", contentMediaType: "application/octet-stream" }
        : { ...schema, type: "string" },
    ]),
  );
  return { ...form, type: "object", properties, required: ["file"] };
}

/**
 * The headers responses carry (spec §8, DESIGN §3), described once under components.headers; `required` where every
 * response that lists the header sends it (the tests' contract check holds every response to this).
 */
const HEADERS: Record<string, { description: string; required: boolean; schema: Record<string, unknown> }> = {
  "X-RateLimit-Limit": {
    description: "Requests the limiting bucket holds (per key; per client address without credentials).",
    required: true,
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in that bucket.",
    required: true,
    schema: { type: "integer" },
  },
  "X-RateLimit-Reset": {
    description: "Unix time (seconds) at which that bucket is full again.",
    required: true,
    schema: { type: "integer" },
  },
  "X-Trace-Id": {
    description: "This response's trace id (also the error body's trace_id).",
    required: true,
    schema: { type: "string" },
  },
  "X-API-Stability": {
    description: "`beta` on the answers of beta operations.",
    required: true,
    schema: { type: "string", enum: ["beta"] },
  },
  "Retry-After": { description: "Seconds to wait before retrying.", required: true, schema: { type: "integer" } },
  "WWW-Authenticate": { description: "`Bearer`.", required: true, schema: { type: "string" } },
  Location: {
    description: "The path of the record this answer created (relative to the server's address).",
    required: true,
    schema: { type: "string" },
  },
  ETag: {
    description:
      "A strong validator, quoted: an image content's SHA-256 in hexadecimal; the description's, with `-gzip` after it for its gzip encoding. Send it in If-None-Match for a 304.",
    required: true,
    schema: { type: "string" },
  },
  "Cache-Control": {
    description: "`private, max-age=86400`: the bytes behind an image id never change (ids are never reused).",
    required: true,
    schema: { type: "string" },
  },
  Vary: {
    description: "`Accept-Encoding`: the answer depends on it.",
    required: true,
    schema: { type: "string" },
  },
  "Content-Encoding": {
    description: "`gzip` when the body is gzip-encoded (the request's Accept-Encoding allowed it).",
    required: false,
    schema: { type: "string", enum: ["gzip"] },
  },
  "Content-Disposition": {
    description:
      "`inline` with the image's file name: `filename` in ASCII (other characters as `_`) and `filename*` in UTF-8 (RFC 6266).",
    required: true,
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored response of an earlier request with the same Idempotency-Key.",
    required: false,
    schema: { type: "string", enum: ["true"] },
  },
};

/** The rate-limit headers: required on every response but a 503 (IF_COUNTED). */
const RATE_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];

/**
 * The component of a 503's rate-limit header: on PostgreSQL the buckets are in the database
 * (http/stored-ratelimit.ts), and a 503 for a database that cannot be reached has no count to report, so there the
 * header may be absent (test/db/pg/restart.test.ts).
 */
const IF_COUNTED = "-IfCounted";

/** The optional form of each rate-limit header, for 503s (components.headers, beside the required ones). */
function headersIfCounted(): typeof HEADERS {
  return Object.fromEntries(
    RATE_HEADERS.map((name) => [
      `${name}${IF_COUNTED}`,
      {
        ...HEADERS[name],
        required: false,
        description: `${HEADERS[name].description} Absent when the database could not be reached to count the request.`,
      },
    ]),
  );
}

/** The headers one response of a route carries, as references to components.headers. */
function headersOf(r: RouteDef, status: number): Record<string, { $ref: string }> {
  const refs = referencedHeaders(r, status);
  if (status !== 503) return refs;
  for (const name of RATE_HEADERS) refs[name] = { $ref: `#/components/headers/${name}${IF_COUNTED}` };
  return refs;
}

/** headersOf's list, each a reference to components.headers. */
function referencedHeaders(r: RouteDef, status: number): Record<string, { $ref: string }> {
  const names = [...RATE_HEADERS, "X-Trace-Id"];
  if (r.stability === "beta") names.push("X-API-Stability");
  if (status === 429 || status === 503) names.push("Retry-After");
  if (status === 401) names.push("WWW-Authenticate");
  if (status === 201 && r.created) names.push("Location");
  if (r.method === "POST" && r.access !== "public" && status !== 429) names.push("Idempotent-Replayed");
  names.push(...(r.responses[status]?.headers ?? []));
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** A route's documented responses plus the pipeline's own errors, each error naming its possible codes. */
function withPipelineErrors(r: RouteDef): Record<string, ResponseDoc & { codes?: string[] }> {
  const out: Record<string, ResponseDoc & { codes?: string[] }> = { ...r.responses };
  for (const [status, codes] of Object.entries(pipelineErrors(r))) {
    const own = out[status];
    const list = codes.map((c) => `\`${c}\``).join(", ");
    out[status] = own
      ? { ...own, description: `${own.description} Also: ${list}.` }
      : { description: `Error: ${list}.`, schema: ErrorBodySchema };
  }
  return out;
}

/** What each group of operations is for. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  "API keys":
    "What the calling key may do, and, with a web session, issuing, renaming and revoking the account's keys. A key's " +
    "secret is shown once, when it is issued.",
  Account:
    "The caller and its account: plan, API access and rate limits, the month's analysis quota, the signed-in user's " +
    "settings, the learning switches and the usage counters.",
  Admin: "For administrators' web sessions: accounts with their plans and rate limits, users, and the audit log.",
  Auth:
    "Signing in for a web session, which the operations API keys may not use require: email and password, or the " +
    "command line's device authorization; and signing out.",
  Billing:
    "A hosted service's billing operations: on this server plans are set by its administrator, and each answers 409 " +
    "billing_managed_locally.",
  Contents: "Content records: drafts, versions, editorial planning and publication.",
  Conversions: "A content record in another format: HTML, Markdown, plain text, social thread, email.",
  Generation: "Generation, finalization, theses and the engines that write.",
  Images: "Uploaded and generated images.",
  "Knowledge graph": "Entities and their relations in a workspace's references and finalized contents.",
  Learning: "Learning jobs started by finalization and the voice profiles they build.",
  MCP: "The Model Context Protocol endpoint for AI assistants and agents: its tools are this API's operations.",
  Memories: "Voice and context notes that generation applies.",
  "Reference materials": "Source documents that generation draws facts from.",
  Scoring: "Readability, structure, keyword and voice scores of a text.",
  System: "This machine-readable description of the API.",
  Sandbox:
    "Sandbox mode's own operations (`serve --sandbox`): fault rules, the request journal and this description; no credentials.",
  Templates: "Built-in and account templates: sections, length and tone.",
  Workspaces:
    "Workspaces keep an account's reference materials, memories, contents, conversions and knowledge graph apart; a " +
    "key may be bound to one.",
  Usage: "Requests, generations, words, finalizations, analyses and images per day and per key.",
};

/**
 * The component name of an operation's request body that is not named with schemas.ts named():
 * `<OperationId>Request`, so that a generated client has a named type for every request.
 */
function requestNameOf(r: RouteDef): string {
  return `${r.operationId[0].toUpperCase()}${r.operationId.slice(1)}Request`;
}

/**
 * The schemas of the described routes, converted with the named ones and every request body as components. Every
 * error response refers to the one ErrorBody: inlined, its 5 KB made up 2.8 MB of a 3.2 MB description.
 */
function convertRoutes(routes: RouteDef[], models: OfferedModels): ConvertedSchemas {
  const names: Record<string, GenericSchema> = { ...NAMED_SCHEMAS };
  const namedSchemas = new Set(Object.values(NAMED_SCHEMAS));
  const bodies: GenericSchema[] = [];
  for (const r of routes)
    if (r.body) {
      bodies.push(r.body);
      if (!namedSchemas.has(r.body)) {
        names[requestNameOf(r)] = r.body;
        namedSchemas.add(r.body);
      }
    }
  const responses = routes.flatMap((r) =>
    Object.values(r.responses).flatMap((doc) => (doc.schema ? [doc.schema] : [])),
  );
  const schemas = convertSchemas(bodies, [...responses, ErrorBodySchema], names, models);
  // An upload's request component is its JSON form, which cannot carry the file (multipartOf gives the other form).
  const nameOf = new Map(Object.entries(names).map(([name, schema]) => [schema, name]));
  for (const r of routes) {
    const name = r.upload && r.body ? nameOf.get(r.body) : undefined;
    if (name !== undefined && r.body) schemas.components[name] = jsonOf(schemas.bodyForm(r.body));
  }
  return schemas;
}

/** A response's media types: its schema's (with its example, as JSON), and any further ones it lists. */
function contentOf(doc: ResponseDoc, schemas: ConvertedSchemas): Record<string, unknown> | undefined {
  if (!doc.schema && !doc.alsoContent) return undefined;
  const own = doc.schema
    ? {
        [doc.contentType ?? "application/json"]: {
          schema: schemas.of(doc.schema, "output"),
          ...(doc.example !== undefined ? { example: doc.example } : {}),
        },
      }
    : {};
  const also = Object.entries(doc.alsoContent ?? {}).map(([type, schema]) => [type, { schema }]);
  return { ...own, ...Object.fromEntries(also) };
}

/** An operation's request body: the named JSON schema with its examples, and the multipart form of an upload. */
function requestBodyOf(r: RouteDef & { body: GenericSchema }, schemas: ConvertedSchemas): Record<string, unknown> {
  const examples = Object.entries(r.bodyExamples ?? {}).map(([name, value]) => [name, { value }]);
  const content: Record<string, unknown> = {
    "application/json": {
      schema: schemas.of(r.body, "input"),
      ...(examples.length ? { examples: Object.fromEntries(examples) } : {}),
    },
  };
  // Upload routes also take multipart/form-data: the same fields as strings, and `file` as the file's bytes.
  if (r.upload) content["multipart/form-data"] = { schema: multipartOf(schemas.bodyForm(r.body)) };
  return { required: true, content };
}

/** Which description to build: the public one (served, `openapi`), or the internal one with /admin/* too. */
export interface DescriptionOptions {
  /** Include the internal operations (spec §9.3), as `openapi --internal` and the dashboard's types do. */
  internal?: boolean;
  /**
   * Describe the operations outside the API among `routes` instead (sandbox mode's GET /_sandbox/openapi.json:
   * src/sandbox/description.ts), under `summary`.
   */
  outside?: { summary: string };
}

/**
 * The routes a description lists: never those outside the API; the internal ones (spec §9.3: excluded from the
 * public description) only in the internal description (test/http/openapi-internal.test.ts).
 */
export function describedRoutes(routes: RouteDef[], options: DescriptionOptions = {}): RouteDef[] {
  if (options.outside) return routes.filter((r) => r.stability === "outside");
  return routes.filter((r) => r.stability !== "outside" && (options.internal === true || r.stability !== "internal"));
}

const PUBLIC_SUMMARY = "Generate, edit, finalize, learn from and plan written content. Served by content-service.";
const INTERNAL_SUMMARY =
  `${PUBLIC_SUMMARY} This internal description also lists the operations of stability internal (spec §9.3: ` +
  "the administrators' /admin/*), which are no part of the API's contract and may change in any release.";

/** Builds the document for a server configuration: the public description, or with `internal` the internal one. */
export function buildOpenApi(
  routes: RouteDef[],
  config: Pick<ServerConfig, "publicUrl" | "stagingUrl"> & Partial<Pick<ServerConfig, "llm" | "imageModel">>,
  options: DescriptionOptions = {},
) {
  const models = offeredModels(config);
  const paths: Record<string, Record<string, unknown>> = {};
  const described = describedRoutes(routes, options);
  const schemas = convertRoutes(described, models);
  for (const r of described) {
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      "x-stability": r.stability,
      security: r.access === "public" ? [] : r.access === "any" ? [{ apiKey: [] }, { session: [] }] : [{ session: [] }],
      parameters: [...parametersOf(r.params, "path", models), ...parametersOf(r.query, "query", models)],
      responses: Object.fromEntries(
        Object.entries(withPipelineErrors(r)).map(([status, doc]) => {
          const content = contentOf(doc, schemas);
          return [
            status,
            { description: doc.description, headers: headersOf(r, Number(status)), ...(content ? { content } : {}) },
          ];
        }),
      ),
    };
    if (r.method === "POST" && r.access !== "public") (op.parameters as unknown[]).push(IDEMPOTENCY_PARAMETER);
    if (r.body) op.requestBody = requestBodyOf({ ...r, body: r.body }, schemas);
    paths[r.path] = { ...(paths[r.path] ?? {}), [r.method.toLowerCase()]: op };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Content Generation Service API",
      version: "1.0.0",
      description: options.outside?.summary ?? (options.internal ? INTERNAL_SUMMARY : PUBLIC_SUMMARY),
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [
      { url: config.publicUrl, description: "production" },
      { url: config.stagingUrl, description: "staging" },
    ],
    tags: [...new Set(described.map((r) => r.tag))].map((name) => ({
      name,
      description: TAG_DESCRIPTIONS[name] ?? name,
    })),
    paths,
    components: {
      schemas: schemas.components,
      headers: { ...HEADERS, ...headersIfCounted() },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key: svc_live_ followed by 32 characters." },
        session: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A web-session token from POST /api/v1/auth/login.",
        },
      },
    },
    "x-error-codes": Object.fromEntries(Object.entries(ERROR_CODES)),
  };
}
