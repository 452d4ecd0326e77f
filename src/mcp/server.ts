/**
 * The Model Context Protocol endpoint's server side, built on the official SDK: for each POST, a fresh low-level
 * Server with this API's tools (their JSON Schema inputs derived from the route table) and a stateless web-standard
 * Streamable HTTP transport (no session id), answering JSON, or an SSE stream when the client prefers
 * text/event-stream.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { ApiError, invalidInput } from "../domain/errors.js";
import { MIN_PASSWORD_LENGTH } from "../http/admin-rules.js";
import type { Incoming } from "../http/exchange.js";
import { consumedArrayStream, jsonStream } from "../http/json-pieces.js";
import { redactSecrets } from "../runtime/log.js";
import { budgetedCaller, type ToolCaller } from "./budget.js";
import type { Dispatch } from "./dispatch.js";
import { type JsonRpcError, screenParams } from "./params.js";
import type { McpTool } from "./tool-schemas.js";

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

/** A tool as tools/list shows it: its name, title, description, JSON Schema input (from its route) and hints. */
function listed(tool: McpTool): Tool {
  const { def } = tool;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    annotations: def.annotations,
  };
}

/** A tool call that failed in this server rather than in its operation, as a tool error saying what happened. */
function toolFailure(error: unknown): CallToolResult {
  return { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true };
}

/**
 * Builds the SDK server over `tools`, whose calls run through `call`. Its tool list never changes while it runs, and
 * this stateless server keeps no stream to tell of a change on: listChanged is false.
 */
export function createMcpServer(tools: readonly McpTool[], call: ToolCaller): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  const entries = tools.map(listed);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: entries }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    // Unknown tools and refused arguments are answered -32602 before the transport (params.ts screenParams).
    const tool = tools.find((t) => t.def.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    try {
      return await call(tool, request.params.arguments ?? {});
    } catch (error) {
      return toolFailure(error);
    }
  });
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
  /** The tools, derived from the route table the pipeline serves (tool-schemas.ts toolsFor). */
  tools: readonly McpTool[];
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
 * 400 for a batch whose requests share an id, before any of them runs: the SDK would run each call and answer only
 * one of them (the others' results, writes included, lost). JSON-RPC needs an answer per request, told apart by id.
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
 * a password). The answer echoes an id, as JSON-RPC requires; the log does not keep it. A quoted message is withheld,
 * a string id is replaced where the text names an id (after "request", "request ID:"...), and what still looks like
 * a key or a token is redacted. Elsewhere an id is replaced only when it is as long as the shortest secret (a
 * password): replacing every occurrence of a short id such as "4" would mangle the text around it. The ids are
 * replaced before the quoted message is cut, so that an id holding `{` or `[` goes whole.
 */
export function loggable(message: string, messages: unknown): string {
  // The ids go first, as a mark without `{` or `[`, and the quoted message is cut after: else an id holding either
  // would be cut through, its beginning kept (`request hunter2[message withheld]`).
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

/** The answers of one POST's requests, by id, held back from the SDK's JSON answer (holdAnswers). */
type HeldAnswers = Map<string | number, JSONRPCMessage>;

/**
 * Keeps the answers the transport sends for its JSON answer, and gives the transport a stand-in of each (an empty
 * result of the same id): the SDK writes its JSON answer in one JSON.stringify on the HTTP thread, some 35 MB for a
 * batch of large lists, which held every other request for over 100 ms. jsonAnswer writes the answers kept instead,
 * in pieces (http/json-pieces.ts), in the SDK's order.
 */
function holdAnswers(transport: WebStandardStreamableHTTPServerTransport, held: HeldAnswers): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return send(message, options);
    const id = message.id as string | number;
    held.set(id, message);
    return send({ jsonrpc: "2.0", id, result: {} }, options);
  };
}

/**
 * The JSON answer of a POST from the SDK's (of stand-ins: holdAnswers) and the answers held: each stand-in replaced by
 * its answer, in pieces. A batch's answer is an array (JSON-RPC 2.0 §6), also when one request of it was answered:
 * the SDK answers a batch of one with the bare response object.
 */
async function jsonAnswer(response: Response, held: HeldAnswers, batch: boolean): Promise<Response> {
  const text = await response.text();
  if (text === "") return new Response(null, response);
  const standIns = JSON.parse(text) as { id: string | number } | { id: string | number }[];
  const answerOf = (standIn: { id: string | number }) => held.get(standIn.id) ?? standIn;
  const answers = Array.isArray(standIns) ? standIns.map(answerOf) : answerOf(standIns);
  const list = Array.isArray(answers) ? answers : batch ? [answers] : undefined;
  // The batch's answers go as they are written (consumedArrayStream): none is kept here or in `held` meanwhile.
  held.clear();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const body = list ? consumedArrayStream(list) : jsonStream(answers);
  return new Response(body, { status: response.status, headers });
}

/**
 * The transport of one POST, connected to `server`, answering -32602 in the place of each request whose params
 * cannot be taken (params.ts screenParams): such a request never reaches its handler.
 */
async function connectTransport(
  server: Server,
  stream: boolean,
  refusals: Map<string | number, JsonRpcError>,
  report: (error: unknown) => void,
  held: HeldAnswers,
): Promise<WebStandardStreamableHTTPServerTransport> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !stream,
  });
  if (!stream) holdAnswers(transport, held);
  server.onerror = report;
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = isJSONRPCRequest(message) ? refusals.get(message.id) : undefined;
    if (!isJSONRPCRequest(message) || refusal === undefined) return deliver?.(message, extra);
    // Sent once the transport has handed every message of the POST on, as the SDK's handlers answer.
    const answer = { jsonrpc: "2.0" as const, id: message.id, error: refusal };
    void Promise.resolve()
      .then(() => transport.send(answer))
      .catch(report);
  };
  return transport;
}

/**
 * The request the transport reads: the client's headers, with the Accept and Content-Type it insists on (the
 * answer's form is chosen by prefersEventStream, and the body was JSON), without a body (the pipeline parsed it).
 */
function transportRequest(request: Incoming): Request {
  const headers = new Headers([...request.headers]);
  headers.set("accept", "application/json, text/event-stream");
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return new Request(request.url, { method: "POST", headers });
}

/** The transport's answer as this endpoint gives it; the server closes once it is complete. */
async function finished(
  response: Response,
  server: Server,
  stream: boolean,
  batch: boolean,
  held: HeldAnswers,
): Promise<Response> {
  if (response.status >= 400) {
    await server.close();
    throw await transportRefusal(response);
  }
  if (!stream || !response.body) {
    await server.close();
    return stream ? response : jsonAnswer(response, held, batch);
  }
  // The stream ends once every response of the request is written: the server goes with it.
  const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: () => server.close() }));
  return new Response(body, { status: response.status, headers: response.headers });
}

/** Answers one POST to the MCP endpoint: JSON-RPC over the SDK's stateless Streamable HTTP transport. */
export async function answerMcp(exchange: McpExchange): Promise<Response> {
  const { request, tools } = exchange;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) throw protocolVersionError(version);
  refuseRepeatedIds(exchange.messages);
  const call = {
    baseUrl: request.url,
    authorization: request.headers.get("authorization"),
    defaultWorkspace: exchange.defaultWorkspace,
  };
  // The POST took a rate-limit token and counts in usage: its first tool call uses those (http/app.ts RequestEnv).
  const server = createMcpServer(tools, budgetedCaller(exchange.dispatch, call, { covered: false }));
  const stream = prefersEventStream(request.headers.get("accept"));
  const report = (error: unknown) =>
    exchange.onError?.(new Error(loggable(error instanceof Error ? error.message : String(error), exchange.messages)));
  const screened = screenParams(exchange.messages, tools);
  const held: HeldAnswers = new Map();
  const transport = await connectTransport(server, stream, screened.refusals, report, held);
  let response: Response;
  try {
    response = await transport.handleRequest(transportRequest(request), { parsedBody: screened.messages });
  } catch (e) {
    await server.close();
    throw e;
  }
  return finished(response, server, stream, Array.isArray(exchange.messages), held);
}
