/**
 * The description is exactly as strict as the server: for every operation of the served description, fast-check
 * generates requests the description calls valid (path, query and JSON body, each checked with ajv against the
 * description before it is sent, so that the generator cannot drift from it), sends them with credentials that
 * reach the operation (a read+write key; an admin's web session for session-only and admin operations), and finds
 * none refused as invalid input (400 validation_failed; for POST /mcp a JSON-RPC Invalid Request). The refusals that
 * depend on stored state, or on what no JSON Schema can say, are listed in EXCEPTIONS with their reason.
 *
 * VALID_RUNS (else FUZZ_RUNS) sets the runs per operation (default 24); VALID_OP=<operationId> runs one operation;
 * a failure prints its seed: replay with VALID_SEED=<seed>. VALID_DEBUG=1 prints each request with its answer.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/routes/index.js";
import { type Answer, answerOf, makeHarness } from "../helpers/harness.js";
import { credentialFor, freshAddress } from "../helpers/http.js";
import { arbitraryOf, deref, type JsonSchema, type Seeds } from "./valid-values.js";

const RUNS = Number(process.env.VALID_RUNS ?? process.env.FUZZ_RUNS ?? 24);
const ONLY = process.env.VALID_OP;
/** Time for one operation's runs: an image of up to 2048 × 2048 px takes a while to render. */
const TIMEOUT_MS = Math.max(60_000, RUNS * 2_000);
const SEED = process.env.VALID_SEED === undefined ? undefined : Number(process.env.VALID_SEED);

/** One refusal the description cannot foresee: where, and why. */
interface Exception {
  /** The operation, or "*" for every operation that has the path. */
  op: string;
  /** The issue's path (`query.cursor`, `body.email`). */
  path: string;
  /** What the issue's message says, when the path alone would excuse more than the reason covers. */
  message?: RegExp;
  reason: string;
}

/** The refusals that depend on stored state, or on a rule beyond what a JSON Schema can say. */
const EXCEPTIONS: Exception[] = [
  {
    op: "*",
    path: "path",
    message: /at most \d+ characters \(got \d+\)/,
    reason:
      "A path parameter is measured as the URL carries it, percent-encoded: a character outside ASCII counts as its " +
      "%XX bytes (every id the server gives out is ASCII).",
  },
  {
    op: "listContents",
    path: "query.planned_from",
    message: /on or before planned_to/,
    reason: "planned_from after planned_to: an order between two parameters, which a JSON Schema cannot state.",
  },
  {
    op: "getUsage",
    path: "query.from",
    message: /on or before to|span at most/,
    reason: "from after to, or a range of more days than allowed: an order or distance between two parameters.",
  },
  {
    op: "adminUpdateAccount",
    path: "body.id",
    reason: "A record's field written back: accepted only as the stored account has it.",
  },
  {
    op: "adminUpdateAccount",
    path: "body.name",
    reason: "A record's field written back: accepted only as the stored account has it.",
  },
  {
    op: "*",
    path: "query.cursor",
    reason: "A cursor is opaque: only one a list gave out is taken; any other string is refused.",
  },
  {
    op: "renameApiKey",
    path: "body.scopes",
    reason: "Fixed at creation: accepted only as the stored key has them.",
  },
  {
    op: "renameApiKey",
    path: "body.workspace_id",
    reason: "Fixed at creation: accepted only as the stored key has it.",
  },
  {
    op: "createUser",
    path: "body.email",
    message: /exists/,
    reason: "An email is one user's: one that is stored already is refused.",
  },
  {
    op: "createUser",
    path: "body.email",
    message: /bytes/,
    reason:
      "Limits in bytes of UTF-8 (and a domain label's xn-- form): a pattern counts characters, which is exact for " +
      "ASCII addresses only.",
  },
  {
    op: "scheduleContent",
    path: "body.scheduled_publish_at",
    message: /calendar day and time/,
    reason: "A leap second (:60) only at 23:59:60 UTC: which minute that is depends on the offset, beyond a pattern.",
  },
  {
    op: "createReferenceMaterial",
    path: "body.content",
    message: /no text|cannot be read|too long|characters/i,
    reason: "The material's text is what its format reads (HTML without text has none): judged after conversion.",
  },
  {
    op: "createReferenceMaterial",
    path: "body.file",
    message: /no text|cannot be read|too long|characters/i,
    reason: "The file's text is what its format reads (HTML without text has none): judged after conversion.",
  },
  {
    op: "uploadImage",
    path: "body.file",
    message: /empty/,
    reason: "An empty file part holds no image (other bytes than an image's are 415, not an input error).",
  },
  {
    op: "uploadImage",
    path: "body.data_base64",
    reason:
      "The text must decode as base64 (a data: prefix and line breaks allowed) to some bytes: judged by decoding it, " +
      "where the description says only that it is a string.",
  },
];

interface DocParam {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: JsonSchema;
}
interface DocOperation {
  operationId: string;
  parameters?: DocParam[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

/** A generated request: the values of its path and query parameters and its JSON body. */
interface Generated {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body?: unknown;
  /** The multipart/form-data fields of an upload, sent instead of the JSON body when the arbitrary chose them. */
  form?: Record<string, unknown>;
}

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);

/** The served description of a fresh harness, with its references resolved. */
async function servedDescription(): Promise<Record<string, unknown>> {
  const h = makeHarness();
  const res = await h.send("GET", "/api/v1/openapi.json");
  expect(res.status).toBe(200);
  return deref(res.body, res.body) as Record<string, unknown>;
}

/** The schema of an operation's parameters of one place, as one object schema. */
function paramsSchema(params: DocParam[], where: "path" | "query"): Record<string, unknown> {
  const mine = params.filter((p) => p.in === where);
  return {
    type: "object",
    properties: Object.fromEntries(mine.map((p) => [p.name, p.schema])),
    required: mine.filter((p) => p.required || where === "path").map((p) => p.name),
    additionalProperties: false,
  };
}

/** A path value as it is sent: `.` and `..` are not sent, as a URL reads them as moves between segments. */
const sendable = (value: unknown) => value !== "." && value !== "..";

/** The request's URL: path parameters encoded, query parameters once each (an array's values each in turn). */
function urlOf(template: string, g: Generated): string {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(g.path[name])));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(g.query)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) query.append(k, String(one));
  }
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/** A multipart/form-data body of generated fields: `file` as a file part of that text, the others as text parts. */
function formOf(fields: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields))
    if (name === "file") form.append(name, new File([String(value)], "upload.txt"));
    else form.append(name, String(value));
  return form;
}

/** The invalid-input issues of an answer: validation_failed's, or those of a JSON-RPC Invalid Request. */
function refusals(res: Answer): { path: string; message: string }[] | undefined {
  if (res.status !== 400) return undefined;
  const body = res.body ?? {};
  const coded = body.jsonrpc === "2.0" ? (body.error?.code === -32600 ? body.error.data : undefined) : body;
  if (coded?.details?.error_code !== "validation_failed") return undefined;
  return (
    (coded.details?.issues as { path: string; message: string }[] | undefined) ?? [{ path: "", message: coded.message }]
  );
}

/** Whether an issue is one of EXCEPTIONS for this operation. */
function excused(op: string, issue: { path: string; message: string }): boolean {
  return EXCEPTIONS.some(
    (e) =>
      (e.op === op || e.op === "*") &&
      (issue.path === e.path || issue.path.startsWith(`${e.path}.`)) &&
      (e.message === undefined || e.message.test(issue.message)),
  );
}

const doc = await servedDescription();
const operations = Object.entries(doc.paths as Record<string, Record<string, DocOperation>>).flatMap(
  ([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);

describe("every request the description calls valid passes the server's validation", () => {
  it("covers every operation of the description", () => {
    expect(operations.length).toBeGreaterThan(50);
  });

  it.each(
    operations.filter((o) => !ONLY || o.op.operationId === ONLY).map((o) => ({ name: `${o.method} ${o.path}`, ...o })),
  )(
    "$name",
    async ({ path, method, op }) => {
      const h = makeHarness();
      for (const id of [h.a.id, h.b.id]) h.services.store.accounts.setLimits(id, 1_000_000_000, 1_000_000_000);
      const route = ROUTES.find((r) => r.operationId === op.operationId);
      expect(route, op.operationId).toBeDefined();
      const seeds: Seeds = { integers: [1, 2, 3, h.a.id], strings: [h.a.ws1, h.a.ws2] };
      const params = op.parameters ?? [];
      const schemas = {
        path: paramsSchema(params, "path"),
        query: paramsSchema(params, "query"),
        body: op.requestBody?.content["application/json"]?.schema,
        form: op.requestBody?.content["multipart/form-data"]?.schema,
      };
      const checks = {
        path: ajv.compile(schemas.path),
        query: ajv.compile(schemas.query),
        body: schemas.body === undefined ? undefined : ajv.compile(schemas.body as object),
        form: schemas.form === undefined ? undefined : ajv.compile(schemas.form as object),
      };
      const generated: fc.Arbitrary<Generated> = fc.record(
        {
          path: arbitraryOf(schemas.path, seeds) as fc.Arbitrary<Record<string, unknown>>,
          query: arbitraryOf(schemas.query, seeds) as fc.Arbitrary<Record<string, unknown>>,
          ...(schemas.body === undefined ? {} : { body: arbitraryOf(schemas.body, seeds) }),
          ...(schemas.form === undefined
            ? {}
            : { form: arbitraryOf(schemas.form, seeds) as fc.Arbitrary<Record<string, unknown>> }),
        },
        { requiredKeys: ["path", "query"] },
      );
      // Held to the description first: a value it refuses is never sent (and counted, to see that enough are valid).
      // fc.pre, not an arbitrary's filter: a run whose values keep being refused ends with fast-check's "too many
      // skips" after maxSkipsPerRun, where a filter would retry without end and hang the suite.
      let refusedByDescription = 0;
      let sent = 0;
      const property = fc.asyncProperty(generated, async (g) => {
        const described =
          checks.path(g.path) &&
          Object.values(g.path).every(sendable) &&
          checks.query(g.query) &&
          (g.form !== undefined ? checks.form!(g.form) : checks.body === undefined || checks.body(g.body));
        if (!described) refusedByDescription += 1;
        fc.pre(described);
        const url = urlOf(path, g);
        const auth = await credentialFor(h, route!);
        const headers: Record<string, string> = g.form ? {} : { "content-type": "application/json" };
        if (auth !== undefined) headers.authorization = `Bearer ${auth}`;
        const body = g.form
          ? JSON.stringify(g.form)
          : g.body === undefined
            ? op.requestBody
              ? "{}"
              : undefined
            : JSON.stringify(g.body);
        const sentBody = g.form ? formOf(g.form) : body;
        const response = await h.app.handle(
          new Request(`http://test.local${url}`, { method, headers, body: sentBody }),
          { remoteAddress: freshAddress() },
        );
        // A streamed answer (text/event-stream) is read as text: only a JSON error body can hold a refusal.
        const res = await answerOf(response);
        const text = typeof res.body === "string" ? res.body : (JSON.stringify(res.body) ?? "");
        sent += 1;
        if (process.env.VALID_DEBUG)
          process.stderr.write(`${res.status} ${url} ${body?.slice(0, 150)} ${text.slice(0, 200)}\n`);
        const issues = (refusals(res) ?? []).filter((i) => !excused(op.operationId, i));
        expect(issues, `${method} ${url} ${body?.slice(0, 500) ?? ""} → ${text.slice(0, 500)}`).toEqual([]);
      });
      const out = await fc.check(property, { numRuns: RUNS, seed: SEED, endOnFailure: true, maxSkipsPerRun: 200 });
      if (out.failed) {
        const error = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
        throw new Error(
          `${op.operationId} failed (seed ${out.seed}; replay: VALID_OP=${op.operationId} VALID_SEED=${out.seed})\n${error}`,
        );
      }
      expect(
        sent,
        `requests sent (${refusedByDescription} generated values refused by the description)`,
      ).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );
});
