/**
 * `npm run bench:dashboard`: what the dashboard costs. For each of BENCH_RUNS cold starts (default 5) of the
 * executable (dist/content-service, or CS_EXECUTABLE; from source when there is none), it times the first render of
 * `/` in Debian's chromium (the sign-in form visible: the page, its script and styles read the first time), once as
 * soon as the server answers and once on a settled server, whose RSS it reads before and after. Prints the medians and writes JSON to
 * bench/results/dashboard-<timestamp>.json. The page's gzipped weight is printed by `npm run build:dashboard`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/browser/chromium.js";
import {
  executableRunner,
  haveExecutable,
  ROOT,
  type Runner,
  rssKb,
  type Served,
  serve,
  sourceRunner,
  stop,
} from "./lib/proc.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** How long after its start the server is left alone before its RSS is read. */
const SETTLE_MS = 5_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Opens `/` in a new page and answers the milliseconds until the sign-in form is visible. */
async function firstRender(browser: Browser, url: string): Promise<number> {
  const page = await browser.newPage();
  const started = performance.now();
  await page.goto(`${url}/`);
  await page.getByRole("heading", { name: "Sign in to content-service" }).waitFor();
  const ms = performance.now() - started;
  await page.close();
  return ms;
}

/** A server on a new data folder and chromium, for one measurement. */
async function withServer<T>(runner: Runner, measure: (browser: Browser, server: Served) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cs-bench-dashboard-"));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const server = await serve(runner, { dataDir: path.join(dir, "data"), logFile: path.join(dir, "serve.log") });
  try {
    return await measure(browser, server);
  } finally {
    await browser.close();
    await stop(server);
  }
}

/**
 * One cold start, twice: the page opened as soon as the server answers (while its worker threads still start), and
 * on a server left to settle, whose RSS is read before and after the page and its files were served.
 */
async function coldStart(runner: Runner) {
  const coldRenderMs = await withServer(runner, (browser, server) => firstRender(browser, server.url));
  return withServer(runner, async (browser, server) => {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const rssBeforeKb = rssKb(server.child.pid!);
    const settledRenderMs = await firstRender(browser, server.url);
    await new Promise((r) => setTimeout(r, 500));
    return {
      startMs: server.startMs,
      coldRenderMs,
      settledRenderMs,
      rssAddedKb: rssKb(server.child.pid!) - rssBeforeKb,
    };
  });
}

const runner = haveExecutable()
  ? executableRunner(mkdtempSync(path.join(os.tmpdir(), "cs-bench-cache-")))
  : sourceRunner();
const runs = [];
for (let i = 0; i < RUNS; i++) runs.push(await coldStart(runner));
const summary = {
  server: runner.kind,
  runs: RUNS,
  start_ms_median: Math.round(median(runs.map((r) => r.startMs))),
  cold_render_ms_median: Math.round(median(runs.map((r) => r.coldRenderMs))),
  cold_render_ms_max: Math.round(Math.max(...runs.map((r) => r.coldRenderMs))),
  settled_render_ms_median: Math.round(median(runs.map((r) => r.settledRenderMs))),
  rss_added_kib_median: median(runs.map((r) => r.rssAddedKb)),
};
console.log(JSON.stringify(summary, null, 2));
mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
const out = path.join(ROOT, `bench/results/dashboard-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(out, `${JSON.stringify({ summary, runs }, null, 2)}\n`);
console.log(`written to ${path.relative(ROOT, out)}`);
