/** The OpenAPI 3.1 description, generated from the route table's valibot schemas (never written by hand). */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import type { ServerConfig } from "./context.js";
import { ERROR_CODES } from "./errors.js";
import { IDEMPOTENCY_PARAMETER } from "./idempotency.js";
import type { RouteDef } from "./route.js";

function schemaOf(schema: GenericSchema, typeMode: "input" | "output"): Record<string, unknown> {
  const json = toJsonSchema(schema, { target: "draft-2020-12", typeMode, errorMode: "ignore" }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}

/** Query or path parameters from an object schema. */
function parametersOf(schema: GenericSchema | undefined, where: "path" | "query") {
  if (!schema) return [];
  const json = schemaOf(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema: s,
  }));
}

/** The multipart form of a JSON body schema: `file` is binary, every other field a string part. */
function multipartOf(json: Record<string, unknown>): Record<string, unknown> {
  const props = (json.properties ?? {}) as Record<string, Record<string, unknown>>;
  const properties = Object.fromEntries(
    Object.entries(props)
      .filter(([name]) => !name.startsWith("data_base64"))
      .map(([name, schema]) => [
        name,
        name === "file"
          ? { type: "string", contentMediaType: "application/octet-stream" }
          : { ...schema, type: "string" },
      ]),
  );
  return { type: "object", properties, required: ["file"] };
}

/** Builds the document for a server configuration. */
export function buildOpenApi(routes: RouteDef[], config: Pick<ServerConfig, "publicUrl" | "stagingUrl">) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.stability === "internal") continue;
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      "x-stability": r.stability,
      security: r.access === "public" ? [] : r.access === "any" ? [{ apiKey: [] }, { session: [] }] : [{ session: [] }],
      parameters: [...parametersOf(r.params, "path"), ...parametersOf(r.query, "query")],
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([status, doc]) => [
          status,
          {
            description: doc.description,
            ...(doc.schema || doc.alsoContent
              ? {
                  content: {
                    ...(doc.schema
                      ? { [doc.contentType ?? "application/json"]: { schema: schemaOf(doc.schema, "output") } }
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
      const json = schemaOf(r.body, "input");
      const content: Record<string, unknown> = { "application/json": { schema: json } };
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
    },
    servers: [
      { url: config.publicUrl, description: "production" },
      { url: config.stagingUrl, description: "staging" },
    ],
    tags: [...new Set(routes.filter((r) => r.stability !== "internal").map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
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
