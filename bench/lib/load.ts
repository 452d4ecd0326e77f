/** One autocannon load and its figures, in this process or (for a probe) in a child process of its own. */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";

export interface Load {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * One autocannon run. Latencies come from autocannon's per-response event (float milliseconds; its histogram keeps
 * whole milliseconds, too coarse for sub-millisecond GETs), 2xx answers only.
 */
export function load(name: string, options: autocannon.Options): Promise<Load> {
  return new Promise((resolve, reject) => {
    let times = new Float64Array(1 << 16);
    let n = 0;
    const instance = autocannon({ timeout: 30, ...options }, (err, result) => {
      if (err) return reject(err);
      const sorted = times.subarray(0, n).sort();
      resolve({
        name,
        rps: result.requests.average,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      });
    });
    // autocannon emits (client, statusCode, bytes, responseTime) although its typings omit the client.
    (instance as unknown as NodeJS.EventEmitter).on(
      "response",
      (_c: unknown, status: number, _b: number, ms: number) => {
        if (status < 200 || status >= 300) return;
        if (n === times.length) {
          const grown = new Float64Array(times.length * 2);
          grown.set(times);
          times = grown;
        }
        times[n++] = ms;
      },
    );
  });
}

/**
 * load() in a child process (bench/lib/load-child.ts). A latency is measured when the client's event loop sees the
 * answer: a probe sharing its process with a load generator that builds 30 KB bodies (and collects them) would count
 * the generator's own pauses as the server's. Options are plain data (no functions). Resolves once the child has
 * loaded (tsx, autocannon) and waits: `start` begins the load, so that it starts with the loads it is run beside.
 */
export async function loadInChild(name: string, options: autocannon.Options): Promise<{ start(): Promise<Load> }> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const child = spawn(
    process.execPath,
    ["--import", tsx, new URL("./load-child.ts", import.meta.url).pathname, JSON.stringify({ name, options })],
    { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, NODE_OPTIONS: "" } },
  );
  let out = "";
  let onReady = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    if (out.startsWith("ready\n")) onReady();
  });
  const exited = new Promise<Load>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`load ${name}: child exited with ${code}`));
      try {
        resolve(JSON.parse(out.slice("ready\n".length)) as Load);
      } catch (e) {
        reject(new Error(`load ${name}: unreadable result (${(e as Error).message})`));
      }
    });
  });
  await Promise.race([ready, exited]);
  return {
    start() {
      child.stdin.end("go\n");
      return exited;
    },
  };
}
