/**
 * fast-check arbitraries of values a JSON Schema (draft 2020-12, as the OpenAPI description writes it) calls valid:
 * the generator of valid-requests.test.ts. It reads the keywords the description uses (type, enum, const,
 * properties, required, additionalProperties, items, bounds, pattern, format date, anyOf, oneOf, allOf) and leaves
 * the rest (not, a second pattern under allOf) to the ajv check that every generated value passes before it is sent.
 */
import fc from "fast-check";

/** A JSON Schema as the description has it. */
export type JsonSchema = Record<string, unknown> | boolean;
type Obj = Record<string, unknown>;

/** Known values to draw ids and workspaces from, so that some requests reach real records. */
export interface Seeds {
  integers: number[];
  strings: string[];
}

/** The schema with its `$ref`s to `#/components/...` replaced by what they name (the description has no cycles). */
export function deref(schema: unknown, root: Obj, depth = 0): unknown {
  if (depth > 20 || schema === null || typeof schema !== "object") return schema;
  if (Array.isArray(schema)) return schema.map((s) => deref(s, root, depth + 1));
  const ref = (schema as Obj).$ref;
  if (typeof ref === "string" && ref.startsWith("#/")) {
    const target = ref
      .slice(2)
      .split("/")
      .reduce<unknown>((at, key) => (at as Obj)?.[key], root);
    const { $ref: _, ...rest } = schema as Obj;
    return deref({ ...(target as Obj), ...rest }, root, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, deref(v, root, depth + 1)]));
}

/**
 * Two schemas as one for generating (the ajv check holds the value to both): properties and required are joined,
 * any other keyword of `more` replaces the base's.
 */
function merged(base: Obj, more: Obj): Obj {
  const out: Obj = { ...base, ...more };
  if (base.properties || more.properties)
    out.properties = { ...((base.properties as Obj) ?? {}), ...((more.properties as Obj) ?? {}) };
  if (base.required || more.required)
    out.required = [...new Set([...((base.required as string[]) ?? []), ...((more.required as string[]) ?? [])])];
  return out;
}

/** Whether a pattern matches the whole string (`^…$`): one to generate from, where a partial one would add noise. */
const whole = (pattern: unknown) => typeof pattern === "string" && pattern.startsWith("^") && pattern.endsWith("$");

/**
 * merged, keeping the pattern to generate from: the later one where it matches a whole string (a tighter day), else
 * the earlier (an email's shape, not its rule for the part after the @); the ajv check holds the value to both.
 */
function mergedForPattern(base: Obj, more: Obj): Obj {
  const out = merged(base, more);
  if (base.pattern !== undefined && !whole(more.pattern)) out.pattern = base.pattern;
  return out;
}

const smallJson = fc.jsonValue({ maxDepth: 2 });

/** A string for a schema: its pattern, its format, or plain characters within its bounds. */
function stringOf(s: Obj, seeds: Seeds): fc.Arbitrary<string> {
  const min = (s.minLength as number | undefined) ?? 0;
  const max = Math.min((s.maxLength as number | undefined) ?? 40, Math.max(min, 40));
  if (typeof s.pattern === "string") return fc.stringMatching(new RegExp(s.pattern, "u"));
  if (s.format === "date")
    return fc
      .date({ min: new Date("0000-01-01"), max: new Date("9999-12-31"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  if (s.format === "date-time") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: min, maxLength: max }) },
    ...(seeds.strings.length ? [{ weight: 1, arbitrary: fc.constantFrom(...seeds.strings) }] : []),
  );
}

/** An integer or number for a schema, near the seeds' ids now and then. */
function numberOf(s: Obj, integer: boolean, seeds: Seeds): fc.Arbitrary<number> {
  const lo = Math.max((s.minimum as number | undefined) ?? -(2 ** 31), -(2 ** 40));
  const hi = Math.min((s.maximum as number | undefined) ?? 2 ** 31, 2 ** 40);
  if (!integer) return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
  const near = seeds.integers.filter((n) => n >= lo && n <= hi);
  return fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: lo, max: hi }) },
    ...(near.length ? [{ weight: 2, arbitrary: fc.constantFrom(...near) }] : []),
  );
}

/** An object for a schema: its required properties, some of its optional ones, nothing it forbids. */
function objectOf(s: Obj, seeds: Seeds, depth: number): fc.Arbitrary<Obj> {
  const props = Object.entries((s.properties as Record<string, JsonSchema>) ?? {}).filter(([, p]) => p !== false);
  const required = ((s.required as string[]) ?? []).filter((k) => props.some(([name]) => name === k));
  const record = fc.record(Object.fromEntries(props.map(([k, p]) => [k, arbitraryOf(p, seeds, depth + 1)])), {
    requiredKeys: required,
  });
  return record as fc.Arbitrary<Obj>;
}

/** A value the schema calls valid, or close to it (the caller's ajv check has the last word). */
export function arbitraryOf(schema: JsonSchema | undefined, seeds: Seeds, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true || depth > 6) return smallJson;
  if (schema === false) return fc.constant(undefined);
  const s = schema as Obj;
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.allOf)) {
    const { allOf, ...rest } = s;
    return arbitraryOf((allOf as Obj[]).reduce(mergedForPattern, rest), seeds, depth);
  }
  const alternatives = (s.oneOf ?? s.anyOf) as Obj[] | undefined;
  if (alternatives?.length) {
    const { oneOf: _o, anyOf: _a, ...rest } = s;
    return fc.oneof(...alternatives.map((alt) => arbitraryOf(merged(rest, alt), seeds, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type : s.type === undefined ? undefined : [s.type];
  if (type && type.length > 1) return fc.oneof(...type.map((t) => arbitraryOf({ ...s, type: t }, seeds, depth)));
  switch (type?.[0] ?? (s.properties ? "object" : undefined)) {
    case "object":
      return objectOf(s, seeds, depth);
    case "array": {
      const minLength = (s.minItems as number | undefined) ?? 0;
      const maxLength = Math.min((s.maxItems as number | undefined) ?? 3, Math.max(minLength, 3));
      return fc.array(arbitraryOf(s.items as JsonSchema, seeds, depth + 1), { minLength, maxLength });
    }
    case "string":
      return stringOf(s, seeds);
    case "integer":
      return numberOf(s, true, seeds);
    case "number":
      return numberOf(s, false, seeds);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return smallJson;
  }
}
