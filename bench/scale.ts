/**
 * `npm run bench:scale` (issue 33 points 3 and 4): grows a data directory through the public API to 1,000, 10,000
 * and 100,000 contents with a tenth as many reference materials (lib/scale-grow.ts, texts of lib/corpus.ts) and, at
 * each step, measures every list with each of its filters, a content and a reference by id, the knowledge graph's
 * reads (cold: after a deletion that invalidates it; warm: the same read again), usage, voice profiles, generate and
 * finalize (p50 / p99 of BENCH_SCALE_SAMPLES sequential requests, 100), the request thread's longest stall during
 * each read's requests (GET /metrics' event-loop delay, beyond its 10 ms timer), the entities the sources hold, the
 * database's size, the idle RSS (after a quiet second, and after 15 s), a backup's time (the CLI's) and the start time
 * (the median of three restarts). Prints a Markdown table with the growth from the first step to the last and the
 * targets (lib/scale-table.ts), and writes JSON to bench/results/scale-<timestamp>.json.
 *
 * Environment: BENCH_SCALE_MAX (the last step, 100000: 10000 stops after the second), BENCH_SCALE_CONCURRENCY
 * (growth's concurrent requests, 16), BENCH_SCALE_SAMPLES (100), BENCH_KEEP=1 (keep the data directory), CS_EXECUTABLE
 * (the server is the built executable when there is one, else the source tree through tsx).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { extractGraph } from "../src/domain/graph-extract.js";
import { document, person, zipfRank } from "./lib/corpus.js";
import {
  executableRunner,
  haveExecutable,
  prepareDataDir,
  ROOT,
  type Runner,
  rssKb,
  runCli,
  type Served,
  sendJson,
  serve,
  sourceRunner,
  stop,
} from "./lib/proc.js";
import { type GraphSource, Grower } from "./lib/scale-grow.js";
import { type Figure, fmt, growth, markdown, misses, percentiles, type Row, type RowKind } from "./lib/scale-table.js";
import { prng } from "./lib/text.js";

const env = process.env;
const num = (name: string, fallback: number) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
const MAX = num("BENCH_SCALE_MAX", 100_000);
const STEPS = [...[1_000, 10_000, 100_000].filter((s) => s < MAX), MAX];
const CONCURRENCY = num("BENCH_SCALE_CONCURRENCY", 16);
const SAMPLES = num("BENCH_SCALE_SAMPLES", 100);
/** Cold knowledge-graph reads per step: each follows a deletion, and at scale each takes long. */
const COLD_SAMPLES = 8;
/** prom-client's event-loop monitor's timer (eventLoopMonitoringPrecision): its delays include it. */
const MONITOR_MS = 10;
const GRAPH_WAIT_MS = 20 * 60_000;
/** The quiet before the second idle RSS. */
const QUIET_MS = 15_000;

const log = (s: string) => process.stderr.write(`[scale] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The figures of one step, by row name. */
type StepFigures = Map<string, { kind: RowKind; unit: string; figure: Figure }>;

class Step {
  readonly figures: StepFigures = new Map();
  constructor(
    readonly served: Served,
    readonly key: string,
  ) {}

  set(name: string, kind: RowKind, unit: string, figure: Figure): void {
    this.figures.set(name, { kind, unit, figure });
    const p99 = figure.p99 === undefined ? "" : ` p99 ${fmt(figure.p99)}`;
    const stall = figure.stallMs === undefined ? "" : ` stall ${fmt(figure.stallMs)} ms`;
    log(`  ${name}: ${fmt(figure.p50)}${p99} ${unit}${stall}`);
  }

  /** The longest event-loop delay since the last scrape, beyond the monitor's timer, ms (scraping resets it). */
  async stall(): Promise<number> {
    const res = await fetch(`${this.served.url}/metrics`);
    const m = /^content_service_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(await res.text());
    return m ? Math.max(0, Number(m[1]) * 1000 - MONITOR_MS) : Number.NaN;
  }

  /** Times `n` sequential requests made by `send` (after two unmeasured), each expected to answer 2xx. */
  async time(name: string, kind: RowKind, n: number, send: (i: number) => Promise<number>): Promise<void> {
    for (let i = 0; i < 2 && kind === "read"; i++) await send(-1 - i);
    await this.stall();
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const status = await send(i);
      samples.push(performance.now() - t);
      if (status < 200 || status >= 300) throw new Error(`${name}: answered ${status}`);
    }
    this.set(name, kind, "ms", { ...percentiles(samples), stallMs: await this.stall() });
  }

  get = (pathAndQuery: string) => async () =>
    (await sendJson(`${this.served.url}/api/v1${pathAndQuery}`, "GET", this.key)).status;
}

/** Matches the planned range is sized to hold at every step: two pages of 20, so that each step reads a full page. */
const PLANNED_MATCHES = 40;

/**
 * Days of a planned range expected to hold PLANNED_MATCHES of `contents` (one in 10 planned, spread over 1,461 days:
 * scale-grow.ts plannedDay). A fixed week held no match at 1,000 contents and a full page at 100,000: its growth
 * measured the page filling up, not the filter's cost, which issue 33 asks to be bounded by the page.
 */
function plannedRangeDays(contents: number): number {
  const perDay = contents / 10 / 1461;
  return Math.max(1, Math.ceil(PLANNED_MATCHES / perDay));
}

/** The lists and their filters, as their routes offer them (src/routes/*.ts ListQuery). */
function listReads(today: string, contentId: number, contents: number): [string, string][] {
  const day = (offset: number) => new Date(Date.parse(today) + offset * 86_400_000).toISOString().slice(0, 10);
  const rangeDays = plannedRangeDays(contents);
  return [
    ["GET /contents", "/contents?limit=20"],
    ...["draft", "generated", "finalized", "published"].map((s): [string, string] => [
      `GET /contents?status=${s}`,
      `/contents?limit=20&status=${s}`,
    ]),
    [
      `GET /contents?planned_from&planned_to (a range of ~${PLANNED_MATCHES} matches)`,
      `/contents?limit=20&planned_from=${day(30)}&planned_to=${day(30 + rangeDays - 1)}`,
    ],
    ["GET /contents?planned_from (from in a year)", `/contents?limit=20&planned_from=${day(365)}`],
    ["GET /contents?overdue=true", "/contents?limit=20&overdue=true"],
    ["GET /contents?overdue=false", "/contents?limit=20&overdue=false"],
    ["GET /contents?status=finalized&overdue=true", "/contents?limit=20&status=finalized&overdue=true"],
    ["GET /reference-materials", "/reference-materials?limit=20"],
    ["GET /conversions", "/conversions?limit=20"],
    ["GET /conversions?content_id", `/conversions?limit=20&content_id=${contentId}`],
    ["GET /memories", "/memories?limit=20"],
    ["GET /memories?kind=voice", "/memories?limit=20&kind=voice"],
    ["GET /images", "/images?limit=20"],
    ["GET /images?source=generated", "/images?limit=20&source=generated"],
    ["GET /templates", "/templates?limit=20"],
    ["GET /templates?category=blog", "/templates?limit=20&category=blog"],
    ["GET /templates?q=post", "/templates?limit=20&q=post"],
    ["GET /workspaces", "/workspaces?limit=20"],
  ];
}

/** Waits until the knowledge graph has taken in every source (pending_sources 0); false when it has not in time. */
async function graphCaughtUp(step: Step): Promise<boolean> {
  const until = Date.now() + GRAPH_WAIT_MS;
  let last = -1;
  for (;;) {
    const r = await sendJson(`${step.served.url}/api/v1/knowledge-graph?limit=1`, "GET", step.key);
    const pending = r.body?.pending_sources;
    if (pending === 0) return true;
    if (Date.now() > until) return false;
    if (pending !== last) log(`  knowledge graph: ${pending} sources pending`);
    last = pending;
    await sleep(2_000);
  }
}

/** Distinct entities of the sources sent so far (their extraction, as the graph does it, merged by id). */
function countEntities(sources: GraphSource[], seen: Set<string>): number {
  for (const s of sources)
    for (const e of extractGraph({ text: document(s.words, s.seed), format: s.format }).entities) seen.add(e.id);
  return seen.size;
}

const fileSizeMiB = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.(db|sqlite)(-wal)?$/.test(f))
    .reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0) / 1048576;

async function measure(
  step: Step,
  ctx: { runner: Runner; dataDir: string; tmp: string; ids: number[]; contents: number },
) {
  const { served } = step;
  const ids = ctx.ids;
  const today = new Date().toISOString().slice(0, 10);
  await step.stall();
  await sleep(2_000);
  step.set("no request, 2 s quiet (the stall floor)", "count", "ms", { p50: Number.NaN, stallMs: await step.stall() });
  const converted = await sendJson(`${served.url}/api/v1/conversions?limit=1`, "GET", step.key);
  const convertedId = converted.body?.data?.[0]?.content_id ?? ids[0];
  for (const [name, query] of listReads(today, convertedId, ctx.contents))
    await step.time(name, "read", SAMPLES, step.get(query));
  await step.time("GET /contents/{id}", "read", SAMPLES, (i) =>
    step.get(`/contents/${ids[(i + ids.length) % ids.length]}`)(),
  );
  const refs = await sendJson(`${served.url}/api/v1/reference-materials?limit=50`, "GET", step.key);
  const refIds: number[] = (refs.body?.data ?? []).map((r: { id: number }) => r.id);
  await step.time("GET /reference-materials/{id}", "read", SAMPLES, (i) =>
    step.get(`/reference-materials/${refIds[(i + refIds.length) % refIds.length]}`)(),
  );
  await step.time("GET /usage", "read", SAMPLES, step.get("/usage"));
  await step.time("GET /voice-profiles", "read", SAMPLES, step.get("/voice-profiles"));
  await graphReads(step);
  // Writes: generate, then finalize what was generated.
  const generated: number[] = [];
  await step.time("POST /generate", "write", SAMPLES, async (i) => {
    const r = await sendJson(`${served.url}/api/v1/generate`, "POST", step.key, {
      template_id: 1,
      user_direction: `A measured generation ${i}`,
      seed: 900_000 + i,
    });
    generated.push(r.body?.content_id);
    return r.status;
  });
  await step.time("POST /finalizeContent", "write", SAMPLES, async (i) => {
    const r = await sendJson(`${served.url}/api/v1/finalizeContent`, "POST", step.key, {
      content_id: generated[i],
      finalized_content: document(300, 800_000 + generated[i]),
      edit_seconds: 60,
    });
    return r.status;
  });
}

/** The knowledge graph's reads: cold (each after a reference's deletion, which changes the graph) and warm. */
async function graphReads(step: Step): Promise<void> {
  const { served, key } = step;
  const doomed: number[] = [];
  for (let i = 0; i < 2 * COLD_SAMPLES; i++) {
    const r = await sendJson(`${served.url}/api/v1/reference-materials`, "POST", key, {
      title: `Doomed ${i}`,
      content: document(100, 20_000_000 + i),
      format: "text",
    });
    doomed.push(r.body.id);
  }
  await graphCaughtUp(step);
  const cold = (query: string) => async () => {
    await sendJson(`${served.url}/api/v1/reference-materials/${doomed.pop()}`, "DELETE", key);
    return step.get(query)();
  };
  const top = person(zipfRank(prng(1), 10));
  await step.time("GET /knowledge-graph (cold)", "read", COLD_SAMPLES, cold("/knowledge-graph"));
  await step.time("GET /knowledge-graph (warm)", "read", SAMPLES, step.get("/knowledge-graph"));
  await step.time(
    "GET /knowledge-graph/entities?q=a (cold)",
    "read",
    COLD_SAMPLES,
    cold("/knowledge-graph/entities?q=a"),
  );
  await step.time(
    "GET /knowledge-graph/entities?q=a (warm)",
    "read",
    SAMPLES,
    step.get("/knowledge-graph/entities?q=a"),
  );
  const q = encodeURIComponent(top.split(" ")[0].toLowerCase());
  await step.time(
    `GET /knowledge-graph/entities?q=<a name> (warm)`,
    "read",
    SAMPLES,
    step.get(`/knowledge-graph/entities?q=${q}`),
  );
}

async function main(): Promise<void> {
  const runner = haveExecutable() ? executableRunner() : sourceRunner();
  const tmp = mkdtempSync(path.join(os.tmpdir(), "cs-bench-scale-"));
  const dataDir = path.join(tmp, "data");
  const logFile = path.join(tmp, "server.log");
  const { key } = prepareDataDir(runner, dataDir);
  let served = await serve(runner, { dataDir, logFile });
  const steps: { contents: number; figures: StepFigures; writes: number; writesPerSecond: number; errors: number }[] =
    [];
  const entities = new Set<string>();
  const ids: number[] = [];
  const started = new Date();
  try {
    for (const kind of ["voice", "context"])
      for (let i = 0; i < 10; i++)
        await sendJson(`${served.url}/api/v1/memories`, "POST", key, { kind, content: document(60, 30_000_000 + i) });
    let done = 0;
    for (const target of STEPS) {
      log(`step ${target.toLocaleString("en-US")}: growing from ${done.toLocaleString("en-US")}`);
      const grown = await new Grower(served.url, key).grow(done, target, CONCURRENCY, `step ${target}`);
      done = target;
      ids.push(...grown.sampleIds);
      const rate = grown.writes / grown.seconds;
      log(
        `step ${target}: ${grown.writes} writes in ${grown.seconds.toFixed(0)} s (${rate.toFixed(0)}/s), ${grown.errors} errors`,
      );
      const step = new Step(served, key);
      const caught = await graphCaughtUp(step);
      if (!caught) log(`  the knowledge graph had not caught up after ${GRAPH_WAIT_MS / 60_000} min`);
      step.set("entities in the sources", "count", "", { p50: countEntities(grown.sources, entities) });
      await measure(step, { runner, dataDir, tmp, ids, contents: target });
      await sleep(1_000);
      step.set("idle RSS after the step", "rss", "MiB", { p50: rssKb(served.child.pid!) / 1024 });
      // Past the idle threads' end and two of the idle collectors' checks (workers/pool.ts, runtime/idle-gc.ts).
      await sleep(QUIET_MS - 1_000);
      step.set(`idle RSS ${QUIET_MS / 1000} s after the step`, "rss", "MiB", { p50: rssKb(served.child.pid!) / 1024 });
      step.set("database size", "linear", "MiB", { p50: fileSizeMiB(dataDir) });
      const out = path.join(tmp, "backup.db");
      const t = performance.now();
      runCli(runner, ["backup", "--data-dir", dataDir, "--out", out]);
      step.set("backup (CLI)", "linear", "ms", { p50: performance.now() - t });
      rmSync(out, { force: true });
      const starts: number[] = [];
      for (let i = 0; i < 3; i++) {
        await stop(served);
        served = await serve(runner, { dataDir, logFile });
        starts.push(served.startMs);
      }
      step.set("start (spawn to first 200)", "linear", "ms", { p50: percentiles(starts).p50 });
      steps.push({
        contents: target,
        figures: step.figures,
        writes: grown.writes,
        writesPerSecond: rate,
        errors: grown.errors,
      });
    }
  } finally {
    await stop(served);
    if (env.BENCH_KEEP === "1") log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
  report(runner, started, steps);
}

function report(
  runner: Runner,
  started: Date,
  steps: { contents: number; figures: StepFigures; writes: number; writesPerSecond: number; errors: number }[],
): void {
  const names = [...new Set(steps.flatMap((s) => [...s.figures.keys()]))];
  const rows: Row[] = names.map((name) => {
    const any = steps.map((s) => s.figures.get(name)).find(Boolean)!;
    return { name, kind: any.kind, unit: any.unit, steps: steps.map((s) => s.figures.get(name)?.figure) };
  });
  const sizes = STEPS.map((s) => s.toLocaleString("en-US"));
  const lines = [
    `server: ${runner.kind}; ${os.cpus().length} CPUs; steps ${sizes.join(", ")} contents (a tenth as many references); ` +
      `${SAMPLES} requests per read (${COLD_SAMPLES} cold); cells p50 / p99`,
    `growth: ${steps.map((s) => `${s.writes} writes at ${s.writesPerSecond.toFixed(0)}/s, ${s.errors} errors`).join("; ")}`,
    "",
    ...markdown(STEPS, rows),
  ];
  const failures = rows.flatMap((r) => misses(r).map((m) => `${r.name}: ${m}`));
  lines.push("", failures.length === 0 ? "targets: all met" : `targets missed:\n- ${failures.join("\n- ")}`);
  console.log(lines.join("\n"));
  const dir = path.join(ROOT, "bench/results");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `scale-${started.toISOString().replace(/[:.]/g, "-")}.json`);
  const growths = Object.fromEntries(rows.map((r) => [r.name, growth(r)]));
  writeFileSync(
    file,
    `${JSON.stringify({ runner: runner.kind, steps: STEPS, samples: SAMPLES, rows, growths, growthRuns: steps.map(({ figures: _, ...s }) => s), table: lines, failures }, null, 2)}\n`,
  );
  console.log(`\nwrote ${path.relative(ROOT, file)}`);
}

await main();
