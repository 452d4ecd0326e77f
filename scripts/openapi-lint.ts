/** Lints the OpenAPI descriptions, the public and the internal one, with Redocly's recommended rules (`npm test`). */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildOpenApi } from "../src/http/openapi.js";
import { ROUTES } from "../src/routes/index.js";
import { DEFAULT_CONFIG } from "../src/server/services.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "cs-openapi-"));
const files = [false, true].map((internal) => {
  const file = path.join(dir, internal ? "openapi-internal.json" : "openapi.json");
  writeFileSync(file, JSON.stringify(buildOpenApi(ROUTES, DEFAULT_CONFIG, { internal }), null, 2));
  return file;
});
const bin = path.resolve(import.meta.dirname, "../node_modules/.bin/redocly");
const run = spawnSync(bin, ["lint", ...files, "--extends=recommended", "--format=summary"], {
  stdio: "inherit",
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
});
rmSync(dir, { recursive: true, force: true });
process.exit(run.status ?? 1);
