/**
 * A tool call as the HTTP request that performs it, and the operation's answer as the tool's result: a call is one
 * request through the pipeline, with the caller's own credentials.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpTool } from "./tool-schemas.js";

/** What a tool call adds to the arguments: where the API is and who is calling. */
export interface CallContext {
  /** The /mcp request's URL: tool requests go to the same origin. */
  baseUrl: string;
  /** The caller's Authorization header, sent unchanged with every tool request. */
  authorization: string | null;
  /** The workspace_id of the /mcp URL, used by tools that take one when the arguments name none. */
  defaultWorkspace?: string;
}

/** The HTTP request that performs a tool call. */
export function toolRequest(tool: McpTool, args: Record<string, unknown>, call: CallContext): Request {
  const { def } = tool;
  const rest: Record<string, unknown> = { ...args };
  const path = def.path.replace(/\{(\w+)\}/g, (_, param: string) => {
    const arg = def.pathArgs?.[param] ?? param;
    const value = rest[arg];
    delete rest[arg];
    return encodeURIComponent(String(value));
  });
  // Not for a tool whose path names a workspace (get_workspace): its workspace_id is the one it reads.
  const takesWorkspace = tool.arguments.get("workspace_id")?.in !== "path" && tool.arguments.has("workspace_id");
  if (rest.workspace_id === undefined && call.defaultWorkspace !== undefined && takesWorkspace)
    rest.workspace_id = call.defaultWorkspace;
  const url = new URL(path, call.baseUrl);
  const headers = new Headers({ accept: "application/json" });
  if (call.authorization !== null) headers.set("authorization", call.authorization);
  // GET and DELETE take no body (the pipeline reads none): their arguments go in the query, workspace_id included.
  if (def.method === "GET" || def.method === "DELETE") {
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) url.searchParams.set(key, String(value));
    return new Request(url, { method: def.method, headers });
  }
  headers.set("content-type", "application/json");
  return new Request(url, { method: def.method, headers, body: JSON.stringify(rest) });
}

/**
 * A tool result from the operation's response: its JSON as text and as structured content; an error answer
 * (DESIGN §3's coded body) becomes a tool error, so the agent sees the error_code and can act on it. `answered`: the
 * value the text is the JSON of, when the operation gave it (http/json-pieces.ts streamedValue), not parsed again.
 */
export function toolResult(response: Response, text: string, answered?: { value: unknown }): CallToolResult {
  let json: unknown;
  if (answered) json = answered.value;
  else
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  const isObject = typeof json === "object" && json !== null && !Array.isArray(json);
  return {
    content: [{ type: "text", text: text || `HTTP ${response.status}` }],
    ...(isObject ? { structuredContent: json as Record<string, unknown> } : {}),
    ...(response.ok ? {} : { isError: true }),
  };
}
