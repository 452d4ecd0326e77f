/**
 * The description teaches: every operation says what it does beside its summary, every request and response field
 * says what it is, every request body has examples, the records are named component schemas referred to by `$ref`
 * (src/http/openapi-schemas.ts), and the examples are true: each request example is sent to the server and answered
 * with the operation's documented success status, and each response example matches its own schema.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/routes/index.js";
import { contract, type Harness, makeHarness } from "../helpers/harness.js";
import { credentialFor } from "../helpers/http.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON Schemas and operations read from the description.
type Json = any;
const doc = contract.document as Json;
const COMPONENTS = "#/components/schemas/";

interface Op {
  id: string;
  method: string;
  path: string;
  op: Json;
}
const operations: Op[] = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ id: op.operationId as string, method, path, op })),
);

/** The JSON schemas an operation's request body and responses have, by where they are. */
function schemasOf(o: Op): [string, Json][] {
  const out: [string, Json][] = [];
  for (const [type, media] of Object.entries((o.op.requestBody?.content ?? {}) as Record<string, Json>))
    out.push([`request ${type}`, media.schema]);
  for (const [status, response] of Object.entries(o.op.responses as Record<string, Json>))
    for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>))
      if (type.endsWith("json")) out.push([`${status} ${type}`, media.schema]);
  return out;
}

/** Whether a property says what it is: its own description, or that of each alternative or the component it names. */
function isDescribed(schema: Json): boolean {
  if (typeof schema?.description === "string" && schema.description.trim() !== "") return true;
  if (typeof schema?.$ref === "string")
    return isDescribed(doc.components.schemas[schema.$ref.slice(COMPONENTS.length)]);
  const alternatives = (schema?.anyOf ?? schema?.oneOf ?? []).filter((s: Json) => s.type !== "null");
  return alternatives.length > 0 && alternatives.every(isDescribed);
}

/**
 * The pointers, under `where`, of the properties of a schema (nested, and through the components it names) that say
 * nothing. A property that a oneOf/anyOf/allOf member of an object only constrains (`required`, a `const`) is the
 * object's own, described there: `declared` holds those names.
 */
function undescribed(schema: Json, where: string, seen: Set<string>, declared = new Set<string>()): string[] {
  if (schema === null || typeof schema !== "object") return [];
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.slice(COMPONENTS.length);
    if (seen.has(name)) return [];
    seen.add(name);
    return undescribed(doc.components.schemas[name], name, seen);
  }
  const out: string[] = [];
  const own = Object.entries((schema.properties ?? {}) as Record<string, Json>);
  for (const [key, property] of own) {
    if (declared.has(key)) continue;
    if (!isDescribed(property)) out.push(`${where}.${key}`);
    out.push(...undescribed(property, `${where}.${key}`, seen));
  }
  const inMembers = new Set([...declared, ...own.map(([key]) => key)]);
  for (const [i, member] of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].entries())
    out.push(...undescribed(member, `${where}|${i}`, seen, inMembers));
  if (schema.items) out.push(...undescribed(schema.items, `${where}[]`, seen));
  if (typeof schema.additionalProperties === "object")
    out.push(...undescribed(schema.additionalProperties, `${where}{}`, seen));
  return out;
}

/** Every `$ref` to components.schemas in a JSON value. */
function refsIn(value: Json, found = new Set<string>()): Set<string> {
  if (value === null || typeof value !== "object") return found;
  for (const [key, item] of Object.entries(value))
    if (key === "$ref" && typeof item === "string" && item.startsWith(COMPONENTS))
      found.add(item.slice(COMPONENTS.length));
    else refsIn(item, found);
  return found;
}

describe("what the description teaches", () => {
  it("describes every operation beside its summary", () => {
    const missing = operations.filter((o) => !o.op.description?.trim()).map((o) => o.id);
    expect(missing).toEqual([]);
    for (const o of operations.filter((o) => o.op.description))
      expect(o.op.description, o.id).not.toMatch(/§|spec |DESIGN/);
  });

  it("describes every field of every request and response schema, nested ones too", () => {
    const missing: Record<string, string[]> = {};
    for (const o of operations) {
      const seen = new Set<string>();
      const fields = schemasOf(o).flatMap(([where, schema]) => undescribed(schema, where, seen));
      if (fields.length) missing[o.id] = fields;
    }
    expect(missing).toEqual({});
  });

  it("describes every path and query parameter", () => {
    const missing: Record<string, string[]> = {};
    for (const o of operations) {
      const names = ((o.op.parameters ?? []) as Json[]).filter((p) => !p.description?.trim()).map((p) => p.name);
      if (names.length) missing[o.id] = names;
    }
    expect(missing).toEqual({});
  });

  it("gives every request body at least one example", () => {
    const missing = operations.filter(
      (o) => o.op.requestBody && !o.op.requestBody.content["application/json"]?.examples,
    );
    expect(missing.map((o) => o.id)).toEqual([]);
  });

  it("names the records as component schemas that the operations refer to by $ref", () => {
    const used = refsIn(doc.paths);
    for (const name of [...used]) refsIn(doc.components.schemas[name], used);
    const records = ["Content", "ContentVersion", "ReferenceMaterial", "Memory", "Template", "Image", "Conversion"];
    records.push("Scoring", "LearningJob", "VoiceProfile", "Model", "KnowledgeGraph", "Entity", "GenerateResponse");
    records.push("FinalizeResponse", "ErrorBody");
    for (const name of records) expect(used, name).toContain(name);
    // A list's items are the record by reference, not a copy of it.
    const list = doc.paths["/api/v1/contents"].get.responses["200"].content["application/json"].schema;
    expect(list.properties.data.items).toEqual({ $ref: `${COMPONENTS}Content` });
    // Every request body is a named schema, so that a generated client has a named type for it.
    for (const o of operations.filter((o) => o.op.requestBody))
      expect(o.op.requestBody.content["application/json"].schema.$ref, o.id).toMatch(/^#\/components\/schemas\/\w+$/);
    // Nothing under components.schemas goes unused.
    expect(Object.keys(doc.components.schemas).filter((name) => !used.has(name))).toEqual([]);
  });

  it("every response example matches its own schema", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/);
    ajv.addFormat("email", /^[^\s@]+@[^\s@]+$/);
    let checked = 0;
    for (const o of operations)
      for (const [status, response] of Object.entries(o.op.responses as Record<string, Json>)) {
        const media = response.content?.["application/json"];
        if (media?.example === undefined) continue;
        const validate = ajv.compile({ ...media.schema, components: doc.components });
        expect(validate(media.example), `${o.id} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        checked += 1;
      }
    expect(checked).toBeGreaterThan(10);
  });
});

/**
 * What an example needs to exist before it is sent, beyond the records every run starts with (see world): path
 * values, and body fields that name a record made for the run (a device code is issued, not written down).
 */
type Arrange = (
  h: Harness,
  auth: string | undefined,
  example: string,
) => Promise<{ path?: Record<string, string>; body?: Json }>;
const ARRANGE: Record<string, Arrange> = {
  publishContent: async (h, auth) => {
    await finalizeFirst(h, auth);
    return {};
  },
  renameApiKey: async (h) => ({ path: { id: h.services.store.apiKeys.list(h.a.id)[0].id } }),
  // The rotation replaces the run's key of account A.
  createApiKey: async (h, _, example) =>
    example === "rotation" ? { body: { replaces_key_id: h.services.store.apiKeys.list(h.a.id)[0].id } } : {},
  // The example signs in as the administrator a first start makes: that user, with the example's password, is made.
  login: async (h) => {
    const { email, password } = ROUTES.find((r) => r.operationId === "login")!.bodyExamples!.admin as Json;
    const res = await h.send("POST", "/api/v1/admin/users", {
      auth: await h.login("admin@a.test"),
      body: { account_id: h.a.id, email, password, role: "admin" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return {};
  },
  updateWorkspace: async (h) => ({ path: { workspaceId: h.a.ws2 } }),
  updateTemplate: async (h, auth) => {
    const made = await h.send("POST", "/api/v1/templates", {
      auth,
      body: { name: "To replace", sections: [{ role: "hook", words: 40 }] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { path: { id: String(made.body.id) } };
  },
  // A profile that learned what the examples name (a substitution of "technicians").
  updateVoiceProfile: async (h) => {
    const traits = ROUTES.find((r) => r.operationId === "getVoiceProfile")!.responses[200].example as Json;
    const now = new Date(h.clock.now()).toISOString();
    const p = { id: "vp_example", accountId: h.a.id, workspaceId: h.a.ws1, sampleCount: 4, now };
    h.services.store.learning.saveProfile({ ...p, traits: traits.traits });
    return { path: { id: "vp_example" } };
  },
  adminUpdateAccount: async (h) => ({ path: { id: String(h.a.id) } }),
  approveDeviceAuthorization: async (h) => ({ body: { user_code: (await deviceCode(h)).user_code } }),
  pollDeviceAuthorization: async (h) => {
    const code = await deviceCode(h);
    await h.send("POST", "/api/v1/auth/device/approve", {
      auth: await h.login("admin@a.test"),
      body: { user_code: code.user_code },
    });
    return { body: { device_code: code.device_code } };
  },
};

/** Examples answered with another documented success than the lowest, by `operationId example`, with the reason. */
const STATUS: Record<string, { status: number; reason: string }> = {
  "generate newContent": { status: 201, reason: "without content_id, generate creates a content record" },
};

async function deviceCode(h: Harness): Promise<{ user_code: string; device_code: string }> {
  const res = await h.send("POST", "/api/v1/auth/device/code", { body: {} });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function finalizeFirst(h: Harness, auth: string | undefined) {
  const res = await h.send("POST", "/api/v1/finalizeContent", {
    auth,
    body: { content_id: 1, finalized_content: "The final text.", edit_seconds: 60 },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * The records every example may name, in a fresh harness, so that their ids are known: reference material 1,
 * memory 1, content 1 (generated, from built-in template 1) and an API key of account A.
 */
async function world(h: Harness): Promise<void> {
  const key = h.key();
  const setup: [string, Json][] = [
    ["/api/v1/reference-materials", { title: "Notes", content: "Flat roofs need ballast mounts.", format: "text" }],
    ["/api/v1/memories", { kind: "voice", title: "Voice", content: "Short sentences. No jargon." }],
    ["/api/v1/generate", { template_id: 1, user_direction: "A short post about solar panels on flat roofs." }],
  ];
  for (const [path, body] of setup) {
    const res = await h.send("POST", path, { auth: key, body });
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(201);
  }
}

const examples = operations.flatMap((o) =>
  Object.entries(
    (o.op.requestBody?.content["application/json"]?.examples ?? {}) as Record<string, { value: Json }>,
  ).map(([name, { value }]) => ({ ...o, name, value })),
);

describe("request examples cannot rot", () => {
  it("has examples to send", () => expect(examples.length).toBeGreaterThan(0));

  it.each(examples.map((e) => [`${e.id} (${e.name})`, e] as const))(
    "%s is answered with its documented success status",
    async (_, e) => {
      const h = makeHarness();
      await world(h);
      const def = ROUTES.find((r) => r.operationId === e.id)!;
      const auth = await credentialFor(h, def);
      const arranged = (await ARRANGE[e.id]?.(h, auth, e.name)) ?? {};
      const values: Record<string, string> = { contentId: "1", id: "1", ...arranged.path };
      const path = e.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name]);
      const body = arranged.body ? { ...e.value, ...arranged.body } : e.value;
      const res = await h.send(e.method.toUpperCase(), path, { auth, body });
      const successes = Object.keys(e.op.responses)
        .filter((s) => s.startsWith("2"))
        .map(Number);
      // An operation with no success (billing, managed by the administrator) refuses for what it is, never the body.
      if (successes.length === 0) expect(res.body?.error, JSON.stringify(res.body)).not.toBe("validation_failed");
      else
        expect(res.status, JSON.stringify(res.body)).toBe(
          STATUS[`${e.id} ${e.name}`]?.status ?? Math.min(...successes),
        );
    },
  );
});
