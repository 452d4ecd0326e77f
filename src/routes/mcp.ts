/**
 * POST /mcp (DESIGN §6, stable): the Model Context Protocol over the Streamable HTTP transport, stateless. Its tools
 * are this API's operations, each called through the request pipeline with the caller's own credentials. GET and
 * DELETE (an SSE stream, a session to end) have no route: a stateless server answers them 405.
 */
import * as v from "valibot";
import type { ApiError } from "../domain/errors.js";
import type { Ctx } from "../http/context.js";
import type { ErrorBody } from "../http/errors.js";
import { type RouteDef, route } from "../http/route.js";
import { described, describedCheck, ErrorBodySchema, maxChars, minChars, WorkspaceQuery } from "../http/schemas.js";
import { dispatcherFor } from "../mcp/dispatch.js";
import { AUTH_ERRORS } from "./common.js";

/** The JSON-RPC 2.0 message batches may hold at most (the SDK transport's own limit). */
const MAX_BATCH = 100;

/** What a JSON-RPC message may hold (JSON-RPC 2.0 §4, §5), named in the refusal of one holding anything else. */
const MEMBERS = "jsonrpc, id, method, params, result and error";
const ID_RULE = '"id" must be a string or an integer';
const ERROR_RULE = '"error" must be an object with an integer "code" and a string "message"';

/** Whether a value is a JSON object: valibot's object schemas also take arrays, and turn them into objects. */
const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

// Strict: the SDK's transport refuses a member JSON-RPC does not define, and reports it as a "Parse error"; here
// the refusal names the member. Each rule's message names its member, so that -32600 says what is wrong.
const MessageObject = v.strictObject(
  {
    jsonrpc: described(v.literal("2.0", '"jsonrpc" must be "2.0"'), "Always 2.0."),
    id: v.optional(
      described(
        v.union(
          [
            v.pipe(v.string(ID_RULE), maxChars(200, '"id" is too long')),
            v.pipe(v.number(ID_RULE), v.safeInteger(ID_RULE)),
          ],
          ID_RULE,
        ),
        "The request's id, echoed in its response; left out for a notification.",
      ),
    ),
    method: v.optional(
      v.pipe(
        v.string('"method" must be a string'),
        minChars(1, '"method" must not be empty'),
        maxChars(200, '"method" is too long'),
        v.description("The method called: initialize, tools/list, tools/call, notifications/…"),
      ),
    ),
    // Structured (JSON-RPC 2.0 §4.2): an array is a valid request whose params MCP cannot take, answered -32602.
    params: v.optional(
      described(
        v.union(
          [v.array(v.unknown()), v.record(v.string(), v.unknown())],
          '"params" must be an object or an array (JSON-RPC 2.0 §4.2)',
        ),
        "The method's parameters: for tools/call, {name, arguments}.",
      ),
    ),
    // An object, as MCP's Result is (the SDK's transport refuses any other, JSONRPCResultResponseSchema): valibot's
    // record takes an array, and makes an object of it (`[1, 2]` would reach the SDK as `{"0": 1, "1": 2}`).
    result: v.optional(
      v.pipe(
        v.custom<Record<string, unknown>>(isJsonObject, '"result" must be an object (MCP\'s Result)'),
        v.metadata({ jsonObject: true }),
        v.description("A response's result (a response the client sends, to a request of the server)."),
      ),
    ),
    error: v.optional(
      described(
        v.looseObject(
          {
            code: described(v.pipe(v.number(ERROR_RULE), v.integer(ERROR_RULE)), "The error's JSON-RPC code."),
            message: described(v.string(ERROR_RULE), "What went wrong."),
          },
          ERROR_RULE,
        ),
        "A response's error, instead of a result.",
      ),
    ),
  },
  (issue) => {
    // valibot's object schemas take an array as an object: one (a batch's item `[]`) is no message, whatever its
    // first missing member.
    const array = Array.isArray(issue.path?.at(-1)?.input) || Array.isArray(issue.input);
    if (!array && issue.expected === "never")
      return `${JSON.stringify(issue.input)} is not a member of a JSON-RPC message (${MEMBERS})`;
    if (!array && issue.expected === '"jsonrpc"') return '"jsonrpc" must be "2.0"';
    return "A JSON-RPC message must be an object";
  },
);
type MessageInput = v.InferOutput<typeof MessageObject>;
// The three rules below, and the SDK transport's own (a response has no params; a notification's params are an
// object), say what kind of message it is: a request (a method and an id), a notification (a method, no id), or a
// response (an id and exactly one of result or error). The first rule's check carries that in JSON Schema's words,
// as a oneOf of the four kinds, so that the description requires what the server does.
const kind = (required: string[], others: Record<string, unknown>) => ({
  required,
  properties: { ...Object.fromEntries(required.map((m) => [m, true])), ...others },
});
const MESSAGE_KINDS = [
  kind(["method", "id"], { result: false, error: false }),
  kind(["method"], { id: false, result: false, error: false, params: { type: "object" } }),
  kind(["id", "result"], { method: false, error: false, params: false }),
  kind(["id", "error"], { method: false, result: false, params: false }),
];
const Message = v.pipe(
  MessageObject,
  describedCheck<MessageInput>(
    (m) => m.method !== undefined || (m.id !== undefined && (m.result !== undefined || m.error !== undefined)),
    'A JSON-RPC message needs a "method" (a request or notification), or an "id" and a "result" or an "error" (a response)',
    { oneOf: MESSAGE_KINDS },
  ),
  v.check(
    (m) => m.method === undefined || (m.result === undefined && m.error === undefined),
    'A request or notification (with a "method") has no "result" or "error"',
  ),
  v.check((m) => m.result === undefined || m.error === undefined, 'A response has a "result" or an "error", not both'),
  v.description("A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, …)."),
);

const Batch = v.pipe(
  v.array(Message, "A JSON-RPC batch must be an array"),
  v.minLength(1, "A JSON-RPC batch must hold at least one message"),
  v.maxLength(MAX_BATCH, `A JSON-RPC batch may hold at most ${MAX_BATCH} messages`),
);

/** Where an issue of a body is, in words: the batch message it is in, if any ("" for a single message). */
function batchPlace(path: readonly { key?: unknown }[] | undefined): string {
  const at = path?.[0]?.key;
  return typeof at === "number" ? `batch[${at}]: ` : "";
}

/**
 * A body that is neither a valid message nor a valid batch fails both of the union's options; its issue names the
 * first problem of the option it was meant for (a batch for an array, else a message), where valibot's union named
 * none ("Expected (Object | Array)").
 */
function bodyProblem(issue: v.BaseIssue<unknown>): string {
  const { input } = issue;
  const meant = Array.isArray(input) ? Batch : Message;
  const first = v.safeParse(meant, input).issues?.[0];
  if (first === undefined || (!Array.isArray(input) && !isJsonObject(input)))
    return "The body must be a JSON-RPC message (an object) or a batch (an array of them)";
  return `${batchPlace(first.path as { key?: unknown }[] | undefined)}${first.message}`;
}

const Body = v.union([Message, Batch], bodyProblem);

const Query = v.object({
  workspace_id: v.pipe(
    WorkspaceQuery.workspace_id,
    v.description("Default workspace of the tools that take a workspace_id (checked against the key's binding)."),
  ),
});

const JsonRpcReply = v.pipe(
  v.looseObject({
    jsonrpc: v.pipe(v.literal("2.0"), v.description("Always 2.0.")),
    id: v.pipe(v.union([v.string(), v.number()]), v.description("The id of the request this answers.")),
  }),
  v.description("The JSON-RPC response: `result`, or `error` for a protocol error (a failed tool is a result)."),
);

/** JSON-RPC 2.0's codes for a POST refused whole (§5.1), and the SDK transport's own for its other 400s. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const BAD_REQUEST = -32000;

const JsonRpcRefusal = v.pipe(
  v.object({
    jsonrpc: v.pipe(v.literal("2.0"), v.description("Always 2.0.")),
    id: v.pipe(v.null(), v.description("null: a refused POST answers no request of it.")),
    error: v.pipe(
      v.object({
        code: v.pipe(
          v.picklist([PARSE_ERROR, INVALID_REQUEST, BAD_REQUEST]),
          v.description(
            "-32700 Parse error: the body is not JSON (an empty one sent as JSON included; one of another type is 415); -32600 Invalid Request: not a JSON-RPC message or batch (or a " +
              "batch whose requests share an id); -32000: a header or the query is refused (MCP-Protocol-Version, " +
              "workspace_id).",
          ),
        ),
        message: v.pipe(v.string(), v.description("What is wrong, and where (batch[i] for a message of a batch).")),
        data: v.pipe(ErrorBodySchema, v.description("The API's coded error body, as any other operation answers it.")),
      }),
      v.description("The JSON-RPC error: its code, a message, and the API's coded error body."),
    ),
  }),
  v.description("A JSON-RPC error answering the whole POST, carrying the API's coded error body in `error.data`."),
);

/**
 * A 400 of this route as the JSON-RPC error a client of the protocol reads (JSON-RPC 2.0 §5, `id: null` since no
 * request of the POST is answered), with the API's coded body as its `data`: the coded body alone is no answer a
 * JSON-RPC client can read. Other statuses (401, 403, 413, 429…) are HTTP's refusals of the
 * POST and keep the coded body: DESIGN §3 gives every error status that body, and MCP's transport only allows a
 * JSON-RPC error there ("MAY"; the SDK's own server transport uses one for its 403, 406, 413 and 415).
 */
function jsonRpcRefusal(body: ErrorBody, error: ApiError): unknown {
  if (error.status !== 400) return body;
  const issues = (error.details.issues ?? []) as { path?: string; message?: string }[];
  const ofBody = issues.find((i) => i.path === "body" || i.path?.startsWith("body."));
  const at = ofBody?.path?.split(".")[1];
  // -32600 names the member and its rule, and the batch message they are in (`batch[1]: …`): the issue's path
  // (`body.1.id`) says it, and a JSON-RPC client does not read a path.
  const [code, message] =
    error.code === "invalid_json"
      ? [PARSE_ERROR, `Parse error: ${body.message}`]
      : ofBody
        ? [
            INVALID_REQUEST,
            `Invalid Request: ${at !== undefined && /^\d+$/.test(at) ? `batch[${at}]: ` : ""}${ofBody.message ?? body.message}`,
          ]
        : [BAD_REQUEST, `Bad Request: ${body.message}`];
  return { jsonrpc: "2.0", id: null, error: { code, message, data: body } };
}

/**
 * The MCP route, whose tools are the operations of `table` (the route table this route is part of, read when a POST
 * arrives): the caller gives it, so that the MCP modules never import the table that holds them.
 */
export const mcpRoutes = (table: () => RouteDef[]) => [
  route({
    method: "POST",
    path: "/api/v1/mcp",
    operationId: "mcp",
    summary: "Model Context Protocol (Streamable HTTP, stateless): tools that call this API under the same key",
    description:
      "Connects an AI assistant or agent that speaks the Model Context Protocol: point an MCP client's Streamable " +
      "HTTP transport at this URL with the API key as its Bearer credential. Each POST carries one JSON-RPC 2.0 " +
      "message or a batch of up to 100: initialize, tools/list, then tools/call. Its tools are this API's " +
      "operations (list_templates, generate_content, finalize_content, …); each tool call is one request made with " +
      "the same credential, so its scopes, workspace binding, plan and rate limit apply, and a tool call spends one " +
      "request of the rate limit. The server keeps no session: GET and DELETE on this path are 405. A workspace_id " +
      "in the query is the default workspace of the tools that take one. Needs the write scope, as any POST.",
    tag: "MCP",
    stability: "stable",
    access: "any",
    workspace: "optional",
    spendsTokens: true,
    // An empty body is no JSON-RPC message: -32700, as the SDK's own transport answers it (not read as `{}`, which
    // would be refused -32600 for its missing "jsonrpc").
    bodyRequired: true,
    query: Query,
    body: Body,
    bodyExamples: {
      initialize: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "my-agent", version: "1.0.0" },
        },
      },
      listTools: { jsonrpc: "2.0", id: 2, method: "tools/list" },
      callTool: {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "list_templates", arguments: { category: "blog" } },
      },
      batch: [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 4, method: "tools/list" },
      ],
    },
    responses: {
      200: {
        description:
          "The JSON-RPC response(s): application/json, or text/event-stream when the client's Accept prefers it.",
        schema: v.union([JsonRpcReply, v.array(JsonRpcReply)]),
        example: {
          jsonrpc: "2.0",
          id: 3,
          result: {
            content: [
              { type: "text", text: '{"data":[{"id":1,"name":"Blog post","category":"blog"}],"has_more":false}' },
            ],
            isError: false,
          },
        },
        alsoContent: {
          "text/event-stream": {
            type: "string",
            description: "Server-sent events: one `message` event per JSON-RPC response, then the stream ends.",
          },
        },
      },
      202: { description: "Notifications and responses only: accepted, no body." },
      400: {
        description: "A JSON-RPC error for the whole POST (id null), its error.data the coded body.",
        schema: JsonRpcRefusal,
      },
      ...AUTH_ERRORS,
    },
    errorBody: jsonRpcRefusal,
    async handler(ctx: Ctx<unknown, v.InferOutput<typeof Query>, v.InferOutput<typeof Body>>) {
      // Loaded on first use: the MCP SDK takes about 40 ms to load, a tenth of the server's start.
      const [{ answerMcp }, { toolsFor }] = await Promise.all([
        import("../mcp/server.js"),
        import("../mcp/tool-schemas.js"),
      ]);
      const routes = table();
      return answerMcp({
        request: ctx.request,
        messages: ctx.body,
        dispatch: dispatcherFor(ctx.services, routes),
        tools: toolsFor(routes, ctx.services.config),
        defaultWorkspace: ctx.query.workspace_id,
        onError: (error) =>
          ctx.services.logger.info("mcp protocol error", { trace_id: ctx.traceId, error: error.message }),
      });
    },
  }),
];
