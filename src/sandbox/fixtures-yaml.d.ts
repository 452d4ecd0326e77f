/** The part of js-yaml (4.x, which ships no types) that fixtures-file.ts uses. */
declare module "js-yaml" {
  /** Parses one YAML document (JSON is YAML too); throws a YAMLException naming the line and column. */
  export function load(text: string, options?: { filename?: string; schema?: unknown }): unknown;
  /** The schema of JSON's values only (no dates, no binary): a fixture is JSON's data model. */
  export const JSON_SCHEMA: unknown;
}
