/** The OpenAPI 3.1 description, generated from the route table's valibot schemas (never written by hand). */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import type { ServerConfig } from "./context.js";
import { ERROR_CODES } from "./errors.js";
import { IDEMPOTENCY_PARAMETER } from "./idempotency.js";
import type { ResponseDoc, RouteDef } from "./route.js";
import { ErrorBodySchema } from "./schemas.js";

/** The engines a server offers, by the field that names one: a text engine (`model`) or an image model. */
export interface OfferedModels {
  text: string[];
  image: string[];
}

/**
 * What a server's `model` fields accept (schemas.ts offeredModel): an engine's id or its kind (pickEngine), the builtin
 * one and the configured model server's; for images, builtin and the configured image model.
 */
export function offeredModels(config: Pick<ServerConfig, "llm" | "imageModel">): OfferedModels {
  const text = ["builtin", ...(config.llm ? [config.llm.model, "openai-compatible"] : [])];
  const image = ["builtin", ...(config.imageModel ? [config.imageModel.model] : [])];
  return { text: [...new Set(text)], image: [...new Set(image)] };
}

/** Marks, while a schema is converted, a string that its pipe trims (not part of the description). */
const TRIMMED = Symbol("trimmed");

function schemaOf(
  schema: GenericSchema,
  typeMode: "input" | "output",
  models: OfferedModels = { text: ["builtin"], image: ["builtin"] },
): Record<string, unknown> {
  const json = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode,
    errorMode: "ignore",
    // An integer carried as a string (schemas.ts intString) is described as the integer it is, with its bounds; a
    // check that a value is a JSON object (valibot's object schemas take arrays too) as an object; a check that says
    // its rule in JSON Schema (schemas.ts describedCheck) with those words; a model field with the engines offered.
    overrideAction: ({ valibotAction, jsonSchema }) => {
      const said = (valibotAction as { jsonSchema?: Record<string, unknown> }).jsonSchema;
      if (said !== undefined) return mergeSchema(jsonSchema as Json, said);
      // A minimum length after a trim is one of the trimmed text: a value of spaces only is refused, said as `\S`.
      if (valibotAction.type === "trim") Object.defineProperty(jsonSchema, TRIMMED, { value: true });
      if (valibotAction.type === "min_length" && (jsonSchema as Record<symbol, unknown>)[TRIMMED] === true)
        return mergeSchema(jsonSchema as Json, { pattern: "\\S" });
      if (valibotAction.type !== "metadata") return undefined;
      const meta = (valibotAction as { metadata?: Record<string, unknown> }).metadata;
      if (meta?.jsonObject === true) return { type: "object" };
      const offered = meta?.offeredModel as keyof OfferedModels | undefined;
      if (offered !== undefined) {
        const { offeredModel: _, ...rest } = jsonSchema as Record<string, unknown>;
        return { ...rest, enum: models[offered] };
      }
      const bounds = meta?.integerString;
      return bounds ? { type: "integer", ...(bounds as { minimum: number; maximum: number }) } : undefined;
    },
  }) as Record<string, unknown>;
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
  if (r.stability === "internal") return out;
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
  // A write that found the database locked by another process for longer than the server waits (errors.ts).
  if (r.method !== "GET") {
    add(503, "service_busy");
    // No room on the disk for the write (errors.ts isStorageFull).
    add(507, "storage_full");
  }
  return out;
}

/** Query or path parameters from an object schema. */
function parametersOf(schema: GenericSchema | undefined, where: "path" | "query", models: OfferedModels) {
  if (!schema) return [];
  const json = schemaOf(schema, "input", models) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const schema = s as Record<string, unknown>;
    // The default of an integer carried as a string ("20") is the integer it stands for.
    if (schema.type === "integer" && typeof schema.default === "string") schema.default = Number(schema.default);
    return { name, in: where, required: where === "path" || (json.required ?? []).includes(name), schema };
  });
}

type Json = Record<string, unknown>;

/**
 * A schema that holds both `base` and `more`: `required` lists are joined, a keyword of `more` that `base` already has
 * (a second pattern, a second anyOf) is added under `allOf`, so that neither is lost.
 */
function mergeSchema(base: Json, more: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(more)) {
    if (key === "required")
      out.required = [...new Set([...((base.required as string[]) ?? []), ...(value as string[])])];
    else if (key in base) out.allOf = [...((out.allOf as Json[]) ?? []), { [key]: value }];
    else out[key] = value;
  }
  return out;
}

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
        ? { type: "string", contentMediaType: "application/octet-stream" }
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

/** The headers one response of a route carries, as references to components.headers. */
function headersOf(r: RouteDef, status: number): Record<string, { $ref: string }> {
  const names = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Trace-Id"];
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
  "API keys": "Introspection of the calling key; issuing, renaming and revoking keys (web session only).",
  Account: "The caller, its plan, entitlements, analysis quota, settings and learning preferences.",
  Admin: "Accounts, users and the audit log, for administrators' web sessions.",
  Auth: "Web-session sign-in: password login, command-line device authorization, logout.",
  Billing: "Billing operations; plans are managed by this server's administrator.",
  Contents: "Content records: drafts, versions, editorial planning and publication.",
  Conversions: "A content record in another format: HTML, Markdown, plain text, social thread, email.",
  Generation: "Generation, finalization, theses and the engines that write.",
  Images: "Uploaded and generated images.",
  "Knowledge graph": "Entities and their relations in a workspace's references and finalized contents.",
  Learning: "Learning jobs started by finalization and the voice profiles they build.",
  MCP: "The Model Context Protocol server whose tools are this API's operations.",
  Memories: "Voice and context notes that generation applies.",
  "Reference materials": "Source documents that generation draws facts from.",
  Scoring: "Readability, structure, keyword and voice scores of a text.",
  System: "The machine-readable description.",
  Templates: "Built-in and account templates: sections, length and tone.",
  Workspaces: "Workspaces that partition references, memories, contents and keys.",
  Usage: "Requests, generations, words, finalizations, analyses and images per day and per key.",
};

/**
 * The error body, described once under components.schemas and referred to by every error response: inlined, its 5 KB
 * made up 2.8 MB of the 3.2 MB description (511 error responses).
 */
const ERROR_BODY_REF = { $ref: "#/components/schemas/ErrorBody" };

/** A response's schema: a reference for the error body, the schema itself otherwise. */
function responseSchemaOf(schema: GenericSchema, models: OfferedModels): Record<string, unknown> {
  return schema === ErrorBodySchema ? ERROR_BODY_REF : schemaOf(schema, "output", models);
}

/** Builds the document for a server configuration. */
export function buildOpenApi(
  routes: RouteDef[],
  config: Pick<ServerConfig, "publicUrl" | "stagingUrl"> & Partial<Pick<ServerConfig, "llm" | "imageModel">>,
) {
  const models = offeredModels(config);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.stability === "internal") continue;
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      "x-stability": r.stability,
      security: r.access === "public" ? [] : r.access === "any" ? [{ apiKey: [] }, { session: [] }] : [{ session: [] }],
      parameters: [...parametersOf(r.params, "path", models), ...parametersOf(r.query, "query", models)],
      responses: Object.fromEntries(
        Object.entries(withPipelineErrors(r)).map(([status, doc]) => [
          status,
          {
            description: doc.description,
            headers: headersOf(r, Number(status)),
            ...(doc.schema || doc.alsoContent
              ? {
                  content: {
                    ...(doc.schema
                      ? { [doc.contentType ?? "application/json"]: { schema: responseSchemaOf(doc.schema, models) } }
                      : {}),
                    ...Object.fromEntries(
                      Object.entries(doc.alsoContent ?? {}).map(([type, schema]) => [type, { schema }]),
                    ),
                  },
                }
              : {}),
          },
        ]),
      ),
    };
    if (r.method === "POST" && r.access !== "public") (op.parameters as unknown[]).push(IDEMPOTENCY_PARAMETER);
    if (r.body) {
      const json = schemaOf(r.body, "input", models);
      const content: Record<string, unknown> = { "application/json": { schema: r.upload ? jsonOf(json) : json } };
      // Upload routes also take multipart/form-data: the same fields as strings, and `file` as the file's bytes.
      if (r.upload) content["multipart/form-data"] = { schema: multipartOf(json) };
      op.requestBody = { required: true, content };
    }
    paths[r.path] = { ...(paths[r.path] ?? {}), [r.method.toLowerCase()]: op };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Content Generation Service API",
      version: "1.0.0",
      description: "Generate, edit, finalize, learn from and plan written content. Served by content-service.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [
      { url: config.publicUrl, description: "production" },
      { url: config.stagingUrl, description: "staging" },
    ],
    tags: [...new Set(routes.filter((r) => r.stability !== "internal").map((r) => r.tag))].map((name) => ({
      name,
      description: TAG_DESCRIPTIONS[name] ?? name,
    })),
    paths,
    components: {
      schemas: { ErrorBody: schemaOf(ErrorBodySchema, "output") },
      headers: HEADERS,
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
