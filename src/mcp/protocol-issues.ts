/**
 * The issues of the MCP SDK's request schemas (zod 4's `$ZodIssue`, parsed with reportInput) in the words of every
 * other validation message (http/messages.ts): `params.name is required`, `arguments must be an object (got a
 * string)`. The SDK checks a request's params with its own schemas; this server words what they refuse
 * (test/mcp/protocol-issues.test.ts).
 */

import { kindOf, shown } from "../domain/wording.js";
import { orList, TYPE_WORDS } from "../http/messages.js";
import { charLength } from "../runtime/chars.js";

/** One issue of an SDK schema, as its safeParse reports it with `reportInput: true`. */
export interface ProtocolIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  expected?: string;
  origin?: string;
  maximum?: number | bigint;
  minimum?: number | bigint;
  inclusive?: boolean;
  values?: unknown[];
  keys?: string[];
  format?: string;
}

/** The formats of `invalid_format`, in words. */
const FORMATS: Record<string, string> = {
  date: "a date YYYY-MM-DD",
  datetime: "a timestamp (ISO 8601, such as 2030-01-31T09:00:00.000Z)",
  email: "an email address",
  url: "a URL",
  uuid: "a UUID",
};

/** A size rule (`too_big`, `too_small`) in words, counting characters, items or the number itself. */
function sizePhrase(issue: ProtocolIssue, bound: "at most" | "at least"): string {
  const n = Number(bound === "at most" ? issue.maximum : issue.minimum);
  const strict = issue.inclusive === false ? (bound === "at most" ? "less than" : "more than") : bound;
  const { input } = issue;
  if (typeof input === "string") {
    if (bound === "at least" && n === 1 && issue.inclusive !== false) return "must not be empty";
    return `must be ${strict} ${n} ${n === 1 ? "character" : "characters"} (got ${charLength(input)})`;
  }
  if (Array.isArray(input)) return `must have ${strict} ${n} ${n === 1 ? "item" : "items"} (got ${input.length})`;
  return `must be ${strict} ${n} (got ${shown(input)})`;
}

/** What fields a request's object does not take, in words: `must not have "x": it is not a field this takes`. */
export function unknownFieldsPhrase(keys: readonly string[]): string {
  const they = keys.length === 1 ? "it is not a field" : "they are not fields";
  return `must not have ${orList(keys.map((k) => JSON.stringify(k)))}: ${they} this takes`;
}

/** What an issue says the field must be, in the words of http/messages.ts. */
function phraseOf(issue: ProtocolIssue): string {
  const { input } = issue;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return "is required";
      if (issue.expected === "int") return `must be an integer (got ${shown(input)})`;
      return `must be ${TYPE_WORDS[issue.expected ?? ""] ?? issue.expected} (got ${kindOf(input)})`;
    case "too_big":
      return sizePhrase(issue, "at most");
    case "too_small":
      return sizePhrase(issue, "at least");
    case "invalid_value": {
      const values = (issue.values ?? []).map((value) => String(value));
      const words = values.length === 1 ? JSON.stringify(issue.values?.[0]) : `one of ${values.join(", ")}`;
      return `must be ${words} (got ${shown(input)})`;
    }
    case "unrecognized_keys":
      return unknownFieldsPhrase(issue.keys ?? []);
    case "invalid_format":
      return `must be ${FORMATS[issue.format ?? ""] ?? `in the ${issue.format} format`} (got ${shown(input)})`;
  }
  return `is not valid (got ${shown(input)})`;
}

/** An issue's message, naming its field as http/messages.ts issueMessage does (`params.name is required`). */
export function protocolIssueMessage(issue: ProtocolIssue, field: string): string {
  return `${field} ${phraseOf(issue)}`;
}
