/** Starting content-service (the built executable or the source tree) for benchmarks and crash runs. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type autocannon from "autocannon";
import { words } from "./text.js";

export const ROOT = path.resolve(import.meta.dirname, "../..");
/** dist/content-service, or another build named by CS_EXECUTABLE (to compare two builds). */
export const EXECUTABLE = process.env.CS_EXECUTABLE
  ? path.resolve(process.env.CS_EXECUTABLE)
  : path.join(ROOT, "dist/content-service");

/** How content-service is run: the executable, or Node with tsx over src/main.ts. */
export interface Runner {
  kind: "executable" | "source";
  command: string;
  prefix: string[];
  env: NodeJS.ProcessEnv;
}

/** The built executable (its asset cache in `cacheDir`). */
export function executableRunner(cacheDir?: string): Runner {
  return {
    kind: "executable",
    command: EXECUTABLE,
    prefix: [],
    env: { ...process.env, NODE_OPTIONS: "", ...(cacheDir ? { CONTENT_SERVICE_CACHE_DIR: cacheDir } : {}) },
  };
}

/** The source tree through tsx. */
export function sourceRunner(): Runner {
  return {
    kind: "source",
    command: process.execPath,
    // Node with tsx's loader (tsx's command line would run the program in a child, out of reach of kill -9).
    prefix: [
      "--import",
      pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href,
      path.join(ROOT, "src/main.ts"),
    ],
    env: { ...process.env, NODE_OPTIONS: "" },
  };
}

export function haveExecutable(): boolean {
  return existsSync(EXECUTABLE);
}

/** Runs a CLI command to completion; throws with its stderr when it fails. */
export function runCli(runner: Runner, args: string[], input = ""): string {
  const r = spawnSync(runner.command, [...runner.prefix, ...args], {
    input,
    encoding: "utf8",
    env: runner.env,
    timeout: 120_000,
  });
  if (r.status !== 0)
    throw new Error(`content-service ${args.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Prepares a data directory: init, raised limits, an agency plan (larger analysis quota), and a read+write key. */
export function prepareDataDir(runner: Runner, dataDir: string): { key: string } {
  runCli(runner, ["init", "--data-dir", dataDir, "--admin-email", "bench@localhost"], "bench-password-1");
  runCli(runner, ["accounts", "set-plan", "1", "agency", "--data-dir", dataDir]);
  runCli(runner, [
    "accounts",
    "set-limits",
    "1",
    "--per-minute",
    "1000000000",
    "--per-hour",
    "1000000000",
    "--data-dir",
    dataDir,
  ]);
  const created = JSON.parse(
    runCli(runner, ["keys", "create", "--account", "1", "--name", "bench", "--json", "--data-dir", dataDir]),
  );
  return { key: created.key as string };
}

/** Learning analyses one account may run per month (agency); finalizations are spread so that all are analysed. */
export const ANALYSES_PER_ACCOUNT = 1900;

/** Another agency account with raised limits and a read+write key (each account has its own analysis quota). */
export function extraAccount(runner: Runner, dataDir: string, n: number): string {
  const account = JSON.parse(
    runCli(runner, ["accounts", "create", "--name", `bench ${n}`, "--plan", "agency", "--json", "--data-dir", dataDir]),
  );
  const id = String(account.id);
  runCli(
    runner,
    ["accounts", "set-limits", id, "--per-minute", "1000000000", "--per-hour", "1000000000"].concat([
      "--data-dir",
      dataDir,
    ]),
  );
  return JSON.parse(
    runCli(runner, ["keys", "create", "--account", id, "--name", "bench", "--json", "--data-dir", dataDir]),
  ).key;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** One GET on a fresh connection; resolves with the status, or 0 when the connection fails. */
export function getStatus(url: string, headers: Record<string, string> = {}, timeoutMs = 2_000): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}

/** A server process started with `serve`. */
export interface Served {
  child: ChildProcess;
  url: string;
  port: number;
  /** Milliseconds from spawn to the first 200 of `readyPath`. */
  startMs: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A `serve` process just spawned: `ready` resolves once it answers (rejects when it exits or times out first). */
export interface Spawned {
  child: ChildProcess;
  url: string;
  port: number;
  /** performance.now() at the spawn. */
  spawnedAt: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  ready: Promise<Served>;
}

/**
 * Spawns `serve` on a chosen port, its output appended to `logFile`, and polls `readyPath` (every 2 ms, for at
 * most `timeoutMs`) until it answers 200.
 */
export async function serve(runner: Runner, options: ServeOptions): Promise<Served> {
  return (await spawnServe(runner, options)).ready;
}

interface ServeOptions {
  dataDir: string;
  logFile: string;
  workers?: number;
  readyPath?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** NODE_OPTIONS for the server alone, not the CLI calls (`npm run bench`'s BENCH_SERVER_NODE_OPTIONS). */
  nodeOptions?: string;
}

/**
 * `serve` without the wait: resolves at the spawn, for a caller that may kill the server before it is ready (the
 * crash run's start-up kills). Its `ready` is the wait `serve` does.
 */
export async function spawnServe(runner: Runner, options: ServeOptions): Promise<Spawned> {
  const port = await freePort();
  const log = openSync(options.logFile, "a");
  const args = [
    ...runner.prefix,
    "serve",
    "--data-dir",
    options.dataDir,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
  ];
  if (options.workers) args.push("--workers", String(options.workers));
  const started = performance.now();
  // Node 24 refuses some options in NODE_OPTIONS (--trace-gc): those need a build with them in its execArgv.
  const env = options.nodeOptions ? { ...runner.env, NODE_OPTIONS: options.nodeOptions } : runner.env;
  const child = spawn(runner.command, args, { env, stdio: ["ignore", log, log] });
  closeSync(log); // the child has its own copy; a crash run starts a server 20 times and would keep each one open
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = started + (options.timeoutMs ?? 30_000);
  const ready = (async (): Promise<Served> => {
    for (;;) {
      if (gone) throw new Error(`server exited before answering; see ${options.logFile}`);
      const status = await getStatus(`${url}${options.readyPath ?? "/healthz"}`, options.headers, 1_000);
      if (status === 200) break;
      if (performance.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`server did not answer 200 within ${options.timeoutMs ?? 30_000} ms; see ${options.logFile}`);
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    return { child, url, port, startMs: performance.now() - started, exited };
  })();
  return { child, url, port, spawnedAt: started, exited, ready };
}

/** Stops a server with SIGTERM (SIGKILL after `graceMs`). */
export async function stop(server: Served, graceMs = 15_000): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill("SIGTERM");
  const timer = setTimeout(() => server.child.kill("SIGKILL"), graceMs);
  await server.exited;
  clearTimeout(timer);
}

/** Resident set size of a process in KiB (VmRSS), or 0 when it is gone. */
export function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; reports the largest. */
export function rssSampler(pid: number, everyMs = 100): { stop(): number } {
  let max = rssKb(pid);
  const timer = setInterval(() => {
    max = Math.max(max, rssKb(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, rssKb(pid));
    },
  };
}

/** Sends one JSON request with fetch; returns status and parsed body. */
export async function sendJson(
  url: string,
  method: string,
  key: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field.
): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

/** The bench's generation direction, over the references benchReferences makes. */
export const BENCH_DIRECTION = "How our team plans the quarter: budget, roadmap and customer feedback";

/** Makes the bench's three references of 2,000 words through the API at `baseUrl`; their ids. */
export async function benchReferences(baseUrl: string, key: string): Promise<number[]> {
  const refs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await sendJson(`${baseUrl}/api/v1/reference-materials`, "POST", key, {
      title: `Reference ${i + 1}`,
      content: words(2000, 100 + i),
      format: "text",
    });
    if (r.status !== 201) throw new Error(`reference create: ${r.status} ${JSON.stringify(r.body)}`);
    refs.push(r.body.id);
  }
  return refs;
}

/**
 * The autocannon requests of a generation load: template 1 with BENCH_DIRECTION over the references `refs`, each
 * request with the seed `nextSeed` gives it (a text of its own).
 */
export function generateRequests(refs: number[], nextSeed: () => number): autocannon.Request[] {
  return [
    {
      method: "POST",
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          template_id: 1,
          user_direction: BENCH_DIRECTION,
          reference_material_ids: refs,
          seed: nextSeed(),
        }),
      }),
    },
  ];
}
