/**
 * The MCP SDK's protocol issues (zod 4's issue shapes, as its request schemas report them) in the words of every
 * other validation message (src/mcp/protocol-issues.ts), and one reached through the SDK's own schema.
 */
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { fieldOf } from "../../src/http/messages.js";
import { type ProtocolIssue, protocolIssueMessage } from "../../src/mcp/protocol-issues.js";

/** An issue as the SDK's schemas report it, without the message they would give it (never shown). */
const issue = (fields: Omit<ProtocolIssue, "message">): ProtocolIssue => ({ message: "", ...fields });
const words = (issues: ProtocolIssue[]) => issues.map((i) => protocolIssueMessage(i, fieldOf("arguments", i.path)));

describe("the SDK's protocol issues, in the words of every other validation message", () => {
  it("each kind of issue names its field and what it must be", () => {
    expect(words([issue({ code: "invalid_type", expected: "string", path: ["title"] })])).toEqual([
      "title is required",
    ]);
    expect(words([issue({ code: "invalid_type", expected: "string", path: ["title"], input: 5 })])).toEqual([
      "title must be a string (got a number)",
    ]);
    expect(
      words([issue({ code: "too_small", origin: "string", minimum: 1, inclusive: true, path: ["title"], input: "" })]),
    ).toEqual(["title must not be empty"]);
    expect(
      words([
        issue({ code: "too_big", origin: "string", maximum: 3, inclusive: true, path: ["title"], input: "😀😀😀😀" }),
      ]),
    ).toEqual(["title must be at most 3 characters (got 4)"]);
    expect(
      words([
        issue({ code: "invalid_type", expected: "int", format: "safeint", path: ["limit"], input: 1.5 }),
        issue({ code: "invalid_value", values: ["voice", "fact"], path: ["kind"], input: "mood" }),
        issue({ code: "invalid_format", origin: "string", format: "date", path: ["day"], input: "2030-13-01" }),
        issue({ code: "too_big", origin: "array", maximum: 1, inclusive: true, path: ["ids"], input: [1, 2] }),
        issue({ code: "invalid_type", expected: "boolean", path: ["flag"], input: "yes" }),
        issue({ code: "unrecognized_keys", keys: ["x"], path: [], input: {} }),
      ]),
    ).toEqual([
      "limit must be an integer (got 1.5)",
      'kind must be one of voice, fact (got "mood")',
      'day must be a date YYYY-MM-DD (got "2030-13-01")',
      "ids must have at most 1 item (got 2)",
      "flag must be true or false (got a string)",
      'arguments must not have "x": it is not a field this takes',
    ]);
    expect(
      words([issue({ code: "too_small", origin: "number", minimum: 1, inclusive: true, path: ["limit"], input: 0 })]),
    ).toEqual(["limit must be at least 1 (got 0)"]);
    expect(words([issue({ code: "unrecognized_keys", keys: ["x", "y"], path: [], input: {} })])).toEqual([
      'arguments must not have "x" or "y": they are not fields this takes',
    ]);
    expect(words([issue({ code: "invalid_type", expected: "object", path: [], input: 5 })])).toEqual([
      "arguments must be an object (got a number)",
    ]);
  });

  it("words an issue of the SDK's own tools/call schema", () => {
    const parsed = CallToolRequestSchema.safeParse({ method: "tools/call", params: {} }, { reportInput: true });
    const issues = (parsed.error?.issues ?? []) as ProtocolIssue[];
    expect(issues.map((i) => protocolIssueMessage(i, fieldOf("request", i.path)))).toEqual(["params.name is required"]);
  });
});
