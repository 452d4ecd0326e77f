/** Runs valibot schemas over request input and turns their issues into 400 validation_failed. */
import * as v from "valibot";
import { ApiError } from "./errors.js";

/** One validation problem as the error body lists it. */
export interface InputIssue {
  path: string;
  message: string;
}

function issuePath(where: string, issue: v.BaseIssue<unknown>): string {
  const keys = (issue.path ?? []).map((p) => String((p as { key: unknown }).key));
  return [where, ...keys].join(".");
}

/** Parses input with a schema or throws validation_failed listing every issue. */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  // Messages may quote what was received: keep them short, so an error body never echoes a huge input back.
  const issues: InputIssue[] = result.issues.slice(0, 50).map((i) => ({
    path: issuePath(where, i),
    message: i.message.length > 300 ? `${i.message.slice(0, 297)}...` : i.message,
  }));
  throw new ApiError("validation_failed", `Invalid ${where}: ${issues[0].path}: ${issues[0].message}`, { issues });
}
