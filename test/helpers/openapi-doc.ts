/**
 * Reading the description in tests: its schemas refer to components.schemas by `$ref` (records and request bodies
 * are named, src/http/openapi-schemas.ts), and a test that looks into a schema's properties reads it inlined.
 */

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema read from the description.
type Schema = any;
interface Document {
  paths: Record<string, Record<string, unknown> | undefined>;
  components?: Record<string, unknown>;
}

const COMPONENTS = "#/components/schemas/";

/** A schema with every reference to components.schemas replaced by the component it names, recursively. */
export function inlined(doc: Document, schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map((item) => inlined(doc, item));
  if (schema === null || typeof schema !== "object") return schema;
  const { $ref, ...rest } = schema as { $ref?: unknown };
  const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlined(doc, value)]));
  if (typeof $ref !== "string" || !$ref.startsWith(COMPONENTS)) return $ref === undefined ? own : { $ref, ...own };
  const target = (doc.components?.schemas as Record<string, Schema> | undefined)?.[$ref.slice(COMPONENTS.length)];
  if (target === undefined) throw new Error(`no component ${$ref}`);
  return { ...inlined(doc, target), ...own };
}

/** An operation's JSON request body schema, inlined. */
export function requestSchemaOf(doc: Document, path: string, method: string): Schema {
  const op = doc.paths[path]?.[method] as { requestBody?: { content: Record<string, { schema: Schema }> } };
  if (!op?.requestBody) throw new Error(`${method.toUpperCase()} ${path} takes no body`);
  return inlined(doc, op.requestBody.content["application/json"].schema);
}
