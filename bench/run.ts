/**
 * `npm run bench`: loads the built executable (dist/content-service; this script builds nothing) and a bare
 * node:http baseline in turn, in the same run, with autocannon (fixed connections and duration), and reports
 * requests/s, p50 and p99 of each scenario with its ratio to the baseline, the p99 of a GET probe (evenly spaced
 * requests: lib/load.ts pacedLoad) with and without a finalize load, start to first 200, and RSS idle and under load.
 * For scale it also sends the same probe to the baseline, quiet and while a busy loop runs on every CPU (one run
 * each): how much of the probe's tail the machine makes by itself; and to the service beside finalizations sent
 * evenly at a quarter of the closed-loop rate of a 2 s calibration, a load that leaves the CPUs more room. Prints a
 * Markdown table, writes JSON to bench/results/<timestamp>.json, then checks the targets (exit 1 when one fails;
 * BENCH_NO_FAIL=1 exits 0). Then the GET, generate and finalize loads again on PostgreSQL, one server and two, with
 * their ratios to SQLite's (lib/postgres-rows.ts; skipped with the reason when no server is named).
 *
 * Environment: BENCH_DURATION (s per scenario, 8), BENCH_CONNECTIONS (10), BENCH_ROUNDS (rounds of baseline and
 * GETs, medians reported, 3), BENCH_START_RUNS (7), BENCH_PROBE_RATE (GET probe req/s, 200), BENCH_WORKERS (the
 * server's --workers; its default when unset), BENCH_BASELINE_NODE (the baseline's Node binary; default the Node
 * the executable embeds when the build cache holds it, else this Node), BENCH_ONLY=get (start, baseline and GETs)
 * or BENCH_ONLY=probe (the GET probe alone, beside paced finalizations and beside the closed-loop finalize load),
 * BENCH_PACED_RATE (the paced finalizations' requests/s instead of a quarter of the calibration's), CS_EXECUTABLE
 * (another build to load), BENCH_FINALIZE_POOL_MAX (most contents generated ahead for the finalize loads, 24,000: a
 * load that runs out reuses finalized ones, whose 409s the table counts as non-2xx), BENCH_SERVER_NODE_OPTIONS
 * (NODE_OPTIONS for the server alone, such as `--cpu-prof --cpu-prof-dir=DIR`; the executable's own options,
 * build.config.ts SEA_EXEC_ARGV, are read after it and win), BENCH_KEEP=1 (keep the run's data directory and server
 * log), CONTENT_SERVICE_BENCH_DATABASE_URL (else CONTENT_SERVICE_TEST_DATABASE_URL: the PostgreSQL server the
 * bench creates its own database on).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type autocannon from "autocannon";
import { openDb } from "../src/db/open.js";
import { type Load, load, loadInChild, pacedLoad } from "./lib/load.js";
import { benchPostgres, type PostgresFigures, type PostgresRun } from "./lib/postgres-rows.js";
import {
  ANALYSES_PER_ACCOUNT,
  BENCH_DIRECTION,
  benchReferences,
  EXECUTABLE,
  executableRunner,
  extraAccount,
  freePort,
  generateRequests,
  haveExecutable,
  prepareDataDir,
  ROOT,
  rssKb,
  rssSampler,
  type Served,
  sendJson,
  serve,
  stop,
} from "./lib/proc.js";
import { finalText, words } from "./lib/text.js";

const env = process.env;
const num = (name: string, fallback: number) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const DURATION = num("BENCH_DURATION", 8);
const CONNECTIONS = num("BENCH_CONNECTIONS", 10);
const ROUNDS = num("BENCH_ROUNDS", 3);
const START_RUNS = num("BENCH_START_RUNS", 7);
const PROBE_RATE = num("BENCH_PROBE_RATE", 200);
const WORKERS = env.BENCH_WORKERS ? num("BENCH_WORKERS", 1) : undefined;
/** At most this many contents are generated ahead for finalize (beyond it requests reuse ids and answer 409). */
const POOL_MAX = num("BENCH_FINALIZE_POOL_MAX", 24_000);
const ONLY_GET = env.BENCH_ONLY === "get";
const ONLY_PROBE = env.BENCH_ONLY === "probe";

/** The tracker issue's targets. */
const TARGETS = { getRatio: 0.5, probeP99Ratio: 2, startMs: 300 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fixed = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "–");
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The baseline's Node: the one the executable embeds (same runtime, so the ratio measures the service's own work). */
function baselineNode(): string {
  if (env.BENCH_BASELINE_NODE) return env.BENCH_BASELINE_NODE;
  const dir = path.join(ROOT, ".build-cache/node");
  if (existsSync(dir))
    for (const version of readdirSync(dir).sort().reverse())
      for (const name of ["node-stripped", "bin/node"]) {
        const candidate = path.join(dir, version, name);
        if (existsSync(candidate)) return candidate;
      }
  return process.execPath;
}

/** The bare node:http server in its own process, like the service. */
async function startBaseline(bodyFile: string) {
  const port = await freePort();
  const node = baselineNode();
  const child = spawn(node, [path.join(ROOT, "bench/baseline.mjs"), String(port), bodyFile], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...env, NODE_OPTIONS: "" },
  });
  const version = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (d) => resolve(String(d).replace("listening ", "").trim()));
    child.once("exit", () => reject(new Error("the baseline server exited")));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    version,
    node,
    pid: child.pid!,
    async close() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/**
 * A busy loop (a process doing nothing but spin) on each of `count` CPUs, at normal priority, until stop(). Each
 * loop also ends by itself after `seconds`, so that none outlives a bench that was killed.
 */
function busyLoops(count: number, seconds: number) {
  const code = `const end = Date.now() + ${Math.ceil(seconds * 1000)}; while (Date.now() < end) {}`;
  const children = Array.from({ length: count }, () => {
    const child = spawn(baselineNode(), ["-e", code], { stdio: "ignore", env: { ...env, NODE_OPTIONS: "" } });
    child.on("error", (e) => log(`a busy loop failed to start: ${e.message}`));
    return child;
  });
  return {
    count,
    async stop() {
      await Promise.all(
        children.map((c) => {
          if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) return undefined;
          const exited = new Promise((r) => c.once("exit", r));
          c.kill("SIGKILL");
          return exited;
        }),
      );
    },
  };
}

/** Learning jobs by status, read from the database (read-only, beside the running server). */
function learningStatus(dataDir: string): Record<string, number> {
  const db = openDb(dataDir, { readonly: true });
  try {
    const rows = db.prepare("SELECT status, count(*) AS n FROM learning_jobs GROUP BY status").all() as {
      status: string;
      n: number;
    }[];
    const failed = db.prepare("SELECT DISTINCT error FROM learning_jobs WHERE status = 'failed' LIMIT 3").pluck().all();
    for (const error of failed) log(`a learning job failed: ${String(error)}`);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    db.close();
  }
}

function table(rows: string[][]): string {
  const [head, ...body] = rows;
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...body.map((r) => `| ${r.join(" | ")} |`)]
    .join("\n")
    .concat("\n");
}

/** SQLite's loads of the same run, the PostgreSQL rows' reference. */
interface SqliteLoads {
  get: Load;
  generate?: Load;
  finalize?: Load;
}

/** A PostgreSQL run's requests/s divided by SQLite's, scenario by scenario. */
function ratiosToSqlite(run: PostgresRun, sqlite: SqliteLoads): Record<string, number | null> {
  const ratio = (pg?: Load, lite?: Load) => (pg && lite ? pg.rps / lite.rps : null);
  return {
    get: ratio(run.get, sqlite.get),
    generate: ratio(run.generate, sqlite.generate),
    finalize: ratio(run.finalize, sqlite.finalize),
  };
}

/** The PostgreSQL rows as a table beside SQLite's, or the line saying why they were skipped. */
function postgresTable(postgres: PostgresFigures, sqlite: SqliteLoads, baseline: Load): string {
  if ("skipped" in postgres) return `\nPostgreSQL rows skipped: ${postgres.skipped}.\n`;
  const rows = [["on PostgreSQL", "servers", "req/s", "p50 ms", "p99 ms", "÷ SQLite", "÷ baseline", "non-2xx"]];
  for (const run of postgres.runs)
    for (const [x, lite] of [
      [run.get, sqlite.get],
      [run.generate, sqlite.generate],
      [run.finalize, sqlite.finalize],
    ] as const)
      if (x)
        rows.push([
          x.name,
          String(run.servers),
          fixed(x.rps, 0),
          fixed(x.p50),
          fixed(x.p99),
          lite ? fixed(x.rps / lite.rps) : "–",
          fixed(x.rps / baseline.rps, 3),
          String(x.non2xx),
        ]);
  const head = `\nPostgreSQL (${postgres.server}; two servers: each takes half the connections, p50 and p99 are the slower one's):\n\n`;
  const pools = postgres.runs
    .filter((run) => run.finalize)
    .map(
      (run) =>
        `${run.servers} server(s): ${run.pool.made} generated ahead, ${run.pool.refused} generations refused, ` +
        `${run.pool.exhausted} finalizations past the pool`,
    );
  return head + table(rows) + (pools.length ? `\nFinalize pools: ${pools.join("; ")}.\n` : "");
}

async function main(): Promise<number> {
  if (!haveExecutable()) {
    process.stderr.write(
      `bench: ${EXECUTABLE} is missing; run \`npm run build\` first (this script builds nothing).\n`,
    );
    return 2;
  }
  const startedAt = new Date();
  const tmp = mkdtempSync(path.join(os.tmpdir(), "cs-bench-"));
  let finished = false;
  let keep = false;
  const dataDir = path.join(tmp, "data");
  const logFile = path.join(tmp, "server.log");
  const runner = executableRunner(path.join(tmp, "asset-cache"));
  let server: Served | undefined;
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  try {
    log(`temp dir ${tmp}; ${os.cpus().length} CPUs; load average ${os.loadavg().map((x) => x.toFixed(2))}`);
    const { key } = prepareDataDir(runner, dataDir);
    const auth = { authorization: `Bearer ${key}` };
    const serveArgs = {
      ...(WORKERS ? { workers: WORKERS } : {}),
      ...(env.BENCH_SERVER_NODE_OPTIONS ? { nodeOptions: env.BENCH_SERVER_NODE_OPTIONS } : {}),
    };
    const ready = { readyPath: "/api/v1/api-keys/current", headers: auth };

    // Start to the first 200 of an authenticated GET. The first start also writes the addon and worker bundle to
    // the (empty) asset cache: reported apart as the cold start.
    log(`start to first 200: ${START_RUNS + 1} starts`);
    const starts: number[] = [];
    let coldStartMs = 0;
    for (let i = 0; i <= START_RUNS; i++) {
      const s = await serve(runner, { dataDir, logFile, ...serveArgs, ...ready });
      if (i === 0) coldStartMs = s.startMs;
      else starts.push(s.startMs);
      await stop(s);
    }

    server = await serve(runner, { dataDir, logFile, ...serveArgs, ...ready });
    const base = server.url;
    const pid = server.child.pid!;
    await sleep(2_000);
    const rssIdleKb = rssKb(pid);

    // Fixtures: three references of 2,000 words and one generated content to read.
    log("creating fixtures");
    const refs = await benchReferences(base, key);
    const direction = BENCH_DIRECTION;
    const first = await sendJson(`${base}/api/v1/generate`, "POST", key, {
      template_id: 1,
      user_direction: direction,
      reference_material_ids: refs,
      seed: 1,
    });
    if (first.status !== 201) throw new Error(`generate: ${first.status} ${JSON.stringify(first.body)}`);
    const contentId = first.body.content_id as number;
    const current = await sendJson(`${base}/api/v1/api-keys/current`, "GET", key);
    const bodyFile = path.join(tmp, "baseline-body.json");
    writeFileSync(bodyFile, JSON.stringify(current.body));

    baseline = await startBaseline(bodyFile);
    log(`baseline: bare node:http on Node ${baseline.version} (${baseline.node})`);

    const rss = rssSampler(pid);
    let rssReadsKb = 0;
    let rssWrites: ReturnType<typeof rssSampler> | undefined;
    const fixedLoad = { connections: CONNECTIONS, duration: DURATION };
    const rounds: { baseline: Load; current: Load; content: Load }[] = [];
    for (let r = 0; r < (ONLY_PROBE ? 1 : ROUNDS); r++) {
      log(`round ${r + 1}/${ROUNDS}: baseline, GET /api-keys/current, GET /contents/{id}`);
      rounds.push({
        baseline: await load("baseline (bare node:http)", { ...fixedLoad, url: `${baseline.url}/` }),
        current: await load("GET /api-keys/current", {
          ...fixedLoad,
          url: `${base}/api/v1/api-keys/current`,
          headers: auth,
        }),
        content: await load("GET /contents/{id}", {
          ...fixedLoad,
          url: `${base}/api/v1/contents/${contentId}`,
          headers: auth,
        }),
      });
    }
    // The machine's own share of the probe's tail: the probe sent to the bare baseline, quiet and while a busy loop
    // runs on every CPU. Where that alone doubles the p99, a load that fills the CPUs does so to any server.
    let machine: { quiet: Load; busy: Load; loops: number } | undefined;
    if (!ONLY_GET) {
      const url = `${baseline.url}/`;
      const refProbe = (name: string) =>
        loadInChild(name, { url, connections: 2, rate: PROBE_RATE, duration: DURATION });
      log(`machine reference: the GET probe against the baseline, quiet, then with a busy loop on each CPU`);
      const quiet = await (await refProbe("baseline probe, quiet")).start();
      const ready = await refProbe("baseline probe, busy loops");
      const loops = busyLoops(os.cpus().length, DURATION + 30);
      try {
        await sleep(300);
        machine = { quiet, busy: await ready.start(), loops: loops.count };
      } finally {
        await loops.stop();
      }
    }
    await baseline.close();
    baseline = undefined;
    const pick = (which: "baseline" | "current" | "content"): Load => {
      const all = rounds.map((x) => x[which]);
      return {
        name: all[0].name,
        rps: median(all.map((x) => x.rps)),
        p50: median(all.map((x) => x.p50)),
        p99: median(all.map((x) => x.p99)),
        requests: all.reduce((s, x) => s + x.requests, 0),
        non2xx: all.reduce((s, x) => s + x.non2xx, 0),
        errors: all.reduce((s, x) => s + x.errors, 0),
        timeouts: all.reduce((s, x) => s + x.timeouts, 0),
      };
    };
    const b = pick("baseline");
    const cur = pick("current");
    const content = pick("content");

    let generate: Load | undefined;
    let finalize: Load | undefined;
    let probeAlone: Load | undefined;
    let probeLoaded: Load | undefined;
    let finalizeUnderProbe: Load | undefined;
    let probePaced: Load | undefined;
    let finalizePaced: Load | undefined;
    let pacedRate = 0;
    const poolInfo = { made: 0, used: 0, exhausted: 0, accounts: 1 };
    if (!ONLY_GET) {
      // The GET probe: a fixed rate on 2 connections, on a quiet server first. Measured from a process of its own,
      // so that the finalize load's client work (30 KB bodies built and collected) is not counted as the server's.
      const probe = () =>
        loadInChild("GET /contents/{id} probe", {
          url: `${base}/api/v1/contents/${contentId}`,
          headers: auth,
          connections: 2,
          rate: PROBE_RATE,
          duration: DURATION,
        });
      log(`GET probe alone (${PROBE_RATE} req/s)`);
      probeAlone = await (await probe()).start();
      rssReadsKb = rss.stop();
      rssWrites = rssSampler(pid);

      let seed = 1000;
      if (!ONLY_PROBE) log("POST /generate: template 1 with three 2,000-word references");
      if (!ONLY_PROBE)
        generate = await load("POST /generate", {
          ...fixedLoad,
          url: `${base}/api/v1/generate`,
          headers: { ...auth, "content-type": "application/json" },
          requests: generateRequests(refs, () => seed++),
        });

      // Finalize needs a generated content per request: a pool made ahead, sized by a short calibration, spread
      // over accounts so that every finalization gets its learning job (each account has a monthly quota).
      const keys = [key];
      const pool: { id: number; text: string; key: string }[] = [];
      let queued = 0;
      const fill = async (count: number) => {
        const wanted = pool.length + count;
        const worker = async () => {
          while (queued < wanted) {
            const n = queued++;
            const owner = keys[Math.floor(n / ANALYSES_PER_ACCOUNT)] ?? keys[keys.length - 1];
            const r = await sendJson(`${base}/api/v1/generate`, "POST", owner, {
              template_id: 1,
              user_direction: direction,
              seed: seed++,
            });
            if (r.status !== 201) throw new Error(`generate: ${r.status} ${JSON.stringify(r.body)}`);
            pool.push({ id: r.body.content_id, text: r.body.content, key: owner });
          }
        };
        await Promise.all(Array.from({ length: 16 }, worker));
      };
      const fillerWords = words(5000, 7).split(/\s+/);
      let taken = 0;
      let exhausted = 0;
      /** The writer's final text: the generated text with a few words changed, grown to 5,000 words. */
      const nextFinalization = () => {
        let item = pool[taken++];
        if (!item) {
          exhausted++;
          item = pool[taken % pool.length];
        }
        return {
          headers: { authorization: `Bearer ${item.key}` },
          body: JSON.stringify({
            content_id: item.id,
            finalized_content: finalText(item.id, item.text, fillerWords),
            edit_seconds: 300,
          }),
        };
      };
      const finalizeRequest = (req: autocannon.Request) => {
        const { headers, body } = nextFinalization();
        return { ...req, headers: { ...req.headers, ...headers }, body };
      };
      const finalizeLoad = (duration: number) =>
        load("POST /finalizeContent", {
          connections: CONNECTIONS,
          duration,
          url: `${base}/api/v1/finalizeContent`,
          headers: { "content-type": "application/json" },
          requests: [
            {
              method: "POST",
              setupRequest: finalizeRequest,
            } as autocannon.Request,
          ],
        });
      /** Finalizations sent evenly at `rate`/s (on at most CONNECTIONS connections), not as fast as answered. */
      const pacedFinalizeLoad = (rate: number) =>
        pacedLoad(`POST /finalizeContent at ${rate}/s`, {
          url: `${base}/api/v1/finalizeContent`,
          headers: { "content-type": "application/json" },
          next: nextFinalization,
          connections: CONNECTIONS,
          rate,
          duration: DURATION,
        });
      log("calibrating POST /finalizeContent (2 s)");
      await fill(250);
      const calibration = await finalizeLoad(2);
      const needed = Math.min(POOL_MAX, Math.ceil(calibration.rps * DURATION * 1.2 * 2.5) + 100);
      const accounts = Math.ceil((taken + needed) / ANALYSES_PER_ACCOUNT);
      for (let n = keys.length; n < accounts; n++) keys.push(extraAccount(runner, dataDir, n + 1));
      log(`finalize ≈ ${Math.round(calibration.rps)}/s: generating ${needed} contents over ${keys.length} account(s)`);
      await fill(Math.max(0, taken + needed - pool.length));

      // For scale (no target), first, while the learning backlog is only the calibration's: the probe beside
      // finalizations sent evenly at a quarter of the calibration's closed-loop rate, a load that leaves the CPUs
      // more room than the closed-loop one (README "Performance"). Then the probe's target, beside the closed-loop
      // load; then finalize alone.
      pacedRate = env.BENCH_PACED_RATE ? num("BENCH_PACED_RATE", 1) : Math.max(1, Math.round(calibration.rps / 4));
      log(`GET probe (${PROBE_RATE} req/s) during a finalize load paced to ${pacedRate}/s`);
      // The probe's process is loaded first, so that both loads start together.
      const pacedProbe = await probe();
      [probePaced, finalizePaced] = await Promise.all([pacedProbe.start(), pacedFinalizeLoad(pacedRate)]);
      log(`GET probe (${PROBE_RATE} req/s) during a finalize load`);
      const loadedProbe = await probe();
      [probeLoaded, finalizeUnderProbe] = await Promise.all([loadedProbe.start(), finalizeLoad(DURATION)]);
      if (!ONLY_PROBE) log("POST /finalizeContent with 5,000-word texts");
      if (!ONLY_PROBE) finalize = await finalizeLoad(DURATION);
      poolInfo.made = pool.length;
      poolInfo.used = taken;
      poolInfo.exhausted = exhausted;
      poolInfo.accounts = keys.length;
    }
    if (!rssWrites) rssReadsKb = rss.stop();
    const rssWritesKb = rssWrites ? rssWrites.stop() : 0;
    // The learning jobs the finalizations queued: how far the worker pool got while the loads ran.
    const learning = learningStatus(dataDir);
    await stop(server);
    const exit = await server.exited;
    server = undefined;
    // The same loads on PostgreSQL, one server and two, after SQLite's server has stopped (lib/postgres-rows.ts).
    const postgres: PostgresFigures = ONLY_PROBE
      ? { skipped: "BENCH_ONLY=probe" }
      : await benchPostgres({
          runner,
          tmp,
          connections: CONNECTIONS,
          duration: DURATION,
          onlyGet: ONLY_GET,
          finalizeRps: finalize?.rps ?? 0,
          poolMax: POOL_MAX,
          serveArgs,
          log,
          keepTmp: () => {
            keep = true;
          },
        });
    if ("skipped" in postgres) log(`PostgreSQL rows skipped: ${postgres.skipped}`);

    const startMedian = median(starts);
    const scenarios = [cur, content, generate, finalize].filter((x): x is Load => x !== undefined);
    const probeRatio = probeLoaded && probeAlone ? probeLoaded.p99 / probeAlone.p99 : Number.NaN;
    const pacedRatio = probePaced && probeAlone ? probePaced.p99 / probeAlone.p99 : Number.NaN;
    const machineRatio = machine ? machine.busy.p99 / machine.quiet.p99 : Number.NaN;
    const checks = [
      {
        target: `GET /api-keys/current req/s ≥ ${TARGETS.getRatio * 100}% of the baseline's`,
        value: `${fixed((100 * cur.rps) / b.rps, 0)}%`,
        pass: cur.rps / b.rps >= TARGETS.getRatio,
      },
      ...(ONLY_GET
        ? []
        : [
            {
              target: `GET p99 under a finalize load ≤ ${TARGETS.probeP99Ratio}× its p99 without`,
              value: `${fixed(probeRatio, 1)}× (${fixed(probeLoaded!.p99)} ms vs ${fixed(probeAlone!.p99)} ms)`,
              pass: probeRatio <= TARGETS.probeP99Ratio,
            },
          ]),
      {
        target: `start to first 200 < ${TARGETS.startMs} ms (median of ${starts.length})`,
        value: `${fixed(startMedian, 0)} ms`,
        pass: startMedian < TARGETS.startMs,
      },
    ];

    const results = {
      date: startedAt.toISOString(),
      executable: EXECUTABLE,
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        loadavg_after: os.loadavg(),
        bench_node: process.version,
        baseline_node: rounds.length ? `${baselineNode()}` : null,
      },
      settings: {
        duration_s: DURATION,
        connections: CONNECTIONS,
        rounds: ROUNDS,
        probe_rate: PROBE_RATE,
        probe_connections: 2,
        workers: WORKERS ?? "default",
      },
      baseline: b,
      scenarios: scenarios.map((x) => ({ ...x, ratio_to_baseline: x.rps / b.rps })),
      rounds,
      probe: probeAlone
        ? {
            alone: probeAlone,
            under_finalize: probeLoaded,
            finalize_during_probe: finalizeUnderProbe,
            p99_ratio: probeRatio,
            paced: probePaced
              ? {
                  finalize_rate: pacedRate,
                  under_finalize: probePaced,
                  finalize_during_probe: finalizePaced,
                  p99_ratio: pacedRatio,
                }
              : null,
            machine_reference: machine
              ? {
                  baseline_quiet: machine.quiet,
                  baseline_busy_loops: machine.busy,
                  loops: machine.loops,
                  p99_ratio: machineRatio,
                }
              : null,
          }
        : null,
      finalize_pool: poolInfo,
      start_ms: { cold_first_start: coldStartMs, median: startMedian, runs: starts },
      rss_kb: { idle: rssIdleKb, max_under_read_load: rssReadsKb, max_under_write_load: rssWritesKb },
      learning_jobs_at_end: learning,
      postgres:
        "skipped" in postgres
          ? postgres
          : {
              server: postgres.server,
              runs: postgres.runs.map((run) => ({
                ...run,
                ratio_to_sqlite: ratiosToSqlite(run, { get: cur, generate, finalize }),
              })),
            },
      server_exit: exit,
      targets: checks,
    };
    mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
    const out = path.join(ROOT, "bench/results", `${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);

    /** A table row: a load's name, req/s, p50, p99, the given ratio column and its non-2xx count. */
    const row = (name: string, x: Load, ratio: string) => [
      name,
      fixed(x.rps, 0),
      fixed(x.p50),
      fixed(x.p99),
      ratio,
      String(x.non2xx),
    ];
    const rows = [
      ["scenario", "req/s", "p50 ms", "p99 ms", "req/s ÷ baseline", "non-2xx"],
      row(b.name, b, "1.00"),
      ...scenarios.map((x) => row(x.name, x, fixed(x.rps / b.rps))),
    ];
    if (probeAlone && probeLoaded && finalizeUnderProbe)
      rows.push(
        row(`${probeAlone.name}, quiet server`, probeAlone, ""),
        row(`${probeLoaded.name}, during finalize load`, probeLoaded, ""),
        row("POST /finalizeContent during the probe", finalizeUnderProbe, fixed(finalizeUnderProbe.rps / b.rps)),
      );
    if (probePaced && finalizePaced)
      rows.push(
        row(`${probePaced.name}, during finalize at ${pacedRate}/s`, probePaced, ""),
        row(`${finalizePaced.name} during the probe`, finalizePaced, fixed(finalizePaced.rps / b.rps)),
      );
    if (machine)
      rows.push(
        row("baseline probe, quiet machine", machine.quiet, ""),
        row(`baseline probe, ${machine.loops} busy loops`, machine.busy, ""),
      );
    let text = `\n## content-service benchmark, ${startedAt.toISOString()}\n\n`;
    text += `${os.cpus().length} CPUs, ${CONNECTIONS} connections, ${DURATION} s per load, median of ${ONLY_PROBE ? 1 : ROUNDS} round(s) for the baseline and GETs; `;
    text += `baseline: bare node:http on Node ${rounds.length ? results.machine.baseline_node : "?"}; GET probe: ${PROBE_RATE} req/s evenly spaced, on 2 connections.\n\n`;
    text += table(rows);
    text += postgresTable(postgres, { get: cur, generate, finalize }, b);
    text += "\n";
    text += table([
      ["measure", "value"],
      [
        "start to first 200 (median)",
        `${fixed(startMedian, 0)} ms (runs: ${starts.map((x) => x.toFixed(0)).join(", ")})`,
      ],
      ["first start (writes the asset cache)", `${fixed(coldStartMs, 0)} ms`],
      ...(machine
        ? [
            [
              "the machine alone: the baseline's probe p99 with every CPU busy ÷ quiet (no target)",
              `${fixed(machineRatio, 1)}× (${fixed(machine.busy.p99)} ms vs ${fixed(machine.quiet.p99)} ms)`,
            ],
          ]
        : []),
      ...(probePaced && probeAlone
        ? [
            [
              `GET p99 beside finalizations paced to ${pacedRate}/s ÷ without (no target)`,
              `${fixed(pacedRatio, 1)}× (${fixed(probePaced.p99)} ms vs ${fixed(probeAlone.p99)} ms)`,
            ],
          ]
        : []),
      ...(
        [
          ["quiet server", probeAlone],
          ["paced finalizations", probePaced],
          ["finalize load", probeLoaded],
        ] as const
      )
        .filter(([, x]) => x?.lateMax !== undefined)
        .map(([when, x]) => [
          `the probe's sends behind their schedule, ${when} (p99, most)`,
          `${fixed(x!.lateP99!)} ms, ${fixed(x!.lateMax!)} ms`,
        ]),
      ["RSS idle", `${(rssIdleKb / 1024).toFixed(1)} MiB`],
      ["RSS under the GET loads (max)", `${(rssReadsKb / 1024).toFixed(1)} MiB`],
      ...(rssWrites ? [["RSS under the write loads (max)", `${(rssWritesKb / 1024).toFixed(1)} MiB`]] : []),
      ...(Object.keys(learning).length
        ? [
            [
              "learning jobs when the loads ended",
              Object.entries(learning)
                .map(([k, n]) => `${n} ${k}`)
                .join(", "),
            ],
          ]
        : []),
    ]);
    text += "\n";
    text += table([
      ["target", "measured", "result"],
      ...checks.map((c) => [c.target, c.value, c.pass ? "PASS" : "FAIL"]),
    ]);
    text += `\nJSON: ${path.relative(ROOT, out)}\n`;
    process.stdout.write(text);
    finished = true;
    return checks.every((c) => c.pass) || env.BENCH_NO_FAIL === "1" ? 0 : 1;
  } finally {
    if (baseline) await baseline.close();
    if (server) await stop(server);
    // A run that broke keeps its data and the server's log (server.log) for a look at what went wrong.
    if (!finished) log(`the run failed: its data and server log are kept in ${tmp}`);
    else if (env.BENCH_KEEP === "1" || keep) log(`kept: the data and server logs in ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main();
