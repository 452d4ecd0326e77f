/**
 * The translator of validation issues (src/http/messages.ts), kind by kind: each valibot issue a schema of this server
 * can raise is worded as its field and what the field must be, never in valibot's words.
 */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { kindOf, oneOf, shown } from "../../src/domain/wording.js";
import { expectedWords, fieldOf } from "../../src/http/messages.js";
import { intString, maxBytes, maxChars, minChars, TextFilter } from "../../src/http/schemas.js";
import { parseBodyInput, parseInput, queryObjectOf } from "../../src/http/validate.js";

/** The issues parseInput answers for an input, as `path: message` lines. */
function refusal(schema: v.GenericSchema, input: unknown, where = "body"): string[] {
  try {
    parseInput(schema, input, where);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return ((e as ApiError).details.issues as { path: string; message: string }[]).map(
      (i) => `${i.path}: ${i.message}`,
    );
  }
  throw new Error("the input was taken");
}

/** The one message parseInput answers for `field` of an object schema given `value`. */
const one = (field: v.GenericSchema, value: unknown) => refusal(v.object({ f: field }), { f: value });

describe("valibot's schema issues", () => {
  it("a missing field is required, in any object schema, nested too", () => {
    expect(refusal(v.object({ title: v.string() }), {})).toEqual(["body.title: title is required"]);
    expect(refusal(v.strictObject({ title: v.string() }), {})).toEqual(["body.title: title is required"]);
    expect(refusal(v.looseObject({ title: v.string() }), {})).toEqual(["body.title: title is required"]);
    const nested = v.object({ items: v.array(v.object({ text: v.string() })) });
    expect(refusal(nested, { items: [{ text: "a" }, {}] })).toEqual(["body.items.1.text: items[1].text is required"]);
  });

  it("a field a strict schema does not know is named", () => {
    expect(refusal(v.strictObject({}), { extra: 1 })).toEqual(["body.extra: extra is not a field this request takes"]);
  });

  it("a wrong type says what the field must be and what sort of value came", () => {
    expect(one(v.string(), 5)).toEqual(["body.f: f must be a string (got a number)"]);
    expect(one(v.number(), "5")).toEqual(["body.f: f must be a number (got a string)"]);
    expect(one(v.boolean(), null)).toEqual(["body.f: f must be true or false (got null)"]);
    expect(one(v.array(v.string()), {})).toEqual(["body.f: f must be an array (got an object)"]);
    expect(one(v.object({ a: v.optional(v.string()) }), 5)).toEqual(["body.f: f must be an object (got a number)"]);
    expect(one(v.nullable(v.string()), [])).toEqual(["body.f: f must be a string (got an array)"]);
    expect(one(v.union([v.string(), v.number()]), true)).toEqual([
      "body.f: f must be a string or a number (got a boolean)",
    ]);
  });

  it("a value outside a set lists the set and quotes the value", () => {
    const format = v.picklist(["html", "markdown", "plain_text", "social_thread", "email"]);
    expect(refusal(v.object({ target_format: format }), { target_format: "thread" })).toEqual([
      'body.target_format: target_format must be one of html, markdown, plain_text, social_thread, email (got "thread")',
    ]);
    expect(one(v.literal("2.0"), "1.0")).toEqual(['body.f: f must be "2.0" (got "1.0")']);
    const variant = v.variant("kind", [v.object({ kind: v.literal("a") }), v.object({ kind: v.literal("b") })]);
    expect(one(variant, { kind: "c" })).toEqual(['body.f.kind: f.kind must be one of a, b (got "c")']);
  });

  it("the whole part is named by the part itself", () => {
    expect(refusal(v.string(), 5, "query")).toEqual(["query: query must be a string (got a number)"]);
    expect(refusal(v.array(v.number()), ["x"])).toEqual(["body.0: body[0] must be a number (got a string)"]);
  });
});

describe("valibot's validation issues", () => {
  it("lengths count characters of a string and items of a list", () => {
    expect(one(v.pipe(v.string(), maxChars(300)), "x".repeat(301))).toEqual([
      "body.f: f must be at most 300 characters (got 301)",
    ]);
    expect(one(v.pipe(v.string(), minChars(8)), "😀😀😀😀")).toEqual([
      "body.f: f must be at least 8 characters (got 4)",
    ]);
    expect(one(v.pipe(v.string(), v.minLength(1)), "")).toEqual(["body.f: f must not be empty"]);
    expect(one(v.pipe(v.string(), v.nonEmpty()), "")).toEqual(["body.f: f must not be empty"]);
    expect(one(v.pipe(v.string(), v.length(2)), "abc")).toEqual(["body.f: f must be exactly 2 characters (got 3)"]);
    expect(one(v.pipe(v.array(v.string()), v.maxLength(2)), ["a", "b", "c"])).toEqual([
      "body.f: f must have at most 2 items (got 3)",
    ]);
    expect(one(v.pipe(v.array(v.string()), v.minLength(1)), [])).toEqual([
      "body.f: f must have at least 1 item (got 0)",
    ]);
  });

  it("bounds, integers and formats quote the value", () => {
    expect(one(v.pipe(v.number(), v.minValue(1)), 0)).toEqual(["body.f: f must be at least 1 (got 0)"]);
    expect(one(v.pipe(v.number(), v.maxValue(10)), 11)).toEqual(["body.f: f must be at most 10 (got 11)"]);
    expect(one(v.pipe(v.number(), v.integer()), 1.5)).toEqual(["body.f: f must be an integer (got 1.5)"]);
    expect(one(v.pipe(v.string(), v.isoTimestamp()), "soon")).toEqual([
      'body.f: f must be a timestamp (ISO 8601, such as 2030-01-31T09:00:00.000Z) (got "soon")',
    ]);
    expect(one(v.pipe(v.string(), v.startsWith("ws_")), "x")).toEqual(['body.f: f must start with "ws_" (got "x")']);
    expect(
      one(
        v.pipe(
          v.string(),
          v.check(() => false),
        ),
        "x",
      ),
    ).toEqual(['body.f: f is not valid (got "x")']);
  });

  it("an integer carried as a string is judged, and quoted, as sent", () => {
    const q = v.object({ limit: intString(1, 100), id: intString() });
    expect(refusal(q, { limit: "500", id: "0" }, "query")).toEqual([
      'query.limit: limit must be an integer from 1 to 100 (got "500")',
      'query.id: id must be an integer of at least 1 (got "0")',
    ]);
    expect(v.parse(q, { limit: "5", id: "7" })).toEqual({ limit: 5, id: 7 });
  });

  it("a long value is cut where it is quoted", () => {
    const [message] = one(v.picklist(["a"]), "x".repeat(10_000));
    expect(message.length).toBeLessThan(120);
    expect(message).toMatch(/\(got "x+…"\)$/);
  });
});

describe("a schema's own messages", () => {
  it("a phrase follows the field's name, and the input or the count follows the phrase", () => {
    const day = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD"));
    expect(refusal(v.object({ planned_from: day }), { planned_from: "2030-13" }, "query")).toEqual([
      'query.planned_from: planned_from must be a date YYYY-MM-DD (got "2030-13")',
    ]);
    expect(one(v.pipe(v.string(), maxBytes(4)), "éé€")).toEqual(["body.f: f must be at most 4 bytes of UTF-8 (got 7)"]);
    expect(
      one(
        v.pipe(
          v.string(),
          v.check(() => false, "must hold x (got nothing useful)"),
        ),
        "y",
      ),
    ).toEqual(["body.f: f must hold x (got nothing useful)"]);
    expect(one(TextFilter(10, "A filter."), "  ")).toEqual([
      "body.f: f must not be empty or blank: leave the parameter out for no filter",
    ]);
  });

  it("a sentence is shown as written, and a whole object is not quoted", () => {
    const body = v.pipe(
      v.object({ a: v.optional(v.string()), b: v.optional(v.string()) }),
      v.check((x) => (x.a === undefined) !== (x.b === undefined), "Send exactly one of a or b."),
    );
    expect(refusal(body, {})).toEqual(["body: Send exactly one of a or b."]);
    expect(one(v.literal("2.0", '"jsonrpc" must be "2.0"'), "1")).toEqual(['body.f: "jsonrpc" must be "2.0"']);
  });
});

describe("the error's message and the other validation refusals", () => {
  it("the message is the first issue's, with how many more there are", () => {
    const schema = v.object({ a: v.string(), b: v.string(), c: v.string() });
    expect(() => parseInput(schema, { a: "x" }, "body")).toThrow(/^b is required \(and 1 more: see details.issues\)$/);
    expect(() => parseInput(schema, { a: "x", b: "y" }, "body")).toThrow(/^c is required$/);
  });

  it("a body that is no object, and a repeated query parameter, are said in the same words", () => {
    expect(() => parseBodyInput(v.object({}), [])).toThrow(/^body must be a JSON object \(got an array\)$/);
    expect(() => parseBodyInput(v.object({}), null)).toThrow(/^body must be a JSON object \(got null\)$/);
    const query = v.object({ limit: v.optional(v.string()) });
    expect(() => queryObjectOf(new URLSearchParams("limit=1&limit=2&limit=3"), query)).toThrow(
      /^limit must be sent once \(got 3 values\)$/,
    );
  });
});

describe("the words", () => {
  it("expected, kinds, shown values, fields and server-set options", () => {
    expect(expectedWords('("a" | "b" | "c")')).toBe("one of a, b, c");
    expect(expectedWords("(string | number | null)")).toBe("a string, a number or null");
    expect(expectedWords("Object")).toBe("an object");
    expect(kindOf(undefined)).toBe("nothing");
    expect(kindOf(1n)).toBe("a bigint");
    expect(shown('say "hi"')).toBe('"say \\"hi\\""');
    expect(shown(false)).toBe("false");
    expect(shown({})).toBe("an object");
    expect(fieldOf("body", ["items", 0, "text"])).toBe("items[0].text");
    expect(fieldOf("body", [2, "id"])).toBe("body[2].id");
    expect(fieldOf("path", [])).toBe("path");
    expect(oneOf("model", ["builtin", "plain"], "gpt")).toBe('model must be one of builtin, plain (got "gpt")');
  });
});
