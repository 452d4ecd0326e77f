/**
 * Builds the dashboard (src/dashboard/, Preact with Vite) into dist/dashboard/, which the server answers at / (and
 * `npm run build` embeds in the executable). First it generates the client's types from the served description
 * (scripts/dashboard-client.ts). It prints what the JavaScript and CSS weigh gzipped and fails past the budget.
 *
 * --if-stale builds only when the sources or the description changed since the last build (`npm start` and the browser
 * tests use it): a hash of both is kept beside the build, in dist/dashboard/.source-hash.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "vite";
import { writeDashboardTypes } from "./dashboard-client.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "src/dashboard");
const out = path.join(root, "dist/dashboard");
const hashFile = path.join(out, ".source-hash");

/** The most the page's JavaScript and CSS may weigh together, gzipped (issue 30). */
export const BUDGET_BYTES = 150 * 1024;

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });
}

/** A hash of every source file, the generated types among them (which follow the description). */
function sourceHash(): string {
  const hash = createHash("sha256");
  for (const file of filesUnder(source)) hash.update(path.relative(source, file)).update(readFileSync(file));
  return hash.digest("hex");
}

/** The gzipped size of the built JavaScript and CSS, in bytes. */
function gzippedSize(): { js: number; css: number } {
  const sizes = { js: 0, css: 0 };
  for (const file of filesUnder(path.join(out, "assets"))) {
    const kind = file.endsWith(".js") ? "js" : file.endsWith(".css") ? "css" : undefined;
    if (kind) sizes[kind] += gzipSync(readFileSync(file), { level: 9 }).length;
  }
  return sizes;
}

/**
 * Vite's production build, whatever NODE_ENV the caller runs under: vitest's global setup runs with NODE_ENV=test,
 * under which Preact's debug code stays in (154 KB of script, against 100 KB).
 */
async function productionBuild(): Promise<void> {
  const callers = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({ configFile: path.join(source, "vite.config.ts"), mode: "production", logLevel: "warn" });
  } finally {
    if (callers === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = callers;
  }
}

/** Builds the dashboard into dist/dashboard (with `ifStale`, only when its sources changed since the last build). */
export async function buildDashboard(options: { ifStale?: boolean } = {}): Promise<void> {
  await writeDashboardTypes();
  const hash = sourceHash();
  if (options.ifStale && existsSync(hashFile) && readFileSync(hashFile, "utf8") === hash) return;
  await productionBuild();
  writeFileSync(hashFile, hash);
  const { js, css } = gzippedSize();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `dashboard: ${path.relative(root, out)}, ${kb(js + css)} gzipped (JS ${kb(js)}, CSS ${kb(css)}; budget ${kb(BUDGET_BYTES)})`,
  );
  if (js + css > BUDGET_BYTES)
    throw new Error(`the dashboard weighs ${kb(js + css)} gzipped, past its ${kb(BUDGET_BYTES)} budget`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await buildDashboard({ ifStale: process.argv.includes("--if-stale") });
  } catch (error) {
    console.error(`build-dashboard: ${(error as Error).message}`);
    process.exit(1);
  }
}
