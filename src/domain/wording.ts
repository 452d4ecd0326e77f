/**
 * How a value a caller sent is shown in a message (`got "thread"`, `got an object`), for the schemas' issues
 * (http/messages.ts) and the domain's own refusals alike (test/http/messages.test.ts).
 */
import { sliceWhole } from "../runtime/chars.js";

/** The longest quoted input a message shows, in characters: an error body never echoes a huge input back. */
const MAX_SHOWN = 60;

/** How a value is shown after "got": a string quoted (cut when long), a number or boolean as written. */
export function shown(value: unknown): string {
  if (typeof value === "string") {
    const cut = value.length > MAX_SHOWN ? `${sliceWhole(value, MAX_SHOWN - 1)}…` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return kindOf(value);
}

/** What sort of JSON value a value is, in words: `a string`, `a number`, `an array`, `null`. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return "a boolean";
  return `a ${typeof value}`;
}

/** The message of a value outside a set the server decides (the engines it offers): `model must be one of a, b (got "c")`. */
export function oneOf(field: string, options: readonly string[], got: unknown): string {
  return `${field} must be one of ${options.join(", ")} (got ${shown(got)})`;
}
