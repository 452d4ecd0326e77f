/**
 * Writes docs/sandbox-fixtures.schema.json, the published JSON Schema of a sandbox fixture file, from the valibot
 * schema `serve --fixtures` checks files with (src/sandbox/fixtures-schema.ts): `npm run docs:fixtures`.
 * test/sandbox/fixtures-schema.test.ts fails when the committed file says another schema than this writes.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fixturesJsonSchema } from "../src/sandbox/fixtures-schema.js";

/** The file, relative to the repository's root. */
export const SCHEMA_FILE = "docs/sandbox-fixtures.schema.json";

/** The file's text. */
export function schemaText(): string {
  return `${JSON.stringify(fixturesJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
  writeFileSync(path.join(root, SCHEMA_FILE), schemaText());
  // In the repository's format (biome's, which `npm run lint` checks).
  execFileSync(path.join(root, "node_modules/.bin/biome"), ["format", "--write", SCHEMA_FILE], { cwd: root });
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
