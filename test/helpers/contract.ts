/**
 * The contract check of the end-to-end tests: every response the e2e client receives is matched against the
 * OpenAPI description the executable printed (test/e2e/generated/openapi.json, written by
 * scripts/e2e-client.ts). The operation is resolved from the method and the path template; an undocumented
 * operation or status, an undocumented content type, or a JSON body that does not match the documented schema
 * is a drift between the description and the server, and fails the request that showed it.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { Middleware } from "openapi-fetch";
import { isCalendarDay } from "../../src/domain/planning.js";

export const DOCUMENT_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../e2e/generated/openapi.json");

type Method = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
const METHODS: readonly string[] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface ResponseObject {
  description?: string;
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, { schema?: unknown }>;
}
interface HeaderObject {
  required?: boolean;
  schema?: { type?: string; enum?: string[] };
}
interface OperationObject {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Partial<Record<Method, OperationObject>>>;
  components?: Record<string, unknown>;
}

/** One mismatch between a response and the description. */
export interface Drift {
  /** `METHOD /path/template` */
  operation: string;
  status: number;
  kind: "undocumented-operation" | "undocumented-status" | "content-type" | "schema" | "invalid-json" | "header";
  message: string;
}

/**
 * Drifts found by these tests and not fixed yet. Each entry lets exactly one (operation, status, kind) through,
 * and is recorded when it is met; the suite fails when an entry is no longer met, so a fixed drift must be
 * removed from this list. Keep it empty when you can.
 */
export interface KnownDrift {
  id: string;
  operation: string;
  status: number;
  kind: Drift["kind"];
  reason: string;
}
export const KNOWN_DRIFTS: readonly KnownDrift[] = [];

export class ContractError extends Error {
  constructor(readonly drift: Drift) {
    super(
      `response does not match the description: ${drift.operation} → ${drift.status} (${drift.kind}): ${drift.message}`,
    );
    this.name = "ContractError";
  }
}

/** One response that was checked. */
export interface Checked {
  operation: string;
  status: number;
  contentType: string | null;
  validated: boolean;
}

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function mediaTypeOf(contentType: string | null): string | null {
  if (!contentType) return null;
  return contentType.split(";")[0].trim().toLowerCase();
}

function isJson(mediaType: string): boolean {
  return mediaType === "application/json" || mediaType.endsWith("+json");
}

/** The documented media type a response's type matches: exact first, then `type/*`, then `*\/*`. */
function documentedMediaType(documented: string[], actual: string): string | undefined {
  const [type] = actual.split("/");
  return (
    documented.find((d) => d.toLowerCase() === actual) ??
    documented.find((d) => d.toLowerCase() === `${type}/*`) ??
    documented.find((d) => d === "*/*")
  );
}

function describeErrors(errors: ErrorObject[] | null | undefined, body: unknown): string {
  return (errors ?? [])
    .slice(0, 10)
    .map((e) => {
      const at = e.instancePath || "(body)";
      const extra =
        e.keyword === "additionalProperties"
          ? ` (${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)})`
          : e.keyword === "enum" || e.keyword === "const"
            ? ` (allowed: ${JSON.stringify(e.params)})`
            : "";
      let value: unknown = body;
      for (const seg of e.instancePath.split("/").slice(1)) {
        const key = seg.replaceAll("~1", "/").replaceAll("~0", "~");
        value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
      }
      const shown = JSON.stringify(value);
      return `${at} ${e.message}${extra}; got ${shown === undefined ? "undefined" : shown.slice(0, 200)}`;
    })
    .join("; ");
}

export class Contract {
  readonly checked: Checked[] = [];
  /** Known drifts met (by id), with what was actually seen. */
  readonly knownMet = new Map<string, Drift>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  /** Templates with their matchers, literal paths before templated ones (`/images/generate` before `/images/{id}`). */
  private readonly templates: { template: string; regex: RegExp; params: number }[];

  constructor(
    readonly document: OpenApiDocument,
    private readonly known: readonly KnownDrift[] = KNOWN_DRIFTS,
  ) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    // The description uses these formats; ajv checks none by itself. A date is a calendar day as the server reads one.
    this.ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/);
    this.ajv.addFormat("date", { validate: isCalendarDay });
    this.ajv.addFormat("email", /^[^\s@]+@[^\s@]+$/);
    this.templates = Object.keys(document.paths)
      .map((template) => {
        const params = (template.match(/\{[^}]+\}/g) ?? []).length;
        const source = template
          .split(/(\{[^}]+\})/)
          .map((part) => (/^\{[^}]+\}$/.test(part) ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
          .join("");
        return { template, regex: new RegExp(`^${source}$`), params };
      })
      .sort((a, b) => a.params - b.params);
  }

  /** Loads the document scripts/e2e-client.ts took from the executable. */
  static load(file = DOCUMENT_FILE): Contract {
    if (!existsSync(file))
      throw new Error(`${file} does not exist: \`npm run test:e2e\` writes it from the built executable first`);
    return new Contract(JSON.parse(readFileSync(file, "utf8")) as OpenApiDocument);
  }

  /** The path template a concrete path (or a template) belongs to. */
  templateOf(pathOrTemplate: string): string | undefined {
    if (this.document.paths[pathOrTemplate]) return pathOrTemplate;
    const pathname = pathOrTemplate.split("?")[0];
    return this.templates.find((t) => t.regex.test(pathname))?.template;
  }

  private operation(method: string, pathOrTemplate: string) {
    const m = method.toLowerCase();
    const template = this.templateOf(pathOrTemplate);
    const name = `${method.toUpperCase()} ${template ?? pathOrTemplate}`;
    const op = template && METHODS.includes(m) ? this.document.paths[template][m as Method] : undefined;
    return { name, template, op };
  }

  /** Raises the drift, unless it is a known one (then it is recorded). */
  private drift(d: Drift): void {
    const entry = this.known.find((k) => k.operation === d.operation && k.status === d.status && k.kind === d.kind);
    if (entry) {
      this.knownMet.set(entry.id, d);
      return;
    }
    throw new ContractError(d);
  }

  private validator(template: string, method: string, status: string, mediaType: string): ValidateFunction {
    const pointer = ["paths", template, method, "responses", status, "content", mediaType, "schema"]
      .map(escapePointer)
      .join("/");
    let validate = this.validators.get(pointer);
    if (!validate) {
      const schema = this.document.paths[template][method as Method]!.responses![status].content![mediaType].schema;
      // Components ride along so that a `#/components/...` reference in the schema resolves.
      validate = this.ajv.compile({ ...(schema as object), components: this.document.components ?? {} });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** The documented response of an operation for a status: the exact code, then `4XX`-style ranges, then `default`. */
  private responseFor(op: OperationObject, status: number): { key: string; doc: ResponseObject } | undefined {
    const responses = op.responses ?? {};
    for (const key of [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, "default"])
      if (responses[key]) return { key, doc: responses[key] };
    return undefined;
  }

  /**
   * Checks a body already parsed from JSON against the operation's schema for a status and media type
   * (used for bodies that arrive inside other responses, e.g. the `done` event of a stream).
   */
  validateJson(method: string, pathOrTemplate: string, status: number, body: unknown, mediaType = "application/json") {
    const found = this.documentedResponse(method, pathOrTemplate, status);
    if (!found) return;
    const { name, template, res } = found;
    const documented = documentedMediaType(Object.keys(res.doc.content ?? {}), mediaType);
    if (!documented)
      return this.drift({
        operation: name,
        status,
        kind: "content-type",
        message: `${mediaType} is not documented (documented: ${Object.keys(res.doc.content ?? {}).join(", ") || "no body"})`,
      });
    if (res.doc.content![documented].schema === undefined) return;
    const validate = this.validator(template, method.toLowerCase(), res.key, documented);
    if (!validate(body))
      this.drift({ operation: name, status, kind: "schema", message: describeErrors(validate.errors, body) });
  }

  /** The documented response of an operation and status; a drift (thrown or recorded) and undefined when none. */
  private documentedResponse(method: string, pathOrTemplate: string, status: number) {
    const { name, template, op } = this.operation(method, pathOrTemplate);
    if (!template || !op) {
      this.drift({ operation: name, status, kind: "undocumented-operation", message: "not in the description" });
      return undefined;
    }
    const res = this.responseFor(op, status);
    if (!res) {
      this.drift({
        operation: name,
        status,
        kind: "undocumented-status",
        message: `documented statuses: ${Object.keys(op.responses ?? {}).join(", ")}`,
      });
      return undefined;
    }
    return { name, template, res };
  }

  /** The documented headers of a response: each required one is sent, and each sent one has its schema's form. */
  private checkHeaders(operation: string, status: number, doc: ResponseObject, headers: Headers): void {
    const shared = (this.document.components?.headers ?? {}) as Record<string, HeaderObject>;
    for (const [name, entry] of Object.entries(doc.headers ?? {})) {
      const header = "$ref" in entry ? shared[entry.$ref.split("/").pop()!] : entry;
      const value = headers.get(name);
      let problem: string | undefined;
      if (value === null) problem = header?.required ? "is missing" : undefined;
      else if (header?.schema?.type === "integer" && !/^-?\d+$/.test(value)) problem = `is not an integer: ${value}`;
      else if (header?.schema?.enum && !header.schema.enum.includes(value))
        problem = `is not one of its values: ${value}`;
      if (problem) this.drift({ operation, status, kind: "header", message: `${name} ${problem}` });
    }
  }

  /** Checks one response (it is cloned before its body is read, so the caller can still consume it). */
  async check(method: string, pathOrTemplate: string, response: Response): Promise<void> {
    const { name } = this.operation(method, pathOrTemplate);
    const status = response.status;
    const mediaType = mediaTypeOf(response.headers.get("content-type"));
    const record: Checked = { operation: name, status, contentType: mediaType, validated: false };
    this.checked.push(record);
    const found = this.documentedResponse(method, pathOrTemplate, status);
    if (!found) return;
    const { template, res } = found;
    this.checkHeaders(name, status, res.doc, response.headers);
    const documentedTypes = Object.keys(res.doc.content ?? {});
    const hasBody =
      status !== 204 &&
      status !== 304 &&
      method.toUpperCase() !== "HEAD" &&
      response.body !== null &&
      response.headers.get("content-length") !== "0";
    if (!hasBody) return;
    const documented = mediaType ? documentedMediaType(documentedTypes, mediaType) : undefined;
    if (!documented)
      return this.drift({
        operation: name,
        status,
        kind: "content-type",
        message: `${mediaType ?? "a body without content-type"} is not documented (documented: ${documentedTypes.join(", ") || "no body"})`,
      });
    if (!mediaType || !isJson(mediaType)) return;
    // A gzip-encoded answer (the description's) is checked as the JSON it decodes to. A fetch over the network has
    // decoded it already (the header stays); the app's own Response, in process, has not: told by gzip's magic bytes.
    const bytes = new Uint8Array(await response.clone().arrayBuffer());
    const encoded = response.headers.get("content-encoding") === "gzip" && bytes[0] === 0x1f && bytes[1] === 0x8b;
    const text = (encoded ? gunzipSync(bytes) : Buffer.from(bytes)).toString("utf8");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return this.drift({
        operation: name,
        status,
        kind: "invalid-json",
        message: `${(e as Error).message}: ${text.slice(0, 200)}`,
      });
    }
    if (res.doc.content![documented].schema === undefined) return;
    const validate = this.validator(template, method.toLowerCase(), res.key, documented);
    record.validated = true;
    if (!validate(body))
      this.drift({ operation: name, status, kind: "schema", message: describeErrors(validate.errors, body) });
  }

  /** An openapi-fetch middleware that checks every response of a client (its schemaPath is the template). */
  middleware(): Middleware {
    return {
      onResponse: async ({ request, response, schemaPath }) => {
        await this.check(request.method, schemaPath, response);
        return undefined;
      },
    };
  }

  /** A fetch that checks every response (for requests outside the typed client). */
  fetch(base: string): (pathname: string, init?: RequestInit) => Promise<Response> {
    return async (pathname, init) => {
      const response = await fetch(`${base}${pathname}`, init);
      await this.check(init?.method ?? "GET", pathname, response);
      return response;
    };
  }

  /** Known drifts that were not met by this run (fixed since, or no longer exercised). */
  unmetKnownDrifts(): KnownDrift[] {
    return this.known.filter((k) => !this.knownMet.has(k.id));
  }
}
