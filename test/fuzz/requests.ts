/**
 * fast-check arbitraries of hostile requests for one OpenAPI operation: path ids from a hostile set, hostile query
 * strings, bodies built from the operation's JSON schema and then mutated (wrong types, missing and extra fields,
 * huge strings, deep nesting, raw numbers such as 1e309), invalid UTF-8, wrong or absent Content-Type, multipart
 * bodies, and several kinds of credentials.
 */
import fc from "fast-check";

/** A JSON schema as the OpenAPI document has it (the subset the generator reads). */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
}

/** One operation of the document. */
export interface Operation {
  id: string;
  method: string;
  path: string;
  params: { name: string; in: "path" | "query" | "header"; schema: Schema }[];
  json?: Schema;
  multipart?: Schema;
}

export type Credential = "primary" | "none" | "read" | "bound" | "bogus-key" | "bogus-token";

/** A generated request; printed in failure reports without its (possibly huge) body. */
export interface FuzzRequest {
  method: string;
  url: string;
  credential: Credential;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** How the body was made, for the report. */
  bodyKind: string;
  [fc.toStringMethod]: () => string;
}

/** Real values of the harness's records, so that some requests reach the handlers. */
export interface Known {
  ids: string[];
  workspaces: string[];
}

const encoder = new TextEncoder();
const utf8 = (s: string) => encoder.encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
};

/** Strings that have broken parsers before: numbers out of range, traversal, NUL, odd unicode, secret shapes. */
export const HOSTILE_STRINGS = [
  "",
  " ",
  "-1",
  "0",
  "00",
  "1",
  "2",
  "1.5",
  "1e309",
  "-1e309",
  "1e-400",
  "NaN",
  "Infinity",
  "-0",
  "0x10",
  "9007199254740993",
  "99999999999999999999999999",
  " 1",
  "1 ",
  "true",
  "null",
  "undefined",
  "[]",
  "{}",
  "../",
  "../../etc/passwd",
  "..%2F..%2F",
  "%2e%2e",
  "%00",
  "\u0000",
  "%FF",
  "%C0%AF",
  "%",
  "a%2Fb",
  "\\",
  "'; DROP TABLE contents; --",
  "<script>alert(1)</script>",
  "😀",
  "１２３",
  "\u202e",
  "\ud800",
  "ws_",
  "ws_../../x",
  "key_ZZZZ",
  "lj_missing",
  "vp_missing",
  "svc_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
  "2026-02-30",
  "2026-01-15T25:00:00Z",
  "9999-12-31",
  "x".repeat(5_000),
  "9".repeat(400),
];

const hostileString = (known: Known) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: fc.constantFrom(...known.ids, ...known.workspaces) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
  );

/** Percent-encodes; a lone surrogate becomes the bytes of an encoded surrogate (invalid UTF-8 once decoded). */
function encodeSegment(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((c) => (/[\ud800-\udfff]/.test(c) ? "%ED%A0%80" : encodeURIComponent(c))).join("");
  }
}

/** A path segment: a hostile or real value, sent encoded or as is. */
const segment = (known: Known) =>
  fc.tuple(hostileString(known), fc.boolean()).map(([s, raw]) => (raw ? s : encodeSegment(s)));

/** Any JSON value, with hostile strings and numbers mixed in. */
const hostileJson = (known: Known): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 2, arbitrary: hostileString(known) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        null,
        true,
        false,
        0,
        -1,
        1.5,
        2 ** 53 + 1,
        -(2 ** 31),
        Number.MAX_VALUE,
        Number.MIN_VALUE,
        [],
        {},
        [1, 2, 3],
        { a: { b: { c: [] } } },
        ["x"],
      ),
    },
  );

function bounded(n: number | undefined, fallback: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n ?? fallback));
}

/** A value that matches a schema more or less (valid-ish: the mutations below break it further). */
export function schemaValue(schema: Schema | undefined, known: Known, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileJson(known);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => schemaValue(s, known, depth + 1)));
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((t) => schemaValue({ ...schema, type: t }, known, depth + 1)));
  switch (schema.type) {
    case "object": {
      const props = schema.properties ?? {};
      if (Object.keys(props).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), hostileJson(known));
      const entries = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, schemaValue(s, known, depth + 1)]));
      return fc.record(entries, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    case "array":
      return fc.array(schemaValue(schema.items, known, depth + 1), {
        maxLength: bounded(schema.maxItems, 3, 0, 4),
      });
    case "string": {
      const min = schema.minLength ?? 0;
      const max = bounded(schema.maxLength, 40, min, 60);
      return fc.oneof(
        { weight: 4, arbitrary: fc.string({ minLength: Math.min(min, max), maxLength: max }) },
        { weight: 2, arbitrary: fc.constantFrom(...known.workspaces, "2026-03-01", "2026-03-01T10:00:00Z", "text") },
        { weight: 1, arbitrary: hostileString(known) },
      );
    }
    case "integer": {
      const lo = Math.max(schema.minimum ?? -(2 ** 31), -(2 ** 31));
      const hi = Math.min(schema.maximum ?? 2 ** 31, 2 ** 31);
      return fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(1, 2, 3) },
        { weight: 2, arbitrary: fc.integer({ min: Math.min(lo, hi), max: Math.max(lo, hi) }) },
      );
    }
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return hostileJson(known);
  }
}

/** Raw JSON number texts that JSON.stringify cannot produce. */
const RAW_NUMBERS = ["1e309", "-1e309", "1e-400", "-0", "1.0", "123456789012345678901234567890", "0.1e1", "1E2"];

interface Mutation {
  drop: number[];
  set: [string, unknown][];
  rawNumber?: [string, string];
  huge?: [string, number];
  deep?: [string, number];
}

const mutation = (known: Known, keys: string[]): fc.Arbitrary<Mutation> =>
  fc.oneof(
    // Some bodies go as generated (valid-ish), so that odd but valid values reach the handlers too.
    { weight: 1, arbitrary: fc.constant<Mutation>({ drop: [], set: [] }) },
    { weight: 3, arbitrary: breaking(known, keys) },
  );

const breaking = (known: Known, keys: string[]): fc.Arbitrary<Mutation> => {
  const key = fc.oneof(
    { weight: 3, arbitrary: keys.length ? fc.constantFrom(...keys) : fc.constant("name") },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "workspace_id", "extra") },
  );
  return fc.record(
    {
      drop: fc.array(fc.nat(), { maxLength: 2 }),
      set: fc.array(fc.tuple(key, hostileJson(known)), { maxLength: 3 }),
      rawNumber: fc.tuple(key, fc.constantFrom(...RAW_NUMBERS)),
      huge: fc.tuple(key, fc.constantFrom(100_000, 600_000, 1_048_000, 1_048_600, 2_100_000)),
      deep: fc.tuple(key, fc.constantFrom(64, 1_000, 10_000, 100_000)),
    },
    { requiredKeys: ["drop", "set"] },
  );
};

/** Applies a mutation and serialises; raw numbers, huge strings and deep nesting are spliced into the text. */
function mutate(value: unknown, m: Mutation): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(value) ?? "null";
  const obj: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const present = Object.keys(obj);
  for (const i of m.drop) if (present.length) delete obj[present[i % present.length]];
  for (const [k, v] of m.set)
    Object.defineProperty(obj, k, { value: v, enumerable: true, configurable: true, writable: true });
  const splices: [string, string][] = [];
  const placeholder = (k: string, text: string) => {
    const mark = `@@splice${splices.length}@@`;
    Object.defineProperty(obj, k, { value: mark, enumerable: true, configurable: true, writable: true });
    splices.push([JSON.stringify(mark), text]);
  };
  if (m.rawNumber) placeholder(m.rawNumber[0], m.rawNumber[1]);
  if (m.huge) placeholder(m.huge[0], JSON.stringify("x".repeat(m.huge[1])));
  if (m.deep) placeholder(m.deep[0], "[".repeat(m.deep[1]) + "]".repeat(m.deep[1]));
  let text = JSON.stringify(obj);
  for (const [mark, raw] of splices) text = text.replace(mark, () => raw);
  return text;
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/vnd.example+json",
  "application/json; charset=latin1",
  "application/json, text/html",
  "text/plain",
  "text/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=fuzz",
  "application/octet-stream",
  ";;;",
  "",
];

interface Body {
  kind: string;
  bytes?: Uint8Array;
  contentType?: string;
}

const jsonType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

function multipart(known: Known): fc.Arbitrary<Body> {
  const part = fc.record({
    name: fc.oneof(fc.constantFrom("file", "title", "format", "content", "workspace_id"), fc.string({ maxLength: 10 })),
    filename: fc.option(
      fc.oneof(
        fc.constantFrom("a.txt", "a.md", "x.png", "../../etc/passwd", "", "a\u0000.txt"),
        fc.string({ maxLength: 20 }),
      ),
    ),
    type: fc.option(fc.constantFrom("text/plain", "image/png", "text/html", "application/octet-stream", "x/y")),
    data: fc.oneof(
      hostileString(known).map(utf8),
      fc.uint8Array({ maxLength: 300 }),
      fc.constantFrom(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), Uint8Array.of(0xff, 0xfe, 0x00)),
    ),
  });
  return fc
    .record({
      parts: fc.array(part, { maxLength: 4 }),
      boundary: fc.constantFrom("fuzzboundary", "x", "--", "a".repeat(100)),
      declared: fc.constantFrom("same", "other", "missing"),
      truncate: fc.boolean(),
    })
    .map(({ parts, boundary, declared, truncate }) => {
      const chunks: Uint8Array[] = [];
      for (const p of parts) {
        const disposition = `form-data; name="${p.name.replace(/"/g, "")}"${p.filename === null ? "" : `; filename="${p.filename.replace(/"/g, "")}"`}`;
        chunks.push(
          utf8(
            `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n`,
          ),
          p.data,
          utf8("\r\n"),
        );
      }
      if (!truncate) chunks.push(utf8(`--${boundary}--\r\n`));
      const header =
        declared === "missing"
          ? "multipart/form-data"
          : `multipart/form-data; boundary=${declared === "same" ? boundary : "elsewhere"}`;
      return {
        kind: `multipart(${parts.length} parts${truncate ? ", truncated" : ""})`,
        bytes: concat(...chunks),
        contentType: header,
      };
    });
}

/** The bodies of one operation: schema-based and mutated, wrong at the top, raw bytes, deep, multipart, none. */
function bodies(op: Operation, known: Known): fc.Arbitrary<Body> {
  const schema = op.json;
  const keys = Object.keys(schema?.properties ?? {});
  const mutated = fc.tuple(schemaValue(schema, known), mutation(known, keys), jsonType).map(([value, m, type]) => ({
    kind: `json(mutated ${summary(m)})`,
    bytes: utf8(mutate(value, m)),
    contentType: type,
  }));
  const wrongTop = fc
    .tuple(
      fc.oneof(fc.constantFrom("null", "[]", "[{}]", "42", '"text"', "true", "{}", "", " ", "\ufeff{}"), fc.json()),
      jsonType,
    )
    .map(([text, type]) => ({ kind: "json(top-level)", bytes: utf8(text), contentType: type }));
  const rawBytes = fc
    .tuple(
      fc.constantFrom('{"name":"', '{"', "", '["'),
      fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.constantFrom(
          Uint8Array.of(0xff),
          Uint8Array.of(0xc0, 0xaf),
          Uint8Array.of(0xed, 0xa0, 0x80),
          Uint8Array.of(0xe2, 0x82),
          Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
          Uint8Array.of(0xfe, 0xff, 0x00, 0x7b),
        ),
      ),
      fc.constantFrom('"}', "}", "", '"]'),
      jsonType,
    )
    .map(([a, b, c, type]) => ({
      kind: "bytes(invalid utf-8 or random)",
      bytes: concat(utf8(a), b, utf8(c)),
      contentType: type,
    }));
  const deep = fc
    .tuple(fc.constantFrom(100, 5_000, 50_000, 300_000), fc.constantFrom("[", '{"a":'), jsonType)
    .map(([depth, open, type]) => ({
      kind: `json(depth ${depth})`,
      bytes: utf8(open === "[" ? "[".repeat(depth) + "]".repeat(depth) : `${open.repeat(depth)}1${"}".repeat(depth)}`),
      contentType: type,
    }));
  const choices: fc.WeightedArbitrary<Body>[] = [
    { weight: 10, arbitrary: mutated },
    { weight: 2, arbitrary: wrongTop },
    { weight: 2, arbitrary: rawBytes },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: fc.constant({ kind: "none" }) },
  ];
  if (op.multipart) choices.push({ weight: 4, arbitrary: multipart(known) });
  return fc.oneof(...choices);
}

function summary(m: Mutation): string {
  const parts: string[] = [];
  if (m.drop.length) parts.push(`drop ${m.drop.length}`);
  if (m.set.length) parts.push(`set ${m.set.map(([k]) => JSON.stringify(k)).join(",")}`);
  if (m.rawNumber) parts.push(`${m.rawNumber[0]}=${m.rawNumber[1]}`);
  if (m.huge) parts.push(`${m.huge[0]}: ${m.huge[1]} chars`);
  if (m.deep) parts.push(`${m.deep[0]}: depth ${m.deep[1]}`);
  return parts.join("; ") || "none";
}

/** Header values must be ByteStrings without controls: printable Latin-1. */
const headerValue = fc.oneof(
  fc
    .string({ unit: "binary-ascii", maxLength: 60 })
    .map((s) => [...s].filter((c) => c >= " " && c !== "\x7f").join("")),
  fc.constantFrom("", "x".repeat(10_000), "café", "../", "1e309"),
);

/** Requests for an operation. */
export function requestsFor(op: Operation, known: Known): fc.Arbitrary<FuzzRequest> {
  const pathNames = op.params.filter((p) => p.in === "path").map((p) => p.name);
  const queryNames = op.params.filter((p) => p.in === "query").map((p) => p.name);
  const query = fc.array(
    fc.tuple(
      fc.oneof(
        { weight: 3, arbitrary: queryNames.length ? fc.constantFrom(...queryNames) : fc.constant("limit") },
        { weight: 1, arbitrary: fc.constantFrom("workspace_id", "limit", "cursor", "__proto__", "") },
        { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
      ),
      hostileString(known),
    ),
    { maxLength: 4 },
  );
  const rawQuery = fc.constantFrom("", "", "", "&&&=", "%", "a=%E0%A4%A", "limit=1&limit=2", "=x", "cursor=%00");
  const canHaveBody = op.method !== "GET" && op.method !== "HEAD";
  return fc
    .record({
      segments: fc.tuple(...pathNames.map(() => segment(known))),
      query,
      rawQuery,
      credential: fc.constantFrom<Credential>(
        "primary",
        "primary",
        "primary",
        "primary",
        "none",
        "read",
        "bound",
        "bogus-key",
        "bogus-token",
      ),
      idempotency: fc.option(headerValue, { freq: 3 }),
      extraHeader: fc.option(
        fc.tuple(
          fc.constantFrom("accept", "x-forwarded-for", "content-length", "transfer-encoding", "x-api-key"),
          headerValue,
        ),
        { freq: 3 },
      ),
      body: canHaveBody ? bodies(op, known) : fc.constant<Body>({ kind: "none" }),
      head: fc.boolean(),
    })
    .map(({ segments, query, rawQuery, credential, idempotency, extraHeader, body, head }) => {
      let i = 0;
      const path = op.path.replace(/\{(\w+)\}/g, () => segments[i++]);
      const params = new URLSearchParams(query).toString();
      const qs = [params, rawQuery].filter(Boolean).join("&");
      const headers: Record<string, string> = {};
      if (body.contentType !== undefined) headers["content-type"] = body.contentType;
      if (idempotency !== null) headers["idempotency-key"] = idempotency;
      if (extraHeader && extraHeader[0] !== "content-length" && extraHeader[0] !== "transfer-encoding")
        headers[extraHeader[0]] = extraHeader[1];
      const method = op.method === "GET" && head ? "HEAD" : op.method;
      const url = `${path}${qs ? `?${qs}` : ""}`;
      const bytes = body.bytes;
      return {
        method,
        url,
        credential,
        headers,
        body: bytes,
        bodyKind: body.kind,
        [fc.toStringMethod]: () =>
          JSON.stringify({
            method,
            url: url.length > 300 ? `${url.slice(0, 300)}… (${url.length} chars)` : url,
            credential,
            headers: Object.fromEntries(
              Object.entries(headers).map(([k, v]) => [k, v.length > 100 ? `${v.slice(0, 100)}…` : v]),
            ),
            body: bytes
              ? `${body.kind}, ${bytes.byteLength} bytes: ${new TextDecoder().decode(bytes.subarray(0, 200))}${bytes.byteLength > 200 ? "…" : ""}`
              : "none",
          }),
      };
    });
}
