/**
 * `npm run bench:sandbox`: issue 32 point 8's targets for sandbox mode's known states. With a fixture of 10 accounts
 * and 100 keys (10 each):
 *
 * - start: from spawning `serve --sandbox --fixtures FILE` to the first 200 answered with a fixture's key (target
 *   500 ms), BENCH_SANDBOX_STARTS (5) times, each on a new data directory; the built executable when there is one
 *   (`npm run build`), else the source tree through tsx, whose loading of the TypeScript is part of the time: the
 *   result says which, and also the time from the `listening` line to that answer, and the server's own part
 *   measured in this process (startServer with the fixture to the first answer, the code already loaded);
 * - reset: POST /_sandbox/reset after 5 memories were written, BENCH_SANDBOX_RESETS (30) times, timed by the
 *   client (target under 50 ms).
 *
 * Writes bench/results/sandbox-<timestamp>.json; exits 1 when a target is missed (BENCH_NO_FAIL=1 exits 0).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { memoryLogger } from "../src/runtime/log.js";
import { parseFixture } from "../src/sandbox/fixtures-file.js";
import { JOURNAL_DEFAULT } from "../src/sandbox/index.js";
import { startServer } from "../src/server/start.js";
import { executableRunner, freePort, haveExecutable, ROOT, type Runner, sourceRunner } from "./lib/proc.js";

const env = process.env;
const STARTS = Number(env.BENCH_SANDBOX_STARTS ?? 5);
const RESETS = Number(env.BENCH_SANDBOX_RESETS ?? 30);
const START_MS = 500;
const RESET_MS = 50;
const ACCOUNTS = 10;
const KEYS_PER_ACCOUNT = 10;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A key secret of the fixture: the form the server issues, distinct per account and key. */
function secret(account: number, key: number): string {
  let tail = "";
  for (let i = 0; i < 32; i++) tail += BASE62[(account * 31 + key * 7 + i * 13) % 62];
  return `svc_live_${tail.slice(0, 28)}${String(account).padStart(2, "0")}${String(key).padStart(2, "0")}`;
}

/** The fixture: 10 accounts of one workspace each, 10 keys each. */
function fixture(): unknown {
  return {
    accounts: Array.from({ length: ACCOUNTS }, (_, a) => ({
      name: `Account ${a}`,
      plan: "agency",
      workspaces: [{ name: "Main" }],
      keys: Array.from({ length: KEYS_PER_ACCOUNT }, (_, k) => ({ name: `key ${k}`, key: secret(a, k) })),
    })),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A server in sandbox mode with the fixture; the times to its `listening` line and its first answer. */
interface Started {
  child: ChildProcess;
  url: string;
  firstAnswerMs: number;
  listeningMs: number;
}

async function start(runner: Runner, dataDir: string, file: string): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = ["serve", "--sandbox", "--fixtures", file, "--data-dir", dataDir, "--port", String(port)];
  const began = performance.now();
  const child = spawn(runner.command, [...runner.prefix, ...args], {
    env: runner.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let listeningMs = Number.NaN;
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
    if (Number.isNaN(listeningMs) && stderr.includes("listening on")) listeningMs = performance.now() - began;
  });
  const key = secret(0, 0);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited: ${stderr}`);
    try {
      const res = await fetch(`${url}/api/v1/api-keys/current`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status === 200) break;
    } catch {}
    if (performance.now() - began > 60_000) throw new Error(`no answer in 60 s: ${stderr}`);
    await sleep(2);
  }
  const firstAnswerMs = performance.now() - began;
  return { child, url, firstAnswerMs, listeningMs: firstAnswerMs - listeningMs };
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** The times of RESETS resets, each after 5 memories written. */
async function resets(url: string): Promise<number[]> {
  const times: number[] = [];
  const headers = { authorization: `Bearer ${secret(0, 0)}`, "content-type": "application/json" };
  for (let i = 0; i < RESETS; i++) {
    for (let m = 0; m < 5; m++)
      await fetch(`${url}/api/v1/memories`, {
        method: "POST",
        headers,
        body: JSON.stringify({ kind: "context", content: `Memory ${i}.${m}` }),
      });
    const began = performance.now();
    const res = await fetch(`${url}/_sandbox/reset`, { method: "POST" });
    times.push(performance.now() - began);
    if (res.status !== 204) throw new Error(`reset answered ${res.status}`);
  }
  return times;
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const round = (x: number) => Math.round(x * 10) / 10;

/**
 * The server's own part of a start, in this process (its code loaded already): startServer with the fixture (the
 * database made and migrated, the threads started, the fixture loaded, the start's state taken, the socket listening)
 * to the first 200 with a fixture's key.
 */
async function inProcessStart(dataDir: string): Promise<number> {
  const fixtures = parseFixture(JSON.stringify(fixture()), "json");
  const began = performance.now();
  const server = await startServer({
    ...{ dataDir, host: "127.0.0.1", port: 0, workers: 1, logger: memoryLogger() },
    sandbox: { journalSize: JOURNAL_DEFAULT, fixtures },
  });
  const res = await fetch(`${server.url}/api/v1/api-keys/current`, {
    headers: { authorization: `Bearer ${secret(0, 0)}` },
  });
  const ms = performance.now() - began;
  await server.close();
  if (res.status !== 200) throw new Error(`in process: ${res.status}`);
  return ms;
}

async function main(): Promise<void> {
  const executable = haveExecutable();
  const runner = executable ? executableRunner() : sourceRunner();
  const work = mkdtempSync(path.join(os.tmpdir(), "cs-bench-sandbox-"));
  const file = path.join(work, "fixture.json");
  writeFileSync(file, JSON.stringify(fixture()));
  const firsts: number[] = [];
  const afterListening: number[] = [];
  let resetTimes: number[] = [];
  const inProcess: number[] = [];
  try {
    for (let i = 0; i < STARTS; i++) inProcess.push(await inProcessStart(path.join(work, `in-process-${i}`)));
    for (let i = 0; i < STARTS; i++) {
      const server = await start(runner, path.join(work, `data-${i}`), file);
      firsts.push(server.firstAnswerMs);
      afterListening.push(server.listeningMs);
      if (i === STARTS - 1) resetTimes = await resets(server.url);
      await stopChild(server.child);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const result = {
    date: new Date().toISOString(),
    runner: executable ? "executable" : "source (node --import tsx src/main.ts: TypeScript compiled as it loads)",
    cpus: os.cpus().length,
    fixture: { accounts: ACCOUNTS, keys: ACCOUNTS * KEYS_PER_ACCOUNT },
    first_answer_ms: { median: round(quantile(firsts, 0.5)), max: round(Math.max(...firsts)), target: START_MS },
    listening_to_first_answer_ms: { median: round(quantile(afterListening, 0.5)) },
    in_process_start_to_first_answer_ms: {
      median: round(quantile(inProcess, 0.5)),
      max: round(Math.max(...inProcess)),
    },
    reset_ms: {
      median: round(quantile(resetTimes, 0.5)),
      p90: round(quantile(resetTimes, 0.9)),
      max: round(Math.max(...resetTimes)),
      target: RESET_MS,
    },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const dir = path.join(ROOT, "bench/results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `sandbox-${result.date.replace(/[:.]/g, "-")}.json`),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  const missed = result.first_answer_ms.median > START_MS || result.reset_ms.median > RESET_MS;
  if (missed && env.BENCH_NO_FAIL !== "1") process.exitCode = 1;
}

await main();
