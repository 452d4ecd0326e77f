/**
 * The published JSON Schema of a fixture file (docs/sandbox-fixtures.schema.json, GET /_sandbox/fixtures.schema.json):
 * generated from the schema `--fixtures` checks with, committed as generated, and agreeing with it on files.
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { expect, it } from "vitest";
import { SCHEMA_FILE, schemaText } from "../../scripts/sandbox-fixtures-schema.js";
import { parseFixture } from "../../src/sandbox/fixtures-file.js";
import { fixturesJsonSchema } from "../../src/sandbox/fixtures-schema.js";
import { makeStatesHarness } from "../helpers/sandbox.js";

const KEY = `svc_live_${"a".repeat(32)}`;

it("is committed as the script writes it (npm run docs:fixtures)", () => {
  const committed = readFileSync(path.join(import.meta.dirname, "../..", SCHEMA_FILE), "utf8");
  expect(JSON.parse(committed)).toEqual(JSON.parse(schemaText()));
});

it("is served in sandbox mode", async () => {
  const h = makeStatesHarness();
  try {
    const res = await h.sendSandbox("GET", "/_sandbox/fixtures.schema.json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(fixturesJsonSchema());
  } finally {
    h.db.close();
    rmSync(h.dataDir, { recursive: true, force: true });
  }
});

it("accepts and refuses the files the loader accepts and refuses", () => {
  const validate = new Ajv2020({ strict: false }).compile(fixturesJsonSchema());
  const files = [
    `{"accounts": [{"name": "Acme", "plan": "agency", "workspaces": [{"name": "Main"}], "keys": [{"name": "ci", "key": "${KEY}"}]}]}`,
    `{"accounts": [{"name": "Acme", "plan": "gold"}]}`,
    `{"accounts": [{"name": "Acme", "plan": "pro", "keys": [{"name": "ci", "key": "svc_live_x"}]}]}`,
    `{"accounts": [{"name": "Acme", "plan": "pro", "extra": 1}]}`,
    `{"accounts": [{"name": " ", "plan": "pro"}]}`,
  ];
  for (const text of files) {
    let loads = true;
    try {
      parseFixture(text, "json");
    } catch {
      loads = false;
    }
    expect(validate(JSON.parse(text)), text).toBe(loads);
  }
});
