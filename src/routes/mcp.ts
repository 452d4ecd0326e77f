/**
 * POST /mcp (DESIGN §6, stable): the Model Context Protocol over the Streamable HTTP transport, stateless. Its tools
 * are this API's operations, each called through the request pipeline with the caller's own credentials. GET and
 * DELETE (an SSE stream, a session to end) have no route: a stateless server answers them 405.
 */
import * as v from "valibot";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { maxChars, WorkspaceQuery } from "../http/schemas.js";
import { dispatcherFor } from "../mcp/dispatch.js";
import { AUTH_ERRORS, INPUT_ERRORS } from "./common.js";

/** The JSON-RPC 2.0 message batches may hold at most (the SDK transport's own limit). */
const MAX_BATCH = 100;

const Message = v.pipe(
  v.looseObject({
    jsonrpc: v.literal("2.0"),
    id: v.optional(v.union([v.pipe(v.string(), maxChars(200)), v.pipe(v.number(), v.integer())])),
    method: v.optional(v.pipe(v.string(), v.minLength(1), maxChars(200))),
    params: v.optional(v.record(v.string(), v.unknown())),
    result: v.optional(v.record(v.string(), v.unknown())),
    error: v.optional(v.looseObject({ code: v.pipe(v.number(), v.integer()), message: v.string() })),
  }),
  v.check(
    (m) => m.method !== undefined || (m.id !== undefined && (m.result !== undefined || m.error !== undefined)),
    "Expected a JSON-RPC 2.0 request, notification or response.",
  ),
  v.description("A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, …)."),
);

const Body = v.union([Message, v.pipe(v.array(Message), v.minLength(1), v.maxLength(MAX_BATCH))]);

const Query = v.object({
  workspace_id: v.pipe(
    WorkspaceQuery.workspace_id,
    v.description("Default workspace of the tools that take a workspace_id (checked against the key's binding)."),
  ),
});

const JsonRpcReply = v.pipe(
  v.looseObject({ jsonrpc: v.literal("2.0"), id: v.union([v.string(), v.number()]) }),
  v.description("The JSON-RPC response: `result`, or `error` for a protocol error (a failed tool is a result)."),
);

export const mcpRoutes = [
  route({
    method: "POST",
    path: "/api/v1/mcp",
    operationId: "mcp",
    summary: "Model Context Protocol (Streamable HTTP, stateless): tools that call this API under the same key",
    tag: "MCP",
    stability: "stable",
    access: "any",
    workspace: "optional",
    spendsTokens: true,
    query: Query,
    body: Body,
    responses: {
      200: {
        description:
          "The JSON-RPC response(s): application/json, or text/event-stream when the client's Accept prefers it.",
        schema: v.union([JsonRpcReply, v.array(JsonRpcReply)]),
        alsoContent: {
          "text/event-stream": {
            type: "string",
            description: "Server-sent events: one `message` event per JSON-RPC response, then the stream ends.",
          },
        },
      },
      202: { description: "Notifications and responses only: accepted, no body." },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    async handler(ctx: Ctx<unknown, v.InferOutput<typeof Query>, v.InferOutput<typeof Body>>) {
      // Loaded on first use: the MCP SDK takes about 40 ms to load, a tenth of the server's start.
      const { answerMcp } = await import("../mcp/server.js");
      return answerMcp({
        request: ctx.request,
        messages: ctx.body,
        dispatch: await dispatcherFor(ctx.services),
        defaultWorkspace: ctx.query.workspace_id,
        onError: (error) =>
          ctx.services.logger.info("mcp protocol error", { trace_id: ctx.traceId, error: error.message }),
      });
    },
  }),
];
