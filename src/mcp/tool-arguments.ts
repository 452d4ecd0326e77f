/**
 * The check of a tool call's arguments, by the schemas of its route (the ones the request's input stage runs) and
 * in the same words: a path or query argument is the JSON its input schema shows (an integer, a boolean), checked as
 * the text the request carries; a body argument as the body's field. An argument the tool does not take is refused,
 * never dropped (a misspelled workspace_id would act in the default workspace). Tested by test/http/mcp.test.ts.
 */
import * as v from "valibot";
import { kindOf, shown } from "../domain/wording.js";
import { fieldOf, issueMessage, TYPE_WORDS, UNWORDED } from "../http/messages.js";
import { unknownFieldsPhrase } from "./protocol-issues.js";
import type { ArgumentPlace, McpTool, ToolArgument } from "./tool-schemas.js";

/** One problem of a call's arguments: where it is under `arguments` (`["content_id"]`), and what is wrong. */
export interface ArgumentIssue {
  keys: unknown[];
  message: string;
}

/** Whether a value is what a JSON Schema `type` names, for the types a path or query argument has. */
function isOfType(value: unknown, type: unknown): boolean {
  if (type === "integer" || type === "number") return typeof value === "number" && Number.isFinite(value);
  if (type === "boolean") return typeof value === "boolean";
  if (type === "string") return typeof value === "string";
  if (type === "array") return Array.isArray(value);
  return true;
}

/**
 * The problem of a path or query argument that is not the JSON its schema names, worded as its place's messages are
 * (`content_id must be a number (got a string)`), else undefined. A path argument is required and not empty: it
 * fills a segment of the path, and an empty one would name another resource (`/workspaces/` is the list).
 */
function typeProblem(name: string, arg: ToolArgument, value: unknown): string | undefined {
  if (value === undefined) return arg.in === "path" ? `${name} is required` : undefined;
  if (arg.in === "path" && value === "") return `${name} must not be empty`;
  const { type } = arg.json;
  if (!isOfType(value, type)) {
    const words = TYPE_WORDS[type === "integer" ? "number" : String(type)] ?? String(type);
    return `${name} must be ${words} (got ${kindOf(value)})`;
  }
  if (type === "integer" && !Number.isInteger(value)) return `${name} must be an integer (got ${shown(value)})`;
  return undefined;
}

/** An argument as the request carries it in a URL: text (each item of a list, for a parameter taking several). */
function asText(value: unknown): unknown {
  return Array.isArray(value) ? value.map(String) : String(value);
}

/** The route's schema for a place, which checks the arguments sent there. */
function schemaOf(tool: McpTool, place: ArgumentPlace): v.GenericSchema | undefined {
  return place === "path" ? tool.route.params : place === "query" ? tool.route.query : tool.route.body;
}

/**
 * The issues of one place's arguments under its route schema, by argument name: the arguments are sent as that
 * place's fields (path and query ones as text), each field named back as its argument (`contentId` is `content_id`).
 */
function placeIssues(
  tool: McpTool,
  place: ArgumentPlace,
  args: Record<string, unknown>,
  skip: Set<string>,
): ArgumentIssue[] {
  const schema = schemaOf(tool, place);
  if (!schema) return [];
  const input: Record<string, unknown> = {};
  const nameOf = new Map<unknown, string>();
  for (const [name, arg] of tool.arguments) {
    if (arg.in !== place || arg.own) continue;
    nameOf.set(arg.field, name);
    if (args[name] !== undefined) input[arg.field] = place === "body" ? args[name] : asText(args[name]);
  }
  const result = v.safeParse(schema, input, { message: UNWORDED });
  if (result.success) return [];
  return result.issues.flatMap((issue) => {
    const keys = (issue.path ?? []).map((p) => (p as { key: unknown }).key);
    if (keys.length > 0) keys[0] = nameOf.get(keys[0]) ?? keys[0];
    if (keys.length > 0 && skip.has(String(keys[0]))) return [];
    return [{ keys, message: issueMessage(issue, fieldOf("arguments", keys)) }];
  });
}

/** The issues of the arguments a schema of their own checks (a workspace_id the route reads without listing it). */
function ownIssues(tool: McpTool, args: Record<string, unknown>): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  for (const [name, arg] of tool.arguments) {
    if (!arg.own || args[name] === undefined) continue;
    const result = v.safeParse(arg.own, args[name], { message: UNWORDED });
    for (const issue of result.issues ?? []) issues.push({ keys: [name], message: issueMessage(issue, name) });
  }
  return issues;
}

/** Every problem of a tool call's arguments, in the order: types, then the route's path, query and body, then extras. */
export function argumentIssues(tool: McpTool, given: unknown): ArgumentIssue[] {
  if (given === null || typeof given !== "object" || Array.isArray(given))
    return [{ keys: [], message: `arguments must be an object (got ${kindOf(given)})` }];
  const args = given as Record<string, unknown>;
  const issues: ArgumentIssue[] = [];
  const mistyped = new Set<string>();
  for (const [name, arg] of tool.arguments) {
    if (arg.in === "body") continue;
    const problem = typeProblem(name, arg, args[name]);
    if (problem === undefined) continue;
    mistyped.add(name);
    issues.push({ keys: [name], message: problem });
  }
  for (const place of ["path", "query", "body"] as const) issues.push(...placeIssues(tool, place, args, mistyped));
  // The tool's own choice among the route's alternatives (tools.ts ToolDef.requires).
  for (const name of tool.def.requires ?? [])
    if (args[name] === undefined && !issues.some((i) => i.keys[0] === name))
      issues.push({ keys: [name], message: `${name} is required` });
  issues.push(...ownIssues(tool, args));
  const unknown = Object.keys(args).filter((name) => !tool.arguments.has(name));
  if (unknown.length > 0) issues.push({ keys: [], message: `arguments ${unknownFieldsPhrase(unknown)}` });
  return issues;
}
