/**
 * The JSON Schemas of the description's request bodies and responses, with every named schema (schemas.ts named(),
 * and each operation's request body) described once under components.schemas and referred to by `$ref`.
 */
import { type ConversionConfig, toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import * as v from "valibot";
import type { ServerConfig } from "./context.js";

type Json = Record<string, unknown>;
/** A body is described as the client sends it (input), a response as the server answers it (output). */
export type TypeMode = "input" | "output";

const COMPONENTS = "#/components/schemas/";
/** Where an input-mode reference points until its component's name is settled (see inputNames). */
const INPUT_REF = "#/input-schemas/";

/** The engines a server offers, by the field that names one: a text engine (`model`) or an image model. */
export interface OfferedModels {
  text: string[];
  image: string[];
}

/**
 * What a server's `model` fields accept (schemas.ts offeredModel): an engine's id or its kind (pickEngine), the builtin
 * one and the configured model server's; for images, builtin and the configured image model.
 */
export function offeredModels(config: Partial<Pick<ServerConfig, "llm" | "imageModel">>): OfferedModels {
  const text = ["builtin", ...(config.llm ? [config.llm.model, "openai-compatible"] : [])];
  const image = ["builtin", ...(config.imageModel ? [config.imageModel.model] : [])];
  return { text: [...new Set(text)], image: [...new Set(image)] };
}

/**
 * A schema that holds both `base` and `more`: `required` lists are joined, a keyword of `more` that `base` already has
 * (a second pattern, a second anyOf) is added under `allOf`, so that neither is lost.
 */
export function mergeSchema(base: Json, more: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(more)) {
    if (key === "required")
      out.required = [...new Set([...((base.required as string[]) ?? []), ...(value as string[])])];
    else if (key in base) out.allOf = [...((out.allOf as Json[]) ?? []), { [key]: value }];
    else out[key] = value;
  }
  return out;
}

/** Marks, while a schema is converted, a string that its pipe trims (not part of the description). */
const TRIMMED = Symbol("trimmed");

/**
 * The conversion settings every schema of the description is converted with, for a server offering `models`.
 * An integer carried as a string (schemas.ts intString) is described as the integer it is, with its bounds; a check
 * that a value is a JSON object (valibot's object schemas take arrays too) as an object; a check that says its rule
 * in JSON Schema (schemas.ts describedCheck) with those words; a model field with the engines offered.
 */
export function conversionConfig(typeMode: TypeMode, models: OfferedModels): ConversionConfig {
  return {
    target: "draft-2020-12",
    typeMode,
    errorMode: "ignore",
    overrideAction: ({ valibotAction, jsonSchema }) => {
      const said = (valibotAction as { jsonSchema?: Json }).jsonSchema;
      if (said !== undefined) return mergeSchema(jsonSchema as Json, said);
      // A minimum length after a trim is one of the trimmed text: a value of spaces only is refused, said as `\S`.
      if (valibotAction.type === "trim") Object.defineProperty(jsonSchema, TRIMMED, { value: true });
      if (valibotAction.type === "min_length" && (jsonSchema as Record<symbol, unknown>)[TRIMMED] === true)
        return mergeSchema(jsonSchema as Json, { pattern: "\\S" });
      if (valibotAction.type !== "metadata") return undefined;
      const meta = (valibotAction as { metadata?: Json }).metadata;
      if (meta?.jsonObject === true) return { type: "object" };
      const offered = meta?.offeredModel as keyof OfferedModels | undefined;
      if (offered !== undefined) {
        const { offeredModel: _, ...rest } = jsonSchema as Json;
        return { ...rest, enum: models[offered] };
      }
      const bounds = meta?.integerString as { minimum: number; maximum: number } | undefined;
      const description = typeof meta?.description === "string" ? { description: meta.description } : {};
      return bounds ? { type: "integer", ...bounds, ...description } : undefined;
    },
  };
}

/** A copy of a JSON value whose `$ref` strings are replaced by `map`'s answer (kept where it answers undefined). */
function mapRefs(value: unknown, map: (ref: string) => string | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => mapRefs(item, map));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === "$ref" && typeof item === "string" ? (map(item) ?? item) : mapRefs(item, map),
    ]),
  );
}

/** Calls `visit` with every `$ref` string in a JSON value. */
function eachRef(value: unknown, visit: (ref: string) => void): void {
  if (value === null || typeof value !== "object") return;
  for (const [key, item] of Object.entries(value))
    if (key === "$ref" && typeof item === "string") visit(item);
    else eachRef(item, visit);
}

/** The names behind `prefix` that `roots` refer to, directly or through the definitions they reach. */
function reachable(roots: unknown[], defs: Record<string, unknown>, prefix: string): Set<string> {
  const found = new Set<string>();
  const visit = (ref: string) => {
    const name = ref.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
    if (name !== undefined && !found.has(name)) {
      found.add(name);
      eachRef(defs[name], visit);
    }
  };
  for (const root of roots) eachRef(root, visit);
  return found;
}

/** One conversion of many schemas in one type mode, every named schema converted once as a definition. */
function convertPass(
  schemas: GenericSchema[],
  names: Record<string, GenericSchema>,
  typeMode: TypeMode,
  models: OfferedModels,
) {
  const prefix = typeMode === "output" ? COMPONENTS : INPUT_REF;
  const json = toJsonSchema(v.tuple(schemas), {
    ...conversionConfig(typeMode, models),
    definitions: names,
    overrideRef: ({ referenceId }) => prefix + referenceId,
  }) as { prefixItems?: Json[]; $defs?: Record<string, Json> };
  return { forms: json.prefixItems ?? [], defs: json.$defs ?? {} };
}

/**
 * The component name of each named schema's input form. A schema used only in requests keeps its name. One also
 * used in responses keeps it when both forms are the same, and is `<Name>Input` when they differ (a field with a
 * default, an integer carried as a string, a timestamp taken and ignored): one name for two shapes would make a
 * generated client's type wrong on one side. Settled to a fixed point, as a form that refers to an `<Name>Input`
 * differs from its output form.
 */
function inputNames(
  input: Record<string, Json>,
  output: Record<string, Json>,
  inUsed: Set<string>,
  outUsed: Set<string>,
): (name: string) => string {
  const suffixed = new Set<string>();
  const final = (name: string) => (suffixed.has(name) ? `${name}Input` : name);
  const settle = (name: string) => mapRefs(input[name], (ref) => COMPONENTS + final(ref.slice(INPUT_REF.length)));
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of inUsed)
      if (outUsed.has(name) && !suffixed.has(name) && JSON.stringify(settle(name)) !== JSON.stringify(output[name])) {
        suffixed.add(name);
        changed = true;
      }
  }
  return final;
}

/** What convertSchemas gives: each schema's JSON Schema and the components they refer to. */
export interface ConvertedSchemas {
  /** The JSON Schema of a schema given to convertSchemas in that mode: a `$ref` for a named one. */
  of(schema: GenericSchema, typeMode: TypeMode): Json;
  /** A request body's own form (its properties, not a `$ref`), for the multipart form of an upload. */
  bodyForm(schema: GenericSchema): Json;
  /** components.schemas: every named schema referred to, by name. */
  components: Record<string, Json>;
}

/**
 * Converts the request bodies (input) and responses (output) of the description in one pass per type mode, with
 * `names` (name → schema, found by identity) as components. Tested by test/http/openapi-docs.test.ts.
 */
export function convertSchemas(
  bodies: GenericSchema[],
  responses: GenericSchema[],
  names: Record<string, GenericSchema>,
  models: OfferedModels,
): ConvertedSchemas {
  const input = convertPass(bodies, names, "input", models);
  const output = convertPass(responses, names, "output", models);
  const inUsed = reachable(input.forms, input.defs, INPUT_REF);
  const outUsed = reachable(output.forms, output.defs, COMPONENTS);
  const final = inputNames(input.defs, output.defs, inUsed, outUsed);
  const settle = (json: unknown) =>
    mapRefs(json, (ref) =>
      ref.startsWith(INPUT_REF) ? COMPONENTS + final(ref.slice(INPUT_REF.length)) : undefined,
    ) as Json;
  const components: Record<string, Json> = {};
  for (const name of outUsed) components[name] = output.defs[name];
  for (const name of inUsed) components[final(name)] ??= settle(input.defs[name]);
  const byName = new Map(Object.entries(names).map(([name, schema]) => [schema, name]));
  const inputForm = new Map(bodies.map((schema, i) => [schema, input.forms[i]]));
  const outputForm = new Map(responses.map((schema, i) => [schema, output.forms[i]]));
  return {
    of: (schema, typeMode) => (typeMode === "input" ? settle(inputForm.get(schema)) : (outputForm.get(schema) as Json)),
    bodyForm: (schema) => {
      const name = byName.get(schema);
      return settle(name === undefined ? inputForm.get(schema) : input.defs[name]);
    },
    components: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
  };
}
