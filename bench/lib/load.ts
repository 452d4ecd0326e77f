/**
 * One load and its figures: autocannon's (as many requests as the connections carry) or an evenly paced one, in this
 * process or (for a probe) in a child process of its own.
 */
import { spawn } from "node:child_process";
import http from "node:http";
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
  /** A paced load's: how late its sends went out, in ms after they were due (p99 and the latest). */
  lateP99?: number;
  lateMax?: number;
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
 * A paced load: `rate` requests/s in all, evenly spaced, over at most `connections` kept-alive connections (a request
 * due while all are busy waits for one, and its time counts). GETs, or with `next` a POST of the body it returns.
 * A request not answered `timeoutMs` (30,000) after it was sent, waiting for a connection included, is a timeout.
 */
export interface PacedOptions {
  url: string;
  headers?: Record<string, string>;
  next?: () => { headers?: Record<string, string>; body: string };
  connections: number;
  rate: number;
  duration: number;
  timeoutMs?: number;
  /** Each request on a connection of its own, opened for it and closed after (a new client's latency). */
  fresh?: boolean;
  /** Opens the `connections` before the load begins, so that no request of it waits for a connection to open. */
  warm?: boolean;
}

/**
 * Requests sent at evenly spaced moments (one every 1/rate s), each timed from its sending to the end of its answer.
 * Not autocannon's `overallRate`: that lets each connection send its share of a second as soon as the second begins,
 * one request after another, then wait, so a "200 req/s" probe was 100 requests back to back on each connection
 * every second, which found the server's and the client's threads awake. A send the client's own event loop held up
 * (a pause, a busy CPU) goes out late, with the others due meanwhile: how late, at p99 and at most, is `lateP99` and
 * `lateMax`, so that a run shows whether the spacing held.
 */
export async function pacedLoad(name: string, options: PacedOptions): Promise<Load> {
  const url = new URL(options.url);
  // fifo: every open connection is used in its turn, so that none stays idle long enough for the server to close it.
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections, scheduling: "fifo" });
  if (options.warm) await warm(agent, url, options.connections);
  const total = Math.max(1, Math.round(options.rate * options.duration));
  const interval = 1000 / options.rate;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const times = new Float64Array(total);
  const late = new Float64Array(total);
  let n = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let sent = 0;
  let ended = 0;
  return new Promise((resolve) => {
    const t0 = performance.now();
    const end = () => {
      if (++ended < total) return;
      const elapsed = (performance.now() - t0) / 1000;
      agent.destroy();
      const sorted = times.subarray(0, n).sort();
      const lateSorted = late.sort();
      resolve({
        name,
        rps: (n + non2xx) / elapsed,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        requests: n + non2xx,
        non2xx,
        errors,
        timeouts,
        lateP99: percentile(lateSorted, 99),
        lateMax: lateSorted[total - 1],
      });
    };
    const send = (index: number) => {
      const began = performance.now();
      late[index] = began - (t0 + index * interval);
      let settled = false;
      let req: http.ClientRequest | undefined;
      const timer = setTimeout(() => {
        settle(() => timeouts++);
        req?.destroy();
      }, timeoutMs);
      function settle(account: () => void) {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        account();
        end();
      }
      try {
        const post = options.next?.();
        req = http.request(
          {
            agent: options.fresh ? false : agent,
            method: post ? "POST" : "GET",
            host: url.hostname,
            port: url.port,
            path: `${url.pathname}${url.search}`,
            headers: { ...options.headers, ...post?.headers, ...(options.fresh ? { connection: "close" } : {}) },
          },
          (res) => {
            res.resume();
            res.once("end", () =>
              settle(() => {
                const status = res.statusCode ?? 0;
                if (status >= 200 && status < 300) times[n++] = performance.now() - began;
                else non2xx++;
              }),
            );
            res.once("error", () => settle(() => errors++));
            // An answer cut off before its end (the server went away) counts as an error.
            res.once("close", () => settle(() => errors++));
          },
        );
        req.once("error", () => settle(() => errors++));
        req.end(post?.body);
      } catch {
        // A body that could not be made or a request that could not be sent: an error, not a crash of the bench
        // (whose `finally` stops the server).
        settle(() => errors++);
      }
    };
    const tick = () => {
      while (sent < total && performance.now() - t0 >= sent * interval) send(sent++);
      if (sent < total) setTimeout(tick, Math.max(0, t0 + sent * interval - performance.now()));
    };
    tick();
  });
}

/** Opens `connections` connections of `agent` to `url`, each by a GET whose answer is read and not counted. */
function warm(agent: http.Agent, url: URL, connections: number): Promise<unknown> {
  return Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((resolve) => {
          const req = http.get(url, { agent }, (res) => {
            res.resume();
            res.once("end", resolve);
            res.once("error", () => resolve());
          });
          req.once("error", () => resolve());
        }),
    ),
  );
}

/**
 * pacedLoad() in a child process (bench/lib/load-child.ts). A latency is measured when the client's event loop sees the
 * answer: a probe sharing its process with a load generator that builds 30 KB bodies (and collects them) would count
 * the generator's own pauses as the server's. Options are plain data (no functions). Resolves once the child has
 * loaded (tsx) and waits: `start` begins the load, so that it starts with the loads it is run beside.
 */
export async function loadInChild(name: string, options: PacedOptions): Promise<{ start(): Promise<Load> }> {
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
        // JSON has no NaN: a load with no 2xx answer (no latency) crosses as null, read back as NaN, so that a ratio
        // of it is NaN and fails its target rather than 0 and passing.
        resolve(
          JSON.parse(out.slice("ready\n".length), (_key, value) => (value === null ? Number.NaN : value)) as Load,
        );
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
