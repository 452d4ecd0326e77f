/**
 * JSON-RPC's -32602 Invalid params, decided before a request reaches the SDK: params its method cannot take, an
 * unknown tool, and arguments the tool's route refuses. Such a request never runs, and is answered in its place
 * (server.ts answerMcp); the tests are test/http/mcp.test.ts's "-32602 Invalid params, in the request's place".
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { kindOf } from "../domain/wording.js";
import { fieldOf } from "../http/messages.js";
import { type ProtocolIssue, protocolIssueMessage } from "./protocol-issues.js";
import { argumentIssues } from "./tool-arguments.js";
import type { McpTool } from "./tool-schemas.js";

/** A JSON-RPC error object (JSON-RPC 2.0 §5.1). */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One problem of a request's params, as `data.issues` lists it: a dotted path and a message. */
interface ParamsIssue {
  path: string;
  message: string;
}

/** A schema of the SDK's, as this module uses it: one safeParse reporting each issue with its input. */
interface SdkSchema {
  safeParse(
    input: unknown,
    params: { reportInput: boolean },
  ): { success: true } | { success: false; error: { issues: ProtocolIssue[] } };
}

/** The schemas of the requests this server answers, as the SDK checks them once the transport has passed them on. */
const REQUEST_SCHEMAS: Record<string, SdkSchema> = {
  initialize: InitializeRequestSchema as unknown as SdkSchema,
  ping: PingRequestSchema as unknown as SdkSchema,
  "tools/list": ListToolsRequestSchema as unknown as SdkSchema,
  "tools/call": CallToolRequestSchema as unknown as SdkSchema,
};

/** The SDK schema's issues as the API lists them: a dotted path and a message naming the field under its place. */
function protocolIssues(issues: ProtocolIssue[]): ParamsIssue[] {
  return issues.slice(0, 20).map((i) => ({
    path: i.path.map(String).join("."),
    message: protocolIssueMessage(i, fieldOf("request", i.path)),
  }));
}

function invalidParams(message: string, issues: ParamsIssue[]): JsonRpcError {
  return { code: ErrorCode.InvalidParams, message, data: { issues } };
}

/** -32602 for a tools/call whose tool is unknown or whose arguments its route refuses, else undefined. */
function toolCallRefusal(params: unknown, tools: readonly McpTool[]): JsonRpcError | undefined {
  const { name, arguments: args } = params as { name: string; arguments?: Record<string, unknown> };
  const tool = tools.find((t) => t.def.name === name);
  if (!tool) {
    const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
    return invalidParams(`Unknown tool ${JSON.stringify(shown)}: tools/list names the tools.`, [
      { path: "params.name", message: "No tool of this name." },
    ]);
  }
  const found = argumentIssues(tool, args ?? {}).slice(0, 20);
  if (found.length === 0) return undefined;
  const issues = found.map((i) => ({
    path: ["params.arguments", ...i.keys.map(String)].join("."),
    message: i.message,
  }));
  return invalidParams(
    `Invalid arguments for tool ${tool.def.name}: ${issues.map((i) => i.message).join("; ")}`,
    issues,
  );
}

/**
 * JSON-RPC's -32602 Invalid params for a request whose params its method cannot take, else undefined: params that are
 * not an object (MCP names its parameters), params its method's schema refuses (tools/call without a name), an
 * unknown tool, and arguments the tool's route refuses. Each is the request's own mistake, not the operation's
 * failure (a tool error), and not the POST's (a 400 for the whole batch).
 */
export function paramsRefusal(
  request: { method: string; params?: unknown },
  tools: readonly McpTool[],
): JsonRpcError | undefined {
  const { params } = request;
  if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params)))
    return invalidParams(`Invalid params: ${request.method} takes its params as an object of named parameters.`, [
      { path: "params", message: `params must be an object of named parameters (got ${kindOf(params)})` },
    ]);
  const parsed = REQUEST_SCHEMAS[request.method]?.safeParse(request, { reportInput: true });
  if (parsed && !parsed.success) {
    const issues = protocolIssues(parsed.error.issues);
    return invalidParams(`Invalid params for ${request.method}: ${issues[0].message}`, issues);
  }
  return request.method === "tools/call" ? toolCallRefusal(params, tools) : undefined;
}

/**
 * The messages to hand the transport, with the refusal of each request whose params cannot be taken (paramsRefusal),
 * by id. A refused request goes on without its params: the transport refuses the whole POST for params that are not
 * an object, and the refusal is answered in the request's place (answerMcp's onmessage).
 */
export function screenParams(
  messages: unknown,
  tools: readonly McpTool[],
): { messages: unknown; refusals: Map<string | number, JsonRpcError> } {
  const refusals = new Map<string | number, JsonRpcError>();
  const screen = (message: unknown) => {
    if (message === null || typeof message !== "object" || Array.isArray(message)) return message;
    const m = message as { id?: string | number; method?: unknown; params?: unknown };
    if (typeof m.method !== "string" || m.id === undefined) return message;
    const refusal = paramsRefusal({ method: m.method, params: m.params }, tools);
    if (!refusal) return message;
    refusals.set(m.id, refusal);
    const { params: _, ...rest } = m;
    return rest;
  };
  return { messages: Array.isArray(messages) ? messages.map(screen) : screen(messages), refusals };
}
