/**
 * What the description says beyond schemas: the headers every response carries (spec §8: X-RateLimit-*; DESIGN §3:
 * X-Trace-Id, and X-API-Stability on beta operations), which the contract check every harness response goes
 * through holds the answers to; integer identifiers (spec §2); and body refusals only where there is a body.
 */
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/routes/index.js";
import { ContractError } from "../helpers/contract.js";
import { checkContract, contract, makeHarness } from "../helpers/harness.js";
import { inlined } from "../helpers/openapi-doc.js";

type Responses = Record<string, { headers?: Record<string, { $ref: string }> }>;
const operations = Object.entries(contract.document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({
    path,
    method,
    stability: (op as { "x-stability"?: string })["x-stability"],
    responses: (op as { responses: Responses }).responses,
    parameters: (op as { parameters?: unknown[] }).parameters,
  })),
);

describe("response headers in the description", () => {
  it("lists the rate-limit headers and X-Trace-Id on every response, X-API-Stability on beta ones", () => {
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations)
      for (const [status, response] of Object.entries(op.responses)) {
        const names = Object.keys(response.headers ?? {});
        const where = `${op.method.toUpperCase()} ${op.path} ${status}`;
        expect(names, where).toEqual(
          expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Trace-Id"]),
        );
        expect(names.includes("X-API-Stability"), where).toBe(op.stability === "beta");
        if (status === "429") expect(names, where).toContain("Retry-After");
        for (const { $ref } of Object.values(response.headers ?? {}))
          expect(contract.document.components?.headers, $ref).toHaveProperty($ref.split("/").pop()!);
      }
  });

  it("a response without a required header, or with one of the wrong form, is a drift", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/templates", { auth: h.key() });
    expect(res.status).toBe(200);
    const body = JSON.stringify(res.body);
    const headers = Object.fromEntries(res.headers);
    const answer = (changed: Record<string, string | null>) => {
      const sent = new Headers(headers);
      for (const [name, value] of Object.entries(changed))
        if (value === null) sent.delete(name);
        else sent.set(name, value);
      return new Response(body, { status: 200, headers: sent });
    };
    await expect(contract.check("GET", "/api/v1/templates", answer({}))).resolves.toBeUndefined();
    await expect(contract.check("GET", "/api/v1/templates", answer({ "x-ratelimit-limit": null }))).rejects.toThrow(
      ContractError,
    );
    await expect(contract.check("GET", "/api/v1/templates", answer({ "x-ratelimit-reset": "soon" }))).rejects.toThrow(
      /X-RateLimit-Reset is not an integer/,
    );
  });
});

describe("the operation a response is checked against", () => {
  it("is the one the path names once read as a URL, as the server reads it", async () => {
    const h = makeHarness();
    const key = h.key();
    // `\` is `/` and `%2e%2e` is `..` to a URL parser: these name the key list and /api/v1/, not a key with that id.
    const slash = await h.send("DELETE", "/api/v1/api-keys/\\", { auth: key });
    expect(slash.status).toBe(405);
    const dots = await h.send("DELETE", "/api/v1/api-keys/%2e%2e", { auth: key });
    expect(dots.status).toBe(404);
    const refused = (status: number) =>
      new Response(JSON.stringify({ error: "METHOD_NOT_ALLOWED" }), {
        status,
        headers: { "content-type": "application/json" },
      });
    await expect(checkContract("DELETE", "/api/v1/api-keys/\\", refused(405))).resolves.toBeUndefined();
    await expect(checkContract("DELETE", "/api/v1/api-keys/%2e%2e", refused(404))).resolves.toBeUndefined();
    // A key's own path still holds the key's operation to its documented statuses (405 is not one of them).
    await expect(checkContract("DELETE", "/api/v1/api-keys/key_x", refused(405))).rejects.toThrow(ContractError);
  });
});

describe("identifiers in the description", () => {
  /** Every property of a JSON schema, with its name, through objects, arrays and unions. */
  function* properties(schema: unknown, name = ""): Generator<[string, Record<string, unknown>]> {
    if (schema === null || typeof schema !== "object") return;
    const s = schema as Record<string, unknown>;
    if (name) yield [name, s];
    for (const [key, value] of Object.entries((s.properties ?? {}) as Record<string, unknown>))
      yield* properties(value, key);
    if (s.items) yield* properties(s.items, name);
    for (const list of [s.anyOf, s.oneOf, s.allOf])
      if (Array.isArray(list)) for (const x of list) yield* properties(x, name);
  }

  it("types every integer id and count of a response as integer (spec §2), never number", () => {
    let seen = 0;
    // JSON-RPC's id (POST /mcp) is the client's own, any string or number.
    for (const op of operations.filter((o) => o.path !== "/api/v1/mcp"))
      for (const [status, response] of Object.entries(op.responses)) {
        const content = (response as { content?: Record<string, { schema?: unknown }> }).content ?? {};
        // Records are components referred to by $ref (openapi-schemas.ts): read with them inlined.
        for (const media of Object.values(content))
          for (const [name, schema] of properties(inlined(contract.document, media.schema))) {
            const types = [
              schema.type,
              ...((schema.anyOf as { type?: string }[] | undefined) ?? []).map((x) => x.type),
            ];
            if (!/^(id|.+_id|.+_count|version)$/.test(name) || types.includes("string")) continue;
            seen++;
            expect(types, `${op.method.toUpperCase()} ${op.path} ${status}: ${name}`).not.toContain("number");
          }
      }
    expect(seen).toBeGreaterThan(50);
  });

  it("types integer path ids and integer query values as integers with their bounds (spec §2: {contentId})", () => {
    const params = (path: string, method: string) =>
      (operations.find((o) => o.path === path && o.method === method)?.parameters ?? []) as {
        name: string;
        schema: Record<string, unknown>;
      }[];
    const byName = (list: ReturnType<typeof params>, name: string) => list.find((p) => p.name === name)?.schema;
    expect(byName(params("/api/v1/contents/{contentId}", "get"), "contentId")).toEqual({
      type: "integer",
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(byName(params("/api/v1/contents", "get"), "limit")).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    // No parameter anywhere is described as a string of digits.
    for (const op of operations)
      for (const p of (op.parameters ?? []) as { name: string; in: string; schema: Record<string, unknown> }[])
        expect(p.schema.pattern, `${op.method} ${op.path} ${p.name}`).not.toBe("^-?\\d{1,16}$");
  });

  it("types the error details DESIGN §4 names, so that a generated client has them", () => {
    type Schema = {
      type?: string;
      enum?: string[];
      items?: Schema;
      anyOf?: Schema[];
      properties?: Record<string, Schema>;
    };
    const conflict = operations.find((o) => o.path === "/api/v1/finalizeContent")!.responses["409"] as {
      content: Record<string, { schema: { $ref: string } }>;
    };
    expect(conflict.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorBody" });
    const errorBody = (contract.document.components as { schemas: Record<string, Schema> }).schemas.ErrorBody;
    const details = errorBody.properties!.details.properties!;
    expect(details.required_statuses.type).toBe("array");
    expect(details.current_scopes.type).toBe("array");
    expect(details.missing_ids.items?.type).toBe("integer");
    expect(details.window.enum).toEqual(["minute", "hour"]);
    expect(details.required_status.anyOf?.map((s) => s.type)).toEqual(["string", "array"]);
    expect(Object.keys(details)).toEqual(
      expect.arrayContaining(["error_code", "upgrade_action", "bound_workspace_id", "retry_after_seconds", "issues"]),
    );
  });
});

describe("error responses in the description", () => {
  it("refer to the one error body under components.schemas rather than each inlining it (3 MB of 3.2 MB)", () => {
    let errors = 0;
    for (const o of operations)
      for (const [status, response] of Object.entries(o.responses)) {
        const schema = (response as { content?: Record<string, { schema?: unknown }> }).content?.["application/json"]
          ?.schema as { $ref?: string; properties?: Record<string, unknown> } | undefined;
        if (Number(status) < 400 || !schema) continue;
        // The MCP endpoint answers its refusals as JSON-RPC errors, with the error body inside.
        if (schema.properties?.jsonrpc) continue;
        errors++;
        expect(schema, `${o.method.toUpperCase()} ${o.path} ${status}`).toEqual({
          $ref: "#/components/schemas/ErrorBody",
        });
      }
    expect(errors).toBeGreaterThan(400);
    expect(JSON.stringify(contract.document).length).toBeLessThan(1_000_000);
  });
});

describe("lists in the description", () => {
  /** The order of every list (docs/api.md, "Lists"): stated in its summary, as lists differ (contents oldest first, images newest first). */
  const ORDER: Record<string, string> = {
    listApiKeys: "oldest first",
    listWorkspaces: "in id order",
    listTemplates: "oldest first",
    listMemories: "oldest first",
    listReferenceMaterials: "oldest first",
    listImages: "newest first",
    listModels: "the default first",
    listContents: "oldest first",
    listContentVersions: "oldest first",
    listVoiceProfiles: "oldest first",
    listConversions: "oldest first",
    searchKnowledgeGraphEntities: "best match first",
    getKnowledgeGraph: "most mentioned first",
    listKnowledgeGraphEntitySources: "in the order the graph took them in",
    adminListAccounts: "oldest first",
    adminListUsers: "oldest first",
    adminAuditLog: "newest first",
  };

  it("states each list's order in its summary", () => {
    const lists = ROUTES.filter((r) => r.lists);
    expect(lists.map((r) => r.operationId).sort()).toEqual(Object.keys(ORDER).sort());
    for (const r of lists) {
      const op = (contract.document.paths as Record<string, Record<string, { summary: string }>>)[r.path][
        r.method.toLowerCase()
      ];
      expect(op.summary, r.operationId).toContain(ORDER[r.operationId]);
    }
  });
});

describe("body refusals in the description", () => {
  it("documents 413 and 415 exactly on the operations that take a body", () => {
    for (const [path, methods] of Object.entries(contract.document.paths))
      for (const [method, op] of Object.entries(methods)) {
        const o = op as { requestBody?: unknown; responses: Record<string, unknown> };
        const where = `${method.toUpperCase()} ${path}`;
        expect("413" in o.responses, where).toBe(o.requestBody !== undefined);
        expect("415" in o.responses, where).toBe(o.requestBody !== undefined);
      }
  });
});

describe("headers of errors met before the rate limit is decided", () => {
  it("a busy database while authenticating answers 503 with the client address's X-RateLimit-*", async () => {
    const h = makeHarness();
    const key = h.key();
    const get = h.services.rows.get.bind(h.services.rows);
    h.services.rows.get = ((id: string, read: () => unknown) => {
      if (id.startsWith("key:")) throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
      return get(id, read as never);
    }) as typeof h.services.rows.get;
    const res = await h.send("POST", `/api/v1/memories?workspace_id=${h.a.ws1}`, {
      auth: key,
      body: { kind: "voice", title: "Plain", content: "Short sentences." },
    });
    expect(res.status).toBe(503);
    for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
      expect(res.headers.get(name), name).toMatch(/^\d+$/);
  });
});
