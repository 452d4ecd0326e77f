/**
 * Validation issues in plain words, naming the field and what it must be: `title is required`,
 * `target_format must be one of html, markdown (got "thread")`, `limit must be an integer from 1 to 100 (got "500")`.
 * valibot's own wording ("Invalid key: Expected "title" but received undefined") is never shown: an issue its schema
 * gives no message is worded here from its kind, type, expected, received and requirement (test/http/messages.test.ts).
 */
import type * as v from "valibot";
import { kindOf, shown } from "../domain/wording.js";

/**
 * The message valibot gives an issue whose schema or action has none of its own (safeParse's `config.message`): such
 * an issue is worded by issueMessage, never shown as valibot's.
 */
export const UNWORDED = "\u0000unworded";

/** The object schemas, whose issues with `expected` a quoted key and nothing received are a missing field. */
const OBJECTS = new Set(["object", "loose_object", "strict_object", "object_with_rest", "variant"]);

/** valibot's type names in `expected`, in words (the MCP SDK's protocol issues use them too: mcp/protocol-issues.ts). */
export const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  null: "null",
  Array: "an array",
  Object: "an object",
  array: "an array",
  object: "an object",
  never: "nothing",
};

/** One alternative of an `expected` (`string`, `"html"`, `Object`): a quoted value unquoted, a type in words. */
function alternative(part: string): { value: boolean; words: string } {
  if (part.startsWith('"')) {
    try {
      return { value: true, words: String(JSON.parse(part)) };
    } catch {
      return { value: true, words: part };
    }
  }
  if (/^-?\d/.test(part) || part === "true" || part === "false") return { value: true, words: part };
  return { value: false, words: TYPE_WORDS[part] ?? part };
}

/** Joins words as a sentence lists them: `a`, `a or b`, `a, b or c`. */
export function orList(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/**
 * What valibot's `expected` asks for, in words: `(string | number)` is `a string or a number`, `("html" | "markdown")`
 * is `one of html, markdown`; one value is shown as written (`"2.0"`).
 */
export function expectedWords(expected: string): string {
  const inner = expected.startsWith("(") && expected.endsWith(")") ? expected.slice(1, -1) : expected;
  const parts = inner.split(" | ").map(alternative);
  if (parts.length > 1 && parts.every((p) => p.value)) return `one of ${parts.map((p) => p.words).join(", ")}`;
  if (parts.length === 1 && inner.startsWith('"')) return inner;
  return orList(parts.map((p) => p.words));
}

/** The unit a length counts: characters of a string (counted in characters: schemas.ts maxChars), items of a list. */
function lengthPhrase(issue: v.BaseIssue<unknown>, bound: "at most" | "at least" | "exactly"): string {
  const n = Number(issue.requirement);
  if (Array.isArray(issue.input))
    return `must have ${bound} ${n} ${n === 1 ? "item" : "items"} (got ${issue.received})`;
  if (bound === "at least" && n === 1) return "must not be empty";
  return `must be ${bound} ${n} ${n === 1 ? "character" : "characters"} (got ${issue.received})`;
}

/** The words of the formats valibot checks, by the action's type. */
const FORMATS: Record<string, string> = {
  iso_timestamp: "a timestamp (ISO 8601, such as 2030-01-31T09:00:00.000Z)",
  iso_date: "a date YYYY-MM-DD",
  iso_date_time: "a date and time YYYY-MM-DDTHH:MM",
  email: "an email address",
  url: "a URL",
  uuid: "a UUID",
  integer: "an integer",
};

/** An issue valibot raised without a message, worded as what the field must be: `must be a string (got a number)`. */
function phraseOf(issue: v.BaseIssue<unknown>): string {
  const { type, expected, input } = issue;
  if (issue.kind === "schema") {
    if (OBJECTS.has(type) && input === undefined && expected?.startsWith('"')) return "is required";
    if (expected === "never") return "is not a field this request takes";
    if (type === "picklist" || type === "enum" || type === "literal" || (type === "variant" && expected?.includes('"')))
      return `must be ${expectedWords(expected ?? "")} (got ${shown(input)})`;
    return `must be ${expectedWords(expected ?? type)} (got ${kindOf(input)})`;
  }
  switch (type) {
    case "max_length":
      return lengthPhrase(issue, "at most");
    case "min_length":
      return lengthPhrase(issue, "at least");
    case "length":
      return lengthPhrase(issue, "exactly");
    case "max_value":
      return `must be at most ${String(issue.requirement)} (got ${shown(input)})`;
    case "min_value":
      return `must be at least ${String(issue.requirement)} (got ${shown(input)})`;
    case "non_empty":
      return "must not be empty";
    case "starts_with":
      return `must start with ${JSON.stringify(issue.requirement)} (got ${shown(input)})`;
  }
  const format = FORMATS[type];
  return format ? `must be ${format} (got ${shown(input)})` : `is not valid (got ${shown(input)})`;
}

/** The length rules, whose issues receive a count (characters, bytes, items) rather than a value. */
const LENGTHS = new Set(["max_length", "min_length", "length"]);

/**
 * What a schema's own message is followed by: the count a length rule found (none for emptiness, said by the message),
 * the input where it is a string, number or boolean, else nothing (a whole object is not shown).
 */
function gotOf(issue: v.BaseIssue<unknown>): string {
  if (issue.message.includes("(got ")) return "";
  if (LENGTHS.has(issue.type)) return issue.received === "0" ? "" : ` (got ${issue.received})`;
  return ["string", "number", "boolean"].includes(typeof issue.input) ? ` (got ${shown(issue.input)})` : "";
}

/**
 * An issue's message, naming its field (`field`: `title`, `items[0].text`, `body`). A message a schema gives is a
 * phrase when it begins with a word in lower case and a space (`must be a date YYYY-MM-DD`): it follows the field's
 * name, and the input follows it (`(got "2030-13-01")`) unless it says it itself. One beginning otherwise is a
 * sentence of its own, shown as written ("Send exactly one of text or content_id.", `batch[0]: …`).
 */
export function issueMessage(issue: v.BaseIssue<unknown>, field: string): string {
  if (issue.message === UNWORDED) return `${field} ${phraseOf(issue)}`;
  if (!/^[a-z]+ /.test(issue.message)) return issue.message;
  return `${field} ${issue.message}${gotOf(issue)}`;
}

/** The field an issue is about, as a message names it: `title`, `items[0].text`; `where` itself (`body`) for the whole. */
export function fieldOf(where: string, keys: readonly unknown[]): string {
  let field = "";
  for (const key of keys) {
    if (typeof key === "number") field += `[${key}]`;
    else field += field === "" ? String(key) : `.${String(key)}`;
  }
  return field === "" ? where : field.startsWith("[") ? `${where}${field}` : field;
}
