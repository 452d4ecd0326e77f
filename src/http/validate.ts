/** Runs valibot schemas over request input and turns their issues into 400 validation_failed. */
import * as v from "valibot";
import { ApiError, invalidInput } from "../domain/errors.js";
import { kindOf } from "../domain/wording.js";
import { sliceWhole } from "../runtime/chars.js";
import { fieldOf, issueMessage, UNWORDED } from "./messages.js";

/** One validation problem as the error body lists it. */
export interface InputIssue {
  path: string;
  message: string;
}

/** The keys of an issue's path, from the input's top: `["items", 0, "text"]`. */
function keysOf(issue: v.BaseIssue<unknown>): unknown[] {
  return (issue.path ?? []).map((p) => (p as { key: unknown }).key);
}

/** The longest message an issue may have: one quoting what was received stays short (messages.ts cuts the quote). */
const MAX_MESSAGE = 300;

/** A request input's issues as the error body lists them: where each is, and what is wrong there in plain words. */
function inputIssues(issues: readonly v.BaseIssue<unknown>[], where: string): InputIssue[] {
  return issues.slice(0, 50).map((i) => {
    const keys = keysOf(i);
    const message = issueMessage(i, fieldOf(where, keys));
    return {
      path: [where, ...keys.map(String)].join("."),
      message: message.length > MAX_MESSAGE ? `${sliceWhole(message, MAX_MESSAGE - 3)}...` : message,
    };
  });
}

/**
 * 400 validation_failed listing issues; its message is the first issue's, and says how many more there are.
 * One wording for every validation refusal (test/http/validation-messages.test.ts).
 */
export function validationFailed(issues: InputIssue[]): ApiError {
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more: see details.issues)` : "";
  return new ApiError("validation_failed", `${issues[0].message}${more}`, { issues });
}

/** Parses input with a schema or throws validation_failed listing every issue. */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { message: UNWORDED });
  if (result.success) return result.output;
  throw validationFailed(inputIssues(result.issues, where));
}

/** valibot's object schemas, which take any non-null object, arrays included. */
const OBJECT_TYPES = new Set(["object", "loose_object", "strict_object", "object_with_rest"]);

/** Whether a body schema needs this input to be an object: an object schema, also within optional or nullable. */
function wantsObject(schema: v.GenericSchema, input: unknown): boolean {
  const s = schema as v.GenericSchema & { wrapped?: v.GenericSchema };
  if (OBJECT_TYPES.has(s.type)) return true;
  if (s.wrapped === undefined) return false;
  if (s.type === "optional") return input !== undefined && wantsObject(s.wrapped, input);
  if (s.type === "nullable") return input !== null && wantsObject(s.wrapped, input);
  if (s.type === "nullish") return input !== undefined && input !== null && wantsObject(s.wrapped, input);
  return false;
}

/**
 * Parses a request body with its schema. A body whose schema is an object must be a JSON object: valibot's objects
 * also take arrays (`[]` passed an all-optional schema), so an array, string, number or null is refused here first.
 */
export function parseBodyInput<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  if (wantsObject(schema, input) && (input === null || typeof input !== "object" || Array.isArray(input))) {
    throw invalidInput("body", `body must be a JSON object (got ${kindOf(input)})`);
  }
  return parseInput(schema, input, "body");
}

/** Whether a query parameter's schema takes several values (an array, also within optional or nullable). */
function takesMany(schema: v.GenericSchema | undefined): boolean {
  const s = schema as (v.GenericSchema & { wrapped?: v.GenericSchema }) | undefined;
  if (s === undefined) return false;
  if (s.type === "array") return true;
  return s.wrapped !== undefined && takesMany(s.wrapped);
}

/**
 * The query as an object for its schema. A parameter the schema takes once that the query repeats
 * (`?limit=5&limit=50`) is 400 validation_failed naming it: the first value had won silently, so a client that
 * appended a second one (a later default, a rewritten URL) was answered for a query it did not mean. A parameter
 * whose schema is an array takes every value, in order; one the schema does not know is ignored, as it is when sent
 * once.
 */
export function queryObjectOf(params: URLSearchParams, schema: v.GenericSchema | undefined): Record<string, unknown> {
  const entries = (schema as { entries?: Record<string, v.GenericSchema> } | undefined)?.entries ?? {};
  const query: Record<string, unknown> = {};
  const repeated = new Map<string, number>();
  for (const [k, value] of params) {
    const known = Object.hasOwn(entries, k);
    if (known && takesMany(entries[k])) {
      const values = (query[k] as string[] | undefined) ?? [];
      values.push(value);
      query[k] = values;
    } else if (!Object.hasOwn(query, k)) query[k] = value;
    else if (known) repeated.set(k, (repeated.get(k) ?? 1) + 1);
  }
  if (repeated.size > 0) throw repeatedQuery(repeated);
  return query;
}

/** 400 validation_failed: query parameters sent more than once, each with how many times. */
export function repeatedQuery(counts: Map<string, number>): ApiError {
  const issues: InputIssue[] = [...counts].map(([k, n]) => ({
    path: `query.${k}`,
    message: `${k} must be sent once (got ${n} values)`,
  }));
  return validationFailed(issues);
}
