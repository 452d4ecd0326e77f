/**
 * Reads a fixture file (`serve --sandbox --fixtures FILE`): JSON, or YAML for a file named `.yaml`/`.yml` (read with
 * YAML's JSON schema: values are JSON's, no dates or other types), checked against the fixture schema. What cannot
 * be used is a FixtureError naming the JSON path of the part at fault (`accounts[0].keys[1].key`), for serve's one
 * line. Held by test/sandbox/fixtures.test.ts ("file").
 */
import { readFileSync } from "node:fs";
import yaml from "js-yaml";
import * as v from "valibot";
import { FixtureError } from "./fixtures.js";
import { type Fixture, FixtureSchema } from "./fixtures-schema.js";

/** Whether a file is read as YAML (by its name). */
export function isYamlFile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

/** The fixture of a file, checked. */
export function readFixtureFile(file: string): Fixture {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new FixtureError(file, (e as Error).message);
  }
  return parseFixture(text, isYamlFile(file) ? "yaml" : "json");
}

/** The fixture of a text, checked. */
export function parseFixture(text: string, format: "json" | "yaml"): Fixture {
  let data: unknown;
  try {
    data = format === "yaml" ? yaml.load(text, { schema: yaml.JSON_SCHEMA }) : JSON.parse(text);
  } catch (e) {
    throw new FixtureError("(file)", `not ${format === "yaml" ? "YAML" : "JSON"}: ${firstLine((e as Error).message)}`);
  }
  const result = v.safeParse(FixtureSchema, data);
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw new FixtureError(jsonPath(issue.path), issue.message);
}

/** A valibot issue's path as JSON path (`accounts[0].name`); `(root)` for the whole file. */
function jsonPath(path: v.BaseIssue<unknown>["path"]): string {
  let out = "";
  for (const item of path ?? []) {
    const key = (item as { key: unknown }).key;
    out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  }
  return out || "(root)";
}

function firstLine(text: string): string {
  return text.split("\n")[0];
}
