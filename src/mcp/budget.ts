/**
 * The result budget of one POST to the MCP endpoint: how much text its tool results may carry, shared by the calls
 * of a batch, and the order in which reads and writes take it. Tested by test/http/mcp.test.ts ("the size of an MCP
 * answer", "the result budget, with the order of the calls held").
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../domain/errors.js";
import { errorBody } from "../http/errors.js";
import { jsonLengthFloor, jsonText, streamedValue } from "../http/json-pieces.js";
import { randomUuid } from "../runtime/random.js";
import type { Dispatch } from "./dispatch.js";
import { resultText } from "./result-text.js";
import { type CallContext, toolRequest, toolResult } from "./tool-calls.js";
import type { McpTool } from "./tool-schemas.js";

/**
 * The most text the tool results of one POST carry, in characters; the calls of a batch share it. A result is the
 * operation's JSON answer, which the JSON-RPC answer carries escaped again and parsed as structuredContent (about
 * three times its size): without a cap, a batch of list_contents over large texts reaches V8's longest string, and
 * the SDK's serialisation fails unseen or the process runs out of memory.
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
  const body = errorBody(new ApiError("output_too_large", message, { limit_chars: MAX_RESULT_CHARS }), randomUuid());
  return {
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
    isError: true,
  };
}

/** The refusal of a read whose result of `chars` characters does not fit in the budget. */
function resultTooLarge(chars: string): CallToolResult {
  return tooLarge(
    `This result is ${chars} characters; the results of one MCP request may carry ${MAX_RESULT_CHARS} in all. ` +
      "Ask for less: a smaller limit, or fewer calls in one batch.",
  );
}

/** Runs one tool call: the tool, its arguments (already checked), and the tool's result. */
export type ToolCaller = (tool: McpTool, args: Record<string, unknown>) => Promise<CallToolResult>;

/**
 * What the budget counts: results given, the writes running's reservations, the reads waiting's texts, and the least
 * lengths of the texts being made.
 */
interface Budget {
  carried: number;
  reserved: number;
  waiting: number;
  /** The least lengths of the streamed texts being made (runRead). */
  making: number;
  /** Resolves when a write ends and gives its reservation back. */
  roomFreed(): Promise<void>;
  /** Wakes the calls waiting for room. */
  freeRoom(): void;
}

/** A fresh budget for one POST. */
function newBudget(): Budget {
  let freed: Promise<void> | undefined;
  let wake = () => {};
  return {
    carried: 0,
    reserved: 0,
    waiting: 0,
    making: 0,
    roomFreed() {
      freed ??= new Promise<void>((resolve) => {
        wake = resolve;
      });
      return freed;
    },
    freeRoom() {
      freed = undefined;
      wake();
    },
  };
}

/** A call's answer, as text and, when the operation gave it, as the value the text is the JSON of. */
interface Answer {
  text: string;
  answered?: { value: unknown };
}

/**
 * The answer of a call's response. A streamed answer's text is made from its value (http/json-pieces.ts jsonText),
 * its stream cancelled unread: the same text, without its UTF-8 made and decoded again on the HTTP thread. Another
 * body is read in pieces (result-text.ts).
 */
async function answerOf(response: Response): Promise<Answer> {
  const answered = streamedValue(response.body);
  if (answered === undefined) return { text: await resultText(response) };
  await response.body?.cancel();
  return { text: await jsonText(answered.value), answered };
}

/**
 * A read's result, or its refusal once its result is built and the results given leave no room for it. Room the
 * writes running hold for theirs comes back as they end (their results are mostly small): a read waits for it rather
 * than being refused for what a write might give. The reads waiting hold their texts meanwhile: they count too, so
 * that what waits is bounded by the budget.
 */
async function runRead(budget: Budget, dispatched: Promise<Response>): Promise<CallToolResult> {
  const response = await dispatched;
  // A streamed answer that cannot fit beside what is given, waiting or being made is refused before its text is made:
  // in a batch of large lists most calls are, and making their texts (megabytes each, all at once) fed the collector
  // pauses of 100 ms and more (bench:stall's MCP p99 78-85 ms, 48-50 without them).
  const streamed = streamedValue(response.body);
  const floor = streamed ? jsonLengthFloor(streamed.value) : 0;
  if (budget.carried + budget.waiting + budget.making + floor > MAX_RESULT_CHARS) {
    await response.body?.cancel();
    return resultTooLarge(`at least ${floor}`);
  }
  budget.making += floor;
  let made: Answer;
  try {
    made = await answerOf(response);
  } finally {
    budget.making -= floor;
  }
  const { text, answered } = made;
  while (budget.carried + budget.reserved + budget.waiting + text.length > MAX_RESULT_CHARS) {
    if (budget.reserved === 0 || budget.carried + budget.waiting + text.length > MAX_RESULT_CHARS)
      return resultTooLarge(String(text.length));
    budget.waiting += text.length;
    try {
      await budget.roomFreed();
    } finally {
      budget.waiting -= text.length;
    }
  }
  budget.carried += text.length;
  return toolResult(response, text, answered);
}

/**
 * A write's result. A write is refused before it runs, never after: it would have happened, and an error would invite
 * a retry that does it twice. Its result comes back whatever its size.
 */
async function runWrite(budget: Budget, dispatch: () => Promise<Response>): Promise<CallToolResult> {
  while (budget.carried + budget.reserved + WRITE_RESERVE_CHARS > MAX_RESULT_CHARS) {
    if (budget.reserved === 0)
      return tooLarge(
        `Not done: the results of this MCP request already fill the ${MAX_RESULT_CHARS} characters it may carry. ` +
          "Send this call in another request.",
      );
    await budget.roomFreed();
  }
  budget.reserved += WRITE_RESERVE_CHARS;
  try {
    const response = await dispatch();
    const { text, answered } = await answerOf(response);
    budget.carried += text.length;
    return toolResult(response, text, answered);
  } finally {
    budget.reserved -= WRITE_RESERVE_CHARS;
    budget.freeRoom();
  }
}

/**
 * The tool caller of one POST: each call is dispatched as its HTTP request, its result counted in the POST's budget.
 * The POST took a rate-limit token and counts in usage: its first tool call uses those (`enclosing`, http/app.ts
 * RequestEnv).
 */
export function budgetedCaller(dispatch: Dispatch, call: CallContext, enclosing: { covered: boolean }): ToolCaller {
  const budget = newBudget();
  return (tool, args) => {
    const request = toolRequest(tool, args, call);
    if (tool.def.annotations.readOnlyHint === true) return runRead(budget, dispatch(request, { enclosing }));
    return runWrite(budget, () => dispatch(request, { enclosing }));
  };
}
