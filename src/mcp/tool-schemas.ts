/**
 * Each MCP tool's input, derived from its route: the path, query and body fields of the route table's valibot
 * schemas, converted to JSON Schema with the description's own settings (http/openapi-schemas.ts), under the
 * tool's argument names. There is no second copy of a field's schema: test/http/mcp.test.ts checks that every tool
 * takes its operation's fields, and only those.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import * as v from "valibot";
import type { ServerConfig } from "../http/context.js";
import { conversionConfig, type OfferedModels, offeredModels } from "../http/openapi-schemas.js";
import type { RouteDef } from "../http/route.js";
import { WorkspaceIdField } from "../http/schemas.js";
import { TOOLS, type ToolDef } from "./tools.js";

type Json = Record<string, unknown>;

/** Where an argument goes in the tool's request, and so which of the route's schemas checks it. */
export type ArgumentPlace = "path" | "query" | "body";

/** One argument of a tool: the route field it fills and its JSON Schema. */
export interface ToolArgument {
  /** Where it is sent: the path (a placeholder), the query (GET, DELETE) or the body (POST, PUT, PATCH). */
  in: ArgumentPlace;
  /** The route's name for it: a path placeholder (`contentId`) or the query's or body's field. */
  field: string;
  /** Its JSON Schema, as the tool's inputSchema shows it. */
  json: Json;
  /**
   * The schema that checks it on its own, when its route's schema for the place does not: a workspace_id that a
   * workspace-aware route reads without listing it.
   */
  own?: GenericSchema;
}

/** A tool with what its route says of its input: the tools/list entry and what checks a call's arguments. */
export interface McpTool {
  def: ToolDef;
  route: RouteDef;
  /** The arguments, by name, in the order inputSchema lists them. */
  arguments: ReadonlyMap<string, ToolArgument>;
  /** The JSON Schema of the arguments: an object of these properties and no others. */
  inputSchema: Json;
}

/**
 * What the description says of workspace_id, and what only a tool call has: the /mcp URL's workspace_id as the
 * default (tool-calls.ts toolRequest).
 */
const MCP_WORKSPACE_DEFAULT =
  " Over MCP, left out: the key's bound workspace, else the workspace_id of the /mcp URL, else the account's default.";

/** The object holding only a workspace_id, for its JSON Schema (converted as any route field is). */
const WorkspaceIdFieldObject = v.object({ workspace_id: v.optional(WorkspaceIdField) });

/** The JSON Schema of a route's path, query or body schema, converted inline as the description converts it. */
function converted(schema: GenericSchema | undefined, models: OfferedModels): { properties: Json; required: string[] } {
  if (!schema) return { properties: {}, required: [] };
  const json = toJsonSchema(schema, conversionConfig("input", models)) as { properties?: Json; required?: string[] };
  return { properties: json.properties ?? {}, required: json.required ?? [] };
}

/**
 * A path or query field's schema as a tool argument takes it: JSON, not a URL's text. An integer carried as a string
 * is an integer already (intString's metadata); `true`/`false` carried as a string is a boolean, and a default
 * carried as a string is the value it stands for.
 */
function asJsonArgument(schema: Json): Json {
  const out = { ...schema };
  const values = out.enum as unknown[] | undefined;
  if (values?.length === 2 && values.includes("true") && values.includes("false")) {
    delete out.enum;
    out.type = "boolean";
  }
  if (typeof out.default === "string" && out.type === "integer") out.default = Number(out.default);
  if (typeof out.default === "string" && out.type === "boolean") out.default = out.default === "true";
  return out;
}

/**
 * A body field's schema as a tool argument shows it: a nullable field's description, which valibot's conversion
 * leaves on its non-null branch, at its top, where an agent reads an argument's description.
 */
function asBodyArgument(schema: Json): Json {
  const branches = schema.anyOf as Json[] | undefined;
  if (schema.description !== undefined || !branches) return schema;
  const described = branches.find((b) => typeof b.description === "string");
  return described ? { ...schema, description: described.description } : schema;
}

/** Adds to a workspace_id's description what a tool call does without one. */
function workspaceArgument(json: Json): Json {
  return { ...json, description: `${String(json.description ?? "")}${MCP_WORKSPACE_DEFAULT}`.trim() };
}

/** The route of a tool: the one with its method and path (every tool has one: test/http/mcp.test.ts). */
function routeOf(def: ToolDef, routes: readonly RouteDef[]): RouteDef {
  const found = routes.find((r) => r.method === def.method && r.path === def.path);
  if (!found) throw new Error(`MCP tool ${def.name}: no route ${def.method} ${def.path}`);
  return found;
}

/** One tool's arguments and input schema, from its route's schemas. */
function deriveTool(def: ToolDef, route: RouteDef, models: OfferedModels): McpTool {
  const args = new Map<string, ToolArgument>();
  const required = new Set<string>(def.requires ?? []);
  const path = converted(route.params, models);
  for (const [param, json] of Object.entries(path.properties)) {
    const name = def.pathArgs?.[param] ?? param;
    args.set(name, { in: "path", field: param, json: asJsonArgument(json as Json) });
    required.add(name);
  }
  const inQuery = def.method === "GET" || def.method === "DELETE";
  const place: ArgumentPlace = inQuery ? "query" : "body";
  const fields = converted(inQuery ? route.query : route.body, models);
  const omitted = new Set(def.omits ?? []);
  for (const [field, json] of Object.entries(fields.properties)) {
    if (omitted.has(field) || args.has(field)) continue;
    const shown = inQuery ? asJsonArgument(json as Json) : asBodyArgument(json as Json);
    args.set(field, { in: place, field, json: field === "workspace_id" ? workspaceArgument(shown) : shown });
    if (fields.required.includes(field)) required.add(field);
  }
  // A workspace-aware route reads workspace_id from the query or the body without listing it (http/app.ts).
  if (route.workspace && !args.has("workspace_id") && !omitted.has("workspace_id")) {
    const json = converted(WorkspaceIdFieldObject, models).properties.workspace_id as Json;
    args.set("workspace_id", {
      in: place,
      field: "workspace_id",
      json: workspaceArgument(json),
      own: WorkspaceIdField,
    });
  }
  const properties = Object.fromEntries([...args].map(([name, arg]) => [name, arg.json]));
  const inputSchema: Json = { type: "object", properties, additionalProperties: false };
  if (required.size > 0) inputSchema.required = [...args.keys()].filter((name) => required.has(name));
  return { def, route, arguments: args, inputSchema };
}

/** Every tool, in the order tools/list shows them, derived from `routes` for a server offering `models`. */
export function deriveTools(routes: readonly RouteDef[], models: OfferedModels): McpTool[] {
  return TOOLS.map((def) => deriveTool(def, routeOf(def, routes), models));
}

const derived = new WeakMap<readonly RouteDef[], Map<string, McpTool[]>>();

/**
 * The tools of a route table for a server's configuration, derived once per table and per set of engines offered
 * (a model argument lists them, as the description does).
 */
export function toolsFor(routes: readonly RouteDef[], config: Partial<ServerConfig>): McpTool[] {
  const models = offeredModels(config);
  const key = JSON.stringify(models);
  let byModels = derived.get(routes);
  if (!byModels) {
    byModels = new Map();
    derived.set(routes, byModels);
  }
  let tools = byModels.get(key);
  if (!tools) {
    tools = deriveTools(routes, models);
    byModels.set(key, tools);
  }
  return tools;
}
