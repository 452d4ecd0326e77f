/**
 * Every validation message is plain words naming its field (`title is required`, `limit must be an integer from 1
 * to 100 (got "500")`), never the schema library's wording: every operation of the route table is sent, for each
 * field of its path, query and body, a request missing it (where it is required) and one with a wrong-typed value.
 */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import type { RouteDef } from "../../src/http/route.js";
import type { Harness } from "../helpers/harness.js";
import { makeHarness } from "../helpers/harness.js";
import { API_ROUTES, codedBody, credentialFor, freshAddress, label, realParams } from "../helpers/http.js";

/** valibot's wording, which no message may carry. */
const LIBRARY_WORDING = [
  /Invalid (key|type|length|value|format|integer|email|timestamp)\b/,
  /Expected .* but received/,
  /\bExpected\b/,
  /\breceived (undefined|Object|Array)\b/,
  /unworded/,
];

type Entries = Record<string, v.GenericSchema>;
type Wrapped = v.GenericSchema & { wrapped?: v.GenericSchema; entries?: Entries; options?: unknown[] };

/** A schema's entries when it is an object schema (also within a pipe, which keeps its first schema's entries). */
function entriesOf(schema: v.GenericSchema | undefined): Entries {
  return ((schema as Wrapped | undefined)?.entries ?? {}) as Entries;
}

/** The schema inside optional, nullable and friends. */
function unwrap(schema: v.GenericSchema): v.GenericSchema {
  const s = schema as Wrapped;
  return s.wrapped === undefined ? schema : unwrap(s.wrapped);
}

const OPTIONAL = new Set(["optional", "exact_optional", "nullish", "undefinedable"]);

/** A value of the wrong JSON type for a body field: a number for a string, a string for anything else. */
function wrongBodyValue(schema: v.GenericSchema): unknown {
  const inner = unwrap(schema) as Wrapped;
  if (inner.type === "unknown" || inner.type === "any") return undefined;
  const stringy =
    inner.type === "string" ||
    (inner.type === "picklist" && typeof inner.options?.[0] === "string") ||
    (inner.type === "literal" && typeof (inner as { literal?: unknown }).literal === "string");
  return stringy ? 12345 : "wrong";
}

/** A query or path value no rule of this server takes: not an integer, a date, an option or an id. */
const WRONG_STRING = "wrong value";

/** What a message must be: no library wording, and (when it is about a field) the field's name in it. */
function expectPlain(message: string, field: string | undefined, context: string) {
  for (const pattern of LIBRARY_WORDING) expect(message, context).not.toMatch(pattern);
  expect(message.length, context).toBeGreaterThan(0);
  if (field !== undefined) expect(message, context).toContain(field);
}

interface Issue {
  path: string;
  message: string;
}

/** The 400's issues after checking every message, and the top-level one, is in plain words. */
function issuesOf(res: { status: number; body: unknown }, context: string): Issue[] {
  const body = codedBody(res.body);
  expect(res.status, `${context}: ${JSON.stringify(body)}`).toBe(400);
  expect(body.details.error_code, context).toBe("validation_failed");
  expectPlain(body.message, undefined, `${context}: message`);
  const issues = body.details.issues as Issue[];
  for (const issue of issues) {
    const last = issue.path.split(".").at(-1) ?? "";
    // A field's issue names it; one of the whole part (`body`) says what the part must be.
    expectPlain(issue.message, /^\d+$/.test(last) ? undefined : last, `${context}: ${issue.path}`);
  }
  return issues;
}

/**
 * The route's path with values its params schema takes (account A's records where they exist, else ids of records
 * that need not exist: the input is refused before any is looked up), so that the body and query are what is judged.
 */
function validPath(h: Harness, def: RouteDef): string {
  const entries = entriesOf(def.params);
  const real = realParams(h);
  return def.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const own = name === "id" && def.path.startsWith("/api/v1/api-keys/") ? real.keyId : real[name];
    const candidates = [own, "1", "lj_1", "vp_1"].filter((c) => c !== undefined);
    const schema = entries[name];
    return candidates.find((c) => schema === undefined || v.safeParse(schema, c).success) ?? "1";
  });
}

/** The first example body of the route, or `{}`: a body the other fields of which pass. */
function baseBody(def: RouteDef): Record<string, unknown> {
  const example = Object.values(def.bodyExamples ?? {})[0];
  return example !== null && typeof example === "object" && !Array.isArray(example)
    ? { ...(example as Record<string, unknown>) }
    : {};
}

const walked = API_ROUTES.filter((r) => r.body || r.query || r.params);

describe("every validation message names its field in plain words", () => {
  it.each(walked.map((def) => ({ name: label(def), def })))("$name", async ({ def }) => {
    const h = makeHarness();
    const auth = await credentialFor(h, def);
    const path = validPath(h, def);
    const send = (url: string, body?: unknown) =>
      h.send(def.method, url, {
        auth,
        ...(body === undefined ? {} : { body }),
        remoteAddress: freshAddress(),
      });
    const hasBody = def.body !== undefined && def.method !== "GET" && def.method !== "DELETE";
    const base = hasBody ? baseBody(def) : undefined;

    for (const [field, schema] of Object.entries(entriesOf(def.body))) {
      if (!hasBody) break;
      if (!OPTIONAL.has(schema.type)) {
        const { [field]: _, ...missing } = base ?? {};
        const issues = issuesOf(await send(path, missing), `missing body.${field}`);
        const own = issues.find((i) => i.path === `body.${field}`);
        expect(own?.message, `missing body.${field}: ${JSON.stringify(issues)}`).toBe(`${field} is required`);
      }
      const wrong = wrongBodyValue(schema);
      if (wrong === undefined) continue;
      const res = await send(path, { ...base, [field]: wrong });
      const issues = issuesOf(res, `wrong-typed body.${field}`);
      const own = issues.find((i) => i.path === `body.${field}` || i.path.startsWith(`body.${field}.`));
      expect(own, `wrong-typed body.${field}: ${JSON.stringify(issues)}`).toBeDefined();
      expect(own?.message.startsWith(field), JSON.stringify(own)).toBe(true);
    }
    // A body that is no object at all is refused for the whole, in the same words.
    if (hasBody) {
      const issues = issuesOf(await send(path, 5), "a number as the body");
      expect(issues[0].path).toBe("body");
    }

    for (const [field, schema] of Object.entries(entriesOf(def.query))) {
      const url = `${path}${path.includes("?") ? "&" : "?"}${field}=${encodeURIComponent(WRONG_STRING)}`;
      const res = await send(url, base);
      // A free-text parameter (a filter, a cursor judged by the list) may take any string.
      if (res.status !== 400 || codedBody(res.body).details.error_code !== "validation_failed") continue;
      const own = issuesOf(res, `query.${field}`).find((i) => i.path === `query.${field}`);
      if (own === undefined) continue;
      expect(own.message.startsWith(field), JSON.stringify(own)).toBe(true);
      if (unwrap(schema).type === "picklist")
        expect(own.message, field).toMatch(/must be one of .* \(got "wrong value"\)$/);
    }

    for (const param of Object.keys(entriesOf(def.params))) {
      const url = validPath(h, { ...def, path: def.path.replace(`{${param}}`, encodeURIComponent(WRONG_STRING)) });
      const res = await send(url, base);
      if (res.status !== 400) continue;
      const own = issuesOf(res, `path.${param}`).find((i) => i.path === `path.${param}`);
      expect(own?.message.startsWith(param), JSON.stringify(own)).toBe(true);
    }
  });
});

describe("the messages a client meets most, word for word", () => {
  it.each([
    ["POST", "/api/v1/memories", { kind: "voice", title: "t" }, "body.content", "content is required"],
    [
      "POST",
      "/api/v1/memories",
      { kind: "voice", title: 5, content: "c" },
      "body.title",
      "title must be a string (got a number)",
    ],
    [
      "POST",
      "/api/v1/contents",
      { title: "x".repeat(301) },
      "body.title",
      "title must be at most 300 characters (got 301)",
    ],
    [
      "POST",
      "/api/v1/conversions",
      { content_id: 1, target_format: "thread" },
      "body.target_format",
      'target_format must be one of html, markdown, plain_text, social_thread, email (got "thread")',
    ],
    [
      "GET",
      "/api/v1/templates?limit=500",
      undefined,
      "query.limit",
      'limit must be an integer from 1 to 100 (got "500")',
    ],
    [
      "GET",
      "/api/v1/contents?planned_from=2030-13-01",
      undefined,
      "query.planned_from",
      'planned_from must be a date YYYY-MM-DD (got "2030-13-01")',
    ],
    ["POST", "/api/v1/memories", [], "body", "body must be a JSON object (got an array)"],
  ] as const)("%s %s → %s: %s", async (method, url, body, path, message) => {
    const h = makeHarness();
    const res = await h.send(method, url, { auth: h.key({ workspaceId: h.a.ws1 }), body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.details.issues).toEqual([{ path, message }]);
    expect(res.body.message).toBe(message);
  });
});
