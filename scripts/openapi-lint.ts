/** Lints the OpenAPI description with Redocly's recommended rules (run by `npm test`). */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildOpenApi } from "../src/http/openapi.js";
import { ROUTES } from "../src/routes/index.js";
import { DEFAULT_CONFIG } from "../src/server/services.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "cs-openapi-"));
const file = path.join(dir, "openapi.json");
writeFileSync(file, JSON.stringify(buildOpenApi(ROUTES, DEFAULT_CONFIG), null, 2));
const bin = path.resolve(import.meta.dirname, "../node_modules/.bin/redocly");
const run = spawnSync(bin, ["lint", file, "--extends=recommended", "--format=summary"], {
  stdio: "inherit",
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
});
rmSync(dir, { recursive: true, force: true });
process.exit(run.status ?? 1);
