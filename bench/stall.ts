/**
 * `npm run bench:stall`: whether a few requests can stall the others (issue 31, M1 and M2). Starts a server (the
 * built executable when there is one, else the source tree), stores 12 contents of 500,000 characters (the most a
 * content may hold: their page is about 11 MB of JSON), and for each scenario polls /healthz every 10 ms from a
 * process of its own, on 50 connections opened before and kept open, and every 100 ms on a new connection each (from
 * another process), while the scenario's burst runs again and again for BENCH_STALL_SECONDS (20):
 *
 * - M1: 3 concurrent multipart uploads of 5,200,000 characters of Markdown ('![' × 2,600,000) to
 *   POST /reference-materials;
 * - M2 lists: 85 concurrent GET /contents?limit=100;
 * - M2 MCP: 10 concurrent POST /api/v1/mcp, each a batch of 8 list_contents calls.
 *
 * Prints /healthz's p50, p99 and maximum for each, the server's RSS idle before, at its peak, and 60 s after the
 * last scenario (BENCH_STALL_SETTLE_SECONDS), and writes them as JSON to bench/results/stall-<timestamp>.json. The
 * targets (issue 31 point 1): /healthz p99 on the kept-alive connections under 100 ms in every scenario (the
 * new-connection probe's is shown beside it: Node accepts one new connection per pass of the event loop), RSS after within 1.5 times idle; exit 1
 * when one fails (BENCH_NO_FAIL=1 exits 0). BENCH_STALL_ONLY=M1 (or another scenario's name's start) runs that one;
 * BENCH_KEEP=1 keeps the data directory and the server's log.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { type Load, loadInChild } from "./lib/load.js";
import {
  executableRunner,
  haveExecutable,
  prepareDataDir,
  ROOT,
  rssKb,
  rssSampler,
  type Served,
  sendJson,
  serve,
  sourceRunner,
  stop,
} from "./lib/proc.js";
import { longText, m1Upload, mcpListBatch } from "./lib/stall-bursts.js";

const env = process.env;
const SECONDS = Number(env.BENCH_STALL_SECONDS ?? 20);
const SETTLE_SECONDS = Number(env.BENCH_STALL_SETTLE_SECONDS ?? 60);
const CONTENTS = 12;
const CONTENT_CHARS = 500_000;
const HEALTHZ_P99_MS = 100;
const RSS_RATIO = 1.5;
const JUDGED_ON =
  "/healthz p99 on kept-alive connections (opened before the burst); the new-connection probe is shown beside it";

/** One answer of a scenario's requests: its status and size. */
interface Answered {
  status: number;
  bytes: number;
}

/** Sends one request on `agent` and reads its answer to the end (its bytes counted, not kept). */
function request(
  agent: http.Agent,
  url: string,
  options: { method: string; headers: Record<string, string>; body?: Buffer | string },
): Promise<Answered> {
  return new Promise((resolve) => {
    const req = http.request(url, { agent, method: options.method, headers: options.headers }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.byteLength;
      });
      res.once("end", () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.once("error", () => resolve({ status: 0, bytes }));
    });
    req.once("error", () => resolve({ status: 0, bytes: 0 }));
    req.end(options.body);
  });
}

/** A scenario: one burst of concurrent requests, as the issue wrote it. */
interface Scenario {
  name: string;
  burst: () => Promise<Answered[]>;
}

function scenarios(url: string, key: string): Scenario[] {
  const auth = { authorization: `Bearer ${key}` };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });
  const upload = m1Upload();
  const batch = mcpListBatch();
  const times = <T>(n: number, f: () => Promise<T>) => Promise.all(Array.from({ length: n }, f));
  return [
    {
      name: "M1: 3 × 5 MiB Markdown uploads",
      burst: () =>
        times(3, () =>
          request(agent, `${url}/api/v1/reference-materials`, {
            method: "POST",
            headers: { ...auth, "content-type": upload.type },
            body: upload.body,
          }),
        ),
    },
    {
      name: "M2: 85 × GET /contents?limit=100",
      burst: () =>
        times(85, () => request(agent, `${url}/api/v1/contents?limit=100`, { method: "GET", headers: auth })),
    },
    {
      name: "M2: 10 × MCP batch of 8 list_contents",
      burst: () =>
        times(10, () =>
          request(agent, `${url}/api/v1/mcp`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json", accept: "application/json" },
            body: batch,
          }),
        ),
    },
  ];
}

/**
 * The server's main-thread heap and external memory in MB and its collector's pauses (GET /metrics, from loopback),
 * for where RSS and the time went.
 */
async function heapOf(url: string): Promise<Record<string, number>> {
  const res = await fetch(`${url}/metrics`).catch(() => undefined);
  if (!res?.ok) return {};
  const text = await res.text();
  const figures: Record<string, number> = {};
  for (const name of ["nodejs_heap_size_total_bytes", "nodejs_heap_size_used_bytes", "nodejs_external_memory_bytes"]) {
    const m = new RegExp(`^content_service_${name} (\\S+)$`, "m").exec(text);
    if (m) figures[name.replace(/^nodejs_|_bytes$/g, "")] = Math.round(Number(m[1]) / 1048576);
  }
  // The collector's pauses by kind so far: how many, their total ms, and how many took 100 ms or more.
  for (const kind of ["minor", "major", "incremental"]) {
    const figure = (suffix: string, labels = `kind="${kind}"`) =>
      Number(
        new RegExp(`^content_service_nodejs_gc_duration_seconds_${suffix}\\{${labels}\\} (\\S+)$`, "m").exec(
          text,
        )?.[1] ?? 0,
      );
    figures[`gc_${kind}`] = figure("count");
    figures[`gc_${kind}_ms`] = Math.round(figure("sum") * 1000);
    figures[`gc_${kind}_100ms`] = figures[`gc_${kind}`] - figure("bucket", `le="0.1",kind="${kind}"`);
  }
  return figures;
}

/** What one scenario measured: /healthz's latencies and the bursts run beside them. */
interface Measured {
  name: string;
  /** The probe on kept-alive connections: the target is judged on it. */
  healthz: Load;
  /** The probe on a new connection each: shown beside it. */
  healthzFresh: Load;
  bursts: number;
  burstMs: number[];
  statuses: Record<string, number>;
  answerBytes: number;
  peakRssKb: number;
}

async function measure(served: Served, scenario: Scenario): Promise<Measured> {
  const probe = await loadInChild("healthz", {
    url: `${served.url}/healthz`,
    // Connections opened before the burst and kept open, enough that a probe due while others wait goes out on time:
    // a stall shows as the latency of the probes sent during it, not as a queue of probes behind it.
    connections: 50,
    warm: true,
    rate: 100,
    duration: SECONDS,
  });
  // A new client's probe: each on a connection of its own, whose accepting the burst may delay too.
  const fresh = await loadInChild("healthz on new connections", {
    url: `${served.url}/healthz`,
    connections: 1,
    fresh: true,
    rate: 10,
    duration: SECONDS,
  });
  const rss = rssSampler(served.child.pid!, 50);
  const started = probe.start();
  const freshStarted = fresh.start();
  const until = performance.now() + SECONDS * 1000;
  const burstMs: number[] = [];
  const statuses: Record<string, number> = {};
  let answerBytes = 0;
  while (performance.now() < until) {
    const t = performance.now();
    const answers = await scenario.burst();
    burstMs.push(Math.round(performance.now() - t));
    for (const a of answers) {
      statuses[a.status] = (statuses[a.status] ?? 0) + 1;
      answerBytes = Math.max(answerBytes, a.bytes);
    }
  }
  const healthz = await started;
  const healthzFresh = await freshStarted;
  return {
    name: scenario.name,
    healthz,
    healthzFresh,
    bursts: burstMs.length,
    burstMs,
    statuses,
    answerBytes,
    peakRssKb: rss.stop(),
  };
}

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const runner = haveExecutable() ? executableRunner() : sourceRunner();
  const dir = mkdtempSync(path.join(os.tmpdir(), "cs-bench-stall-"));
  const dataDir = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  const { key } = prepareDataDir(runner, dataDir);
  const served = await serve(runner, { dataDir, logFile, nodeOptions: env.BENCH_SERVER_NODE_OPTIONS });
  try {
    for (let i = 0; i < CONTENTS; i++) {
      const res = await sendJson(`${served.url}/api/v1/contents`, "POST", key, {
        title: `Long content ${i + 1}`,
        content: longText(CONTENT_CHARS, i),
      });
      if (res.status !== 201) throw new Error(`storing a content: ${res.status} ${JSON.stringify(res.body)}`);
    }
    await new Promise((r) => setTimeout(r, 5_000));
    const idleKb = rssKb(served.child.pid!);
    const idleHeap = await heapOf(served.url);
    const measured: Measured[] = [];
    // The machine's load average (1, 5, 15 min): a probe that went out late (probe late p99) measured the machine.
    const loadBefore = os.loadavg();
    const only = env.BENCH_STALL_ONLY;
    for (const scenario of scenarios(served.url, key))
      if (!only || scenario.name.startsWith(only)) measured.push(await measure(served, scenario));
    const afterAt = Date.now();
    const series: number[] = [];
    for (let s = 10; s <= SETTLE_SECONDS; s += 10) {
      await new Promise((r) => setTimeout(r, afterAt + s * 1000 - Date.now()));
      series.push(rssKb(served.child.pid!));
    }
    const afterKb = series.at(-1) ?? rssKb(served.child.pid!);
    const afterHeap = await heapOf(served.url);
    const peakKb = Math.max(...measured.map((m) => m.peakRssKb));
    report({
      runner: runner.kind,
      loadBefore,
      loadAfter: os.loadavg(),
      idleKb,
      peakKb,
      afterKb,
      series,
      measured,
      idleHeap,
      afterHeap,
    });
  } finally {
    await stop(served);
    if (env.BENCH_KEEP === "1") console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

function report(r: {
  runner: string;
  loadBefore: number[];
  loadAfter: number[];
  idleKb: number;
  peakKb: number;
  afterKb: number;
  series: number[];
  measured: Measured[];
  idleHeap: Record<string, number>;
  afterHeap: Record<string, number>;
}): void {
  const lines = [
    `server: ${r.runner}; ${os.cpus().length} CPUs; ${SECONDS} s per scenario; /healthz every 10 ms; load average ` +
      `${r.loadBefore.map((l) => l.toFixed(1)).join(" ")} before, ${r.loadAfter.map((l) => l.toFixed(1)).join(" ")} after`,
    "",
    "| scenario | bursts | burst ms (median) | statuses | largest answer | /healthz p50 | p99 | timeouts | probe late p99 " +
      "| new connection p50 | p99 |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...r.measured.map((m) => {
      const median = [...m.burstMs].sort((a, b) => a - b)[Math.floor(m.burstMs.length / 2)];
      const statuses = Object.entries(m.statuses)
        .map(([s, n]) => `${n}×${s}`)
        .join(" ");
      const h = m.healthz;
      return (
        `| ${m.name} | ${m.bursts} | ${median} | ${statuses} | ${(m.answerBytes / 1e6).toFixed(1)} MB | ` +
        `${h.p50.toFixed(1)} ms | ${h.p99.toFixed(1)} ms | ${h.timeouts} | ${(h.lateP99 ?? 0).toFixed(1)} ms | ` +
        `${m.healthzFresh.p50.toFixed(1)} ms | ${m.healthzFresh.p99.toFixed(1)} ms |`
      );
    }),
    "",
    `RSS: idle ${mb(r.idleKb)}, peak ${mb(r.peakKb)}, ${SETTLE_SECONDS} s after ${mb(r.afterKb)} ` +
      `(every 10 s: ${r.series.map(mb).join(", ")}); ratio after/idle ${(r.afterKb / r.idleKb).toFixed(2)}`,
    `main thread (MB): idle ${JSON.stringify(r.idleHeap)}, after ${JSON.stringify(r.afterHeap)}`,
    `target judged on: ${JUDGED_ON}`,
  ];
  const failures = [
    ...r.measured
      .filter((m) => !(m.healthz.p99 < HEALTHZ_P99_MS) || m.healthz.timeouts > 0)
      .map((m) => `${m.name}: /healthz p99 ${m.healthz.p99.toFixed(1)} ms (target < ${HEALTHZ_P99_MS})`),
    ...(r.afterKb > RSS_RATIO * r.idleKb ? [`RSS after ${mb(r.afterKb)} > ${RSS_RATIO} × idle ${mb(r.idleKb)}`] : []),
  ];
  lines.push("", failures.length === 0 ? "targets: all met" : `targets missed:\n- ${failures.join("\n- ")}`);
  console.log(lines.join("\n"));
  const dir = path.join(ROOT, "bench/results");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `stall-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ ...r, seconds: SECONDS, judgedOn: JUDGED_ON, table: lines, failures }, null, 2)}\n`,
  );
  console.log(`\nwrote ${path.relative(ROOT, file)}`);
  if (failures.length > 0 && env.BENCH_NO_FAIL !== "1") process.exitCode = 1;
}

await main();
