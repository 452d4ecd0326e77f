/**
 * The Model Context Protocol endpoint's server side, built on the official SDK: for each POST, a fresh McpServer
 * with this API's tools and a stateless web-standard Streamable HTTP transport (no session id), answering JSON,
 * or an SSE stream when the client prefers text/event-stream.
 */
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { ApiError, invalidInput } from "../domain/errors.js";
import { kindOf } from "../domain/wording.js";
import { MIN_PASSWORD_LENGTH } from "../http/admin-rules.js";
import { errorBody } from "../http/errors.js";
import type { Incoming } from "../http/exchange.js";
import { fieldOf, zodIssueMessage } from "../http/messages.js";
import { redactSecrets } from "../runtime/log.js";
import type { Dispatch } from "./dispatch.js";
import { type CallContext, TOOLS, type ToolDef, toolRequest, toolResult } from "./tools.js";

/** How the server introduces itself in `initialize`. */
export const MCP_SERVER_INFO = { name: "content-service", title: "Content Generation Service", version: "1.0.0" };

const INSTRUCTIONS = [
  "These tools are the operations of the Content Generation Service API. Each call is one API request made with",
  "the credentials of this connection: the key's scopes, workspace binding, plan and rate limits apply to it.",
  "A typical flow: list_templates, then generate_content (with memory_ids and reference_material_ids), edit the",
  "text, finalize_content (starts a learning analysis: get_learning_job), schedule_content, publish_content.",
  "A failed call is a tool error carrying the API's error body: details.error_code says what went wrong.",
  "Arguments a tool's input schema refuses (an unknown argument included) are a JSON-RPC -32602 error instead:",
  "nothing ran.",
].join(" ");

/**
 * The most text the tool results of one POST carry, in characters; the calls of a batch share it. A result is the
 * operation's JSON answer, which the JSON-RPC answer carries escaped again and parsed as structuredContent (about
 * three times its size). Without a cap, a batch of list_contents over large texts reached V8's longest string: the
 * SDK's serialisation failed unseen and the POST never answered, or the process ran out of memory.
 */
export const MAX_RESULT_CHARS = 16 * 1024 * 1024;

/**
 * What a write's result takes of the budget while it runs, before its size is known (a content record is a few KB to
 * a few MB). The calls of a batch all start at once: a write waits until its reservation fits beside the writes
 * running, so at most MAX_RESULT_CHARS / WRITE_RESERVE_CHARS of them run together, and is refused before it runs
 * once the results given leave no room for it.
 */
export const WRITE_RESERVE_CHARS = 2 * 1024 * 1024;

/**
 * A tool error carrying the API's 422 output_too_large body, as a conversion past its output limit has: the call was
 * small, its result is what would pass the limit (counted in characters).
 */
function tooLarge(message: string): CallToolResult {
  const body = errorBody(new ApiError("output_too_large", message, { limit_chars: MAX_RESULT_CHARS }), randomUUID());
  return {
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
    isError: true,
  };
}

/**
 * The tools, each with its arguments as one schema, built once: its inputs and no others (`additionalProperties:
 * false` in tools/list). Unknown arguments had been dropped unseen: a misspelled `worksapce_id` acted in the default
 * workspace, deletions included. Each tool carries its schema, so that no lookup of it can miss.
 */
const CHECKED_TOOLS: readonly { tool: ToolDef; args: z.ZodObject }[] = TOOLS.map((tool) => ({
  tool,
  args: z.strictObject(tool.input),
}));

/** Builds the SDK server whose tools run through `call`. */
export function createMcpServer(call: (tool: ToolDef, args: Record<string, unknown>) => Promise<CallToolResult>) {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const { tool, args: inputSchema } of CHECKED_TOOLS)
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema,
        annotations: tool.annotations,
      },
      (args) => call(tool, args),
    );
  // The SDK says listChanged: true, but this stateless server keeps no stream to send the notification on, and its
  // tools never change while it runs.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

/** The quality an Accept header gives a media type (its most specific matching range wins). */
function quality(accept: string, type: string): number {
  const [major, minor] = type.split("/");
  let best = -1;
  let q = 0;
  for (const part of accept.toLowerCase().split(",")) {
    const [range, ...params] = part.split(";").map((s) => s.trim());
    const [t, s] = range.split("/");
    const specificity = t === major && s === minor ? 2 : t === major && s === "*" ? 1 : t === "*" && s === "*" ? 0 : -1;
    if (specificity <= best) continue;
    const value = Number(params.find((p) => p.startsWith("q="))?.slice(2) ?? 1);
    best = specificity;
    q = Number.isFinite(value) ? value : 0;
  }
  return q;
}

/**
 * Whether the client prefers an SSE stream to a JSON body. MCP clients accept both and the server chooses: JSON
 * unless text/event-stream ranks higher (or alone). A missing or unusual Accept gets JSON, never a 406.
 */
export function prefersEventStream(accept: string | null): boolean {
  return accept !== null && quality(accept, "text/event-stream") > quality(accept, "application/json");
}

/** One POST to the MCP endpoint, after the pipeline admitted it. */
export interface McpExchange {
  /** The client's request: its URL, headers and credentials (its body has been read). */
  request: Incoming;
  /** The JSON-RPC message or batch, parsed and validated. */
  messages: unknown;
  /** The pipeline each tool call goes through. */
  dispatch: Dispatch;
  /** The workspace_id of the /mcp URL, for tools called without one. */
  defaultWorkspace?: string;
  /**
   * Reports what the transport or the protocol layer found wrong, in words fit for a log: without the messages the
   * client sent or their ids (loggable).
   */
  onError?(error: Error): void;
}

function protocolVersionError(version: string): ApiError {
  const message = `Unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}.`;
  return new ApiError("validation_failed", message, {
    issues: [{ path: "header.mcp-protocol-version", message }],
    supported_versions: SUPPORTED_PROTOCOL_VERSIONS,
  });
}

/** A refusal of the transport (a JSON-RPC error with a 4xx status) as the API's coded error. */
async function transportRefusal(response: Response): Promise<ApiError | Error> {
  const text = await response.text();
  let message = text;
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {}
  if (response.status !== 400) return new Error(`MCP transport answered ${response.status}: ${message}`);
  return invalidInput("body", message, message);
}

/**
 * 400 for a batch whose requests share an id, before any of them runs: the SDK ran each call and answered only one of
 * them (the others' results, writes included, were lost). JSON-RPC needs an answer per request, told apart by id.
 */
function refuseRepeatedIds(messages: unknown): void {
  if (!Array.isArray(messages)) return;
  const seen = new Set<string>();
  for (const message of messages) {
    if (message === null || typeof message !== "object" || !("method" in message) || !("id" in message)) continue;
    const id = JSON.stringify((message as { id: unknown }).id);
    if (seen.has(id))
      throw invalidInput(
        "body",
        `Request id ${id} is used more than once in this batch; give each request of a batch its own id.`,
        `Request id ${id} is used more than once in this batch (JSON-RPC answers are told apart by id).`,
      );
    seen.add(id);
  }
}

/** A JSON-RPC error object (JSON-RPC 2.0 §5.1). */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** The schemas of the requests this server answers, as the SDK checks them once the transport has passed them on. */
const REQUEST_SCHEMAS: Record<string, z.ZodType> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
};

/**
 * Zod's issues as the API lists them: a dotted path (under `under`, if given) and a message in the words of every
 * other validation message (http/messages.ts), naming the field under its place (`arguments`, `params.name`).
 */
function issuesOf(error: z.ZodError, under?: string): { path: string; message: string }[] {
  return error.issues.slice(0, 20).map((i) => ({
    path: [...(under === undefined ? [] : [under]), ...i.path.map(String)].join("."),
    message: zodIssueMessage(i, fieldOf(under === undefined ? "request" : "arguments", i.path)),
  }));
}

function invalidParams(message: string, issues: { path: string; message: string }[]): JsonRpcError {
  return { code: ErrorCode.InvalidParams, message, data: { issues } };
}

/**
 * JSON-RPC's -32602 Invalid params for a request whose params its method cannot take, else undefined: params that are
 * not an object (MCP names its parameters), params its method's schema refuses (tools/call without a name), an
 * unknown tool, and arguments the tool's input schema refuses. The SDK had answered the first with a 400 for the whole
 * POST, the second with -32603 Internal error, and the last two with a successful result flagged isError, which
 * reads as the operation's own failure.
 */
export function paramsRefusal(request: { method: string; params?: unknown }): JsonRpcError | undefined {
  const { params } = request;
  if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params)))
    return invalidParams(`Invalid params: ${request.method} takes its params as an object of named parameters.`, [
      { path: "params", message: `params must be an object of named parameters (got ${kindOf(params)})` },
    ]);
  const schema = REQUEST_SCHEMAS[request.method];
  const parsed = schema?.safeParse(request, { reportInput: true });
  if (parsed && !parsed.success) {
    const issues = issuesOf(parsed.error);
    return invalidParams(`Invalid params for ${request.method}: ${issues[0].message}`, issues);
  }
  if (request.method !== "tools/call") return undefined;
  const { name, arguments: args } = params as { name: string; arguments?: Record<string, unknown> };
  const known = CHECKED_TOOLS.find((t) => t.tool.name === name);
  if (!known) {
    const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
    return invalidParams(`Unknown tool ${JSON.stringify(shown)}: tools/list names the tools.`, [
      { path: "params.name", message: "No tool of this name." },
    ]);
  }
  const { tool } = known;
  const checked = known.args.safeParse(args ?? {}, { reportInput: true });
  if (checked.success) return undefined;
  const issues = issuesOf(checked.error, "params.arguments");
  return invalidParams(`Invalid arguments for tool ${tool.name}: ${issues.map((i) => i.message).join("; ")}`, issues);
}

/**
 * The messages to hand the transport, with the refusal of each request whose params cannot be taken (paramsRefusal),
 * by id. A refused request goes on without its params: the transport refuses the whole POST for params that are not
 * an object, and the refusal is answered in the request's place (answerMcp's onmessage).
 */
function screenParams(messages: unknown): { messages: unknown; refusals: Map<string | number, JsonRpcError> } {
  const refusals = new Map<string | number, JsonRpcError>();
  const screen = (message: unknown) => {
    if (message === null || typeof message !== "object" || Array.isArray(message)) return message;
    const m = message as { id?: string | number; method?: unknown; params?: unknown };
    if (typeof m.method !== "string" || m.id === undefined) return message;
    const refusal = paramsRefusal({ method: m.method, params: m.params });
    if (!refusal) return message;
    refusals.set(m.id, refusal);
    const { params: _, ...rest } = m;
    return rest;
  };
  return { messages: Array.isArray(messages) ? messages.map(screen) : screen(messages), refusals };
}

/** The string ids of a POST's messages, longest first. */
function stringIds(messages: unknown): string[] {
  const ids = new Set<string>();
  for (const m of Array.isArray(messages) ? messages : [messages])
    if (m !== null && typeof m === "object" && typeof (m as { id?: unknown }).id === "string")
      ids.add((m as { id: string }).id);
  return [...ids].sort((a, b) => b.length - a.length);
}

/**
 * Where the SDK's reports name a message's id in their text (`handler missing for request ID`, `No connection
 * established for request ID: ID`, `side-channeled request ID`): the id follows one of these.
 */
const ID_MARKER = /\b(?:request|message)(?: ID)?:? /gi;

/**
 * What the SDK reports, fit for a log line: it quotes the client's messages whole (a response to a request it never
 * sent: id, result and all), and names their ids, which are the client's own text and may hold anything (an API key,
 * a password). The answer echoes an id, as JSON-RPC requires; the log had kept it too. A quoted message is withheld,
 * a string id is replaced where the text names an id (after "request", "request ID:"...), and what still looks like
 * a key or a token is redacted. Elsewhere an id is replaced only when it is as long as the shortest secret (a
 * password): every occurrence of a short id such as "4" had been, mangling the text around it. The ids are replaced
 * before the quoted message is cut, so that an id holding `{` or `[` goes whole.
 */
export function loggable(message: string, messages: unknown): string {
  // The ids go first, as a mark without `{` or `[`, and the quoted message is cut after: an id holding either had
  // been cut through, its beginning kept (`request hunter2[message withheld]`).
  const ID = "\u0000";
  let text = message;
  const ids = stringIds(messages);
  if (ids.length > 0) {
    let named = "";
    let from = 0;
    for (const marker of text.matchAll(ID_MARKER)) {
      const at = (marker.index ?? 0) + marker[0].length;
      if (at < from) continue;
      // The longest id standing whole there (ids are sorted longest first).
      const id = ids.find((i) => text.startsWith(i, at) && !/[\p{L}\p{N}_]/u.test(text.charAt(at + i.length)));
      if (id === undefined) continue;
      named += `${text.slice(from, at)}${ID}`;
      from = at + id.length;
    }
    text = named + text.slice(from);
    for (const id of ids) if (id.length >= MIN_PASSWORD_LENGTH) text = text.split(id).join(ID);
  }
  const quoted = text.search(/[{[]/);
  if (quoted >= 0) text = `${text.slice(0, quoted)}[message withheld]`;
  text = text.split(ID).join("[id]");
  return redactSecrets(text);
}

/**
 * A batch's JSON answer as an array (JSON-RPC 2.0 §6), also when one request of it was answered: the SDK answers a
 * batch of one with the bare response object.
 */
async function asBatchAnswer(response: Response): Promise<Response> {
  const text = await response.text();
  if (text === "" || text.trimStart().startsWith("[")) return new Response(text || null, response);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(`[${text}]`, { status: response.status, headers });
}

/** Answers one POST to the MCP endpoint: JSON-RPC over the SDK's stateless Streamable HTTP transport. */
export async function answerMcp(exchange: McpExchange): Promise<Response> {
  const { request } = exchange;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) throw protocolVersionError(version);

  refuseRepeatedIds(exchange.messages);
  const call: CallContext = {
    baseUrl: request.url,
    authorization: request.headers.get("authorization"),
    defaultWorkspace: exchange.defaultWorkspace,
  };
  // The POST took a rate-limit token and counts in usage: its first tool call uses those (http/app.ts RequestEnv).
  const enclosing = { covered: false };
  // The budget: results given, and what the writes running may still give; writes waiting for room are woken
  // when one ends.
  let carried = 0;
  let reserved = 0;
  let waiting = 0;
  let roomFreed: Promise<void> | undefined;
  let freeRoom = () => {};
  const waitForRoom = () => {
    roomFreed ??= new Promise<void>((resolve) => {
      freeRoom = resolve;
    });
    return roomFreed;
  };
  const server = createMcpServer(async (tool, args) => {
    const request = toolRequest(tool, args, call);
    if (tool.annotations.readOnlyHint === true) {
      const response = await exchange.dispatch(request, { enclosing });
      const text = await response.text();
      // Refused before its result is built, when the results given leave no room for it. Room the writes running
      // hold for theirs comes back as they end (their results are mostly small): a read waits for it rather than
      // being refused for what a write might have given (eight writes beside a 300-character read had refused it).
      // The reads waiting hold their texts meanwhile: they count too, so that what waits is bounded by the budget.
      while (carried + reserved + waiting + text.length > MAX_RESULT_CHARS) {
        if (reserved === 0 || carried + waiting + text.length > MAX_RESULT_CHARS)
          return tooLarge(
            `This result is ${text.length} characters; the results of one MCP request may carry ${MAX_RESULT_CHARS} ` +
              "in all. Ask for less: a smaller limit, or fewer calls in one batch.",
          );
        waiting += text.length;
        try {
          await waitForRoom();
        } finally {
          waiting -= text.length;
        }
      }
      carried += text.length;
      return toolResult(response, text);
    }
    // A write is refused before it runs, never after: it would have happened, and an error would invite a retry
    // that does it twice. Its result comes back whatever its size.
    while (carried + reserved + WRITE_RESERVE_CHARS > MAX_RESULT_CHARS) {
      if (reserved === 0)
        return tooLarge(
          `Not done: the results of this MCP request already fill the ${MAX_RESULT_CHARS} characters it may carry. ` +
            "Send this call in another request.",
        );
      await waitForRoom();
    }
    reserved += WRITE_RESERVE_CHARS;
    try {
      const response = await exchange.dispatch(request, { enclosing });
      const text = await response.text();
      carried += text.length;
      return toolResult(response, text);
    } finally {
      reserved -= WRITE_RESERVE_CHARS;
      roomFreed = undefined;
      freeRoom();
    }
  });
  const stream = prefersEventStream(request.headers.get("accept"));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !stream,
  });
  const report = (error: unknown) =>
    exchange.onError?.(new Error(loggable(error instanceof Error ? error.message : String(error), exchange.messages)));
  server.server.onerror = report;
  await server.connect(transport);
  // A request whose params cannot be taken is answered -32602 in its place, and never reaches its handler.
  const screened = screenParams(exchange.messages);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = isJSONRPCRequest(message) ? screened.refusals.get(message.id) : undefined;
    if (!isJSONRPCRequest(message) || refusal === undefined) return deliver?.(message, extra);
    // Sent once the transport has handed every message of the POST on, as the SDK's handlers answer.
    const answer = { jsonrpc: "2.0" as const, id: message.id, error: refusal };
    void Promise.resolve()
      .then(() => transport.send(answer))
      .catch(report);
  };

  // The transport checks the protocol's headers and takes the body the pipeline already parsed; Accept and
  // Content-Type are the ones it insists on, since the answer's form is chosen above and the body was JSON.
  const headers = new Headers([...request.headers]);
  headers.set("accept", "application/json, text/event-stream");
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  let response: Response;
  try {
    response = await transport.handleRequest(new Request(request.url, { method: "POST", headers }), {
      parsedBody: screened.messages,
    });
  } catch (e) {
    await server.close();
    throw e;
  }
  if (response.status >= 400) {
    await server.close();
    throw await transportRefusal(response);
  }
  if (!stream || !response.body) {
    await server.close();
    return Array.isArray(exchange.messages) ? asBatchAnswer(response) : response;
  }
  // The stream ends once every response of the request is written: the server goes with it.
  const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: () => server.close() }));
  return new Response(body, { status: response.status, headers: response.headers });
}
