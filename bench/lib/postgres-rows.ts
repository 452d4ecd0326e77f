/**
 * The bench's PostgreSQL rows (issue 34): the same GET, generate and finalize loads as SQLite's, on one server and on
 * two servers sharing one database, each server taking half the connections. The database is the bench's own,
 * created on the server CONTENT_SERVICE_BENCH_DATABASE_URL (or CONTENT_SERVICE_TEST_DATABASE_URL) names and dropped
 * at the end; without either the rows are skipped with the reason.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import type autocannon from "autocannon";
import pg from "pg";
import { type Load, load } from "./load.js";
import {
  ANALYSES_PER_ACCOUNT,
  BENCH_DIRECTION,
  benchReferences,
  extraAccount,
  generateRequests,
  prepareDataDir,
  type Runner,
  type Served,
  sendJson,
  serve,
  stop,
} from "./proc.js";
import { finalText, words } from "./text.js";

/** The loads of one configuration: `servers` servers on the one database. */
export interface PostgresRun {
  servers: number;
  get: Load;
  generate?: Load;
  finalize?: Load;
  /**
   * Contents generated ahead for the finalize load, generations refused while making them (left out of the pool), and
   * how many finalizations found the pool empty (409s).
   */
  pool: { made: number; refused: number; exhausted: number };
}

/** What the PostgreSQL part gave: its runs, or why it did not run or did not finish. */
export type PostgresFigures = { skipped: string } | { server: string; runs: PostgresRun[] };

/** How the bench runs a load: connections, seconds, and which scenarios (BENCH_ONLY=get: the GET alone). */
export interface PostgresBenchOptions {
  runner: Runner;
  tmp: string;
  connections: number;
  duration: number;
  onlyGet: boolean;
  /** SQLite's finalizations a second in the same run: sizes the pool generated ahead (times 1.5, for two servers). */
  finalizeRps: number;
  poolMax: number;
  serveArgs: { workers?: number; nodeOptions?: string };
  log: (s: string) => void;
  /** Keeps the run's temporary directory, with the servers' logs, for a look at a failure. */
  keepTmp: () => void;
}

/** The PostgreSQL server the bench creates its database on, and the variable it came from. */
function benchServer(): { url: string; from: string } | undefined {
  for (const from of ["CONTENT_SERVICE_BENCH_DATABASE_URL", "CONTENT_SERVICE_TEST_DATABASE_URL"]) {
    const url = process.env[from];
    if (url?.trim()) return { url, from };
  }
  return undefined;
}

/** The URL without its password, for the report. */
function shown(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.href;
}

/** Runs one statement on the server's own database. */
async function onServer(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Runs the PostgreSQL rows, or says why not. */
export async function benchPostgres(options: PostgresBenchOptions): Promise<PostgresFigures> {
  const server = benchServer();
  if (!server)
    return {
      skipped:
        "neither CONTENT_SERVICE_BENCH_DATABASE_URL nor CONTENT_SERVICE_TEST_DATABASE_URL is set (a server where the " +
        "role may create databases)",
    };
  const name = `cs_bench_${randomBytes(6).toString("hex")}`;
  // UTF-8 and byte order, as sql/postgres/README.md asks of the service's database.
  await onServer(server.url, `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  options.log(`PostgreSQL: database ${name} on ${shown(server.url)} (from ${server.from})`);
  try {
    const runs: PostgresRun[] = [];
    const runner = { ...options.runner, env: { ...options.runner.env, CONTENT_SERVICE_DATABASE_URL: url.href } };
    const fixtures = await prepare(runner, options);
    for (const servers of [1, 2]) runs.push(await runOn(servers, runner, fixtures, options));
    return { server: shown(server.url), runs };
  } catch (error) {
    // SQLite's figures stand without these: the run reports the failure (the servers' logs are kept) and goes on.
    options.keepTmp();
    return {
      skipped: `the PostgreSQL part failed (${(error as Error).message}); its server logs are in ${options.tmp}`,
    };
  } finally {
    // WITH (FORCE) ends the connections of a server a failed run left behind.
    await onServer(server.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** What every configuration loads: the key, the references and the generation's direction. */
interface Fixtures {
  key: string;
  keys: string[];
  refs: number[];
  direction: string;
  initDir: string;
  seed: number;
}

/** Initialises the database and makes the fixtures through a first server, as run.ts does on SQLite. */
async function prepare(runner: Runner, options: PostgresBenchOptions): Promise<Fixtures> {
  const initDir = path.join(options.tmp, "pg-init");
  const { key } = prepareDataDir(runner, initDir);
  const [first] = await startServers(1, runner, key, options);
  try {
    const refs = await benchReferences(first.url, key);
    return { key, keys: [key], refs, direction: BENCH_DIRECTION, initDir, seed: 1000 };
  } finally {
    await stop(first);
  }
}

let started = 0;

/** `count` servers on the database, each with a data directory of its own, answering the key. */
async function startServers(count: number, runner: Runner, key: string, options: PostgresBenchOptions) {
  return Promise.all(
    Array.from({ length: count }, () => {
      const n = ++started;
      return serve(runner, {
        dataDir: path.join(options.tmp, `pg-server-${n}`),
        logFile: path.join(options.tmp, `pg-server-${n}.log`),
        readyPath: "/api/v1/api-keys/current",
        headers: { authorization: `Bearer ${key}` },
        ...options.serveArgs,
      });
    }),
  );
}

/**
 * One autocannon load per server at once, the connections split between them. Requests/s and counts are summed;
 * p50 and p99 are the slower server's (each load keeps its own latencies).
 */
async function spreadLoad(
  name: string,
  servers: Served[],
  pathAndQuery: string,
  options: PostgresBenchOptions,
  extra: Partial<autocannon.Options>,
): Promise<Load> {
  const each = Math.max(1, Math.round(options.connections / servers.length));
  const loads = await Promise.all(
    servers.map((s) =>
      load(name, { connections: each, duration: options.duration, url: `${s.url}${pathAndQuery}`, ...extra }),
    ),
  );
  const sum = (f: (x: Load) => number) => loads.reduce((total, x) => total + f(x), 0);
  return {
    name,
    rps: sum((x) => x.rps),
    p50: Math.max(...loads.map((x) => x.p50)),
    p99: Math.max(...loads.map((x) => x.p99)),
    requests: sum((x) => x.requests),
    non2xx: sum((x) => x.non2xx),
    errors: sum((x) => x.errors),
    timeouts: sum((x) => x.timeouts),
  };
}

/** The three loads on `count` servers sharing the database. */
async function runOn(count: number, runner: Runner, f: Fixtures, options: PostgresBenchOptions): Promise<PostgresRun> {
  const servers = await startServers(count, runner, f.key, options);
  try {
    const auth = { authorization: `Bearer ${f.key}` };
    options.log(`PostgreSQL, ${count} server(s): GET /api-keys/current`);
    const get = await spreadLoad("GET /api-keys/current", servers, "/api/v1/api-keys/current", options, {
      headers: auth,
    });
    if (options.onlyGet) return { servers: count, get, pool: { made: 0, refused: 0, exhausted: 0 } };
    options.log(`PostgreSQL, ${count} server(s): POST /generate`);
    const generate = await spreadLoad("POST /generate", servers, "/api/v1/generate", options, {
      headers: { ...auth, "content-type": "application/json" },
      requests: generateRequests(f.refs, () => f.seed++),
    });
    const { finalize, pool } = await finalizeOn(servers, runner, f, options);
    return { servers: count, get, generate, finalize, pool };
  } finally {
    await Promise.all(servers.map((s) => stop(s)));
  }
}

/** A generated content waiting for its finalization, and the key of its account. */
interface PoolItem {
  id: number;
  text: string;
  key: string;
}

/**
 * The finalize load: a pool of generated contents made ahead over enough accounts that every finalization gets its
 * learning job (an account's monthly analyses: ANALYSES_PER_ACCOUNT), then 5,000-word final texts as run.ts sends.
 */
async function finalizeOn(servers: Served[], runner: Runner, f: Fixtures, options: PostgresBenchOptions) {
  const needed = Math.min(options.poolMax, Math.ceil(options.finalizeRps * 1.5 * options.duration) + 100);
  // Fresh accounts for each configuration's pool, so that no finalization meets a spent quota.
  const firstOwner = f.keys.length;
  const accounts = firstOwner + Math.ceil(needed / ANALYSES_PER_ACCOUNT);
  for (let n = f.keys.length; n < accounts; n++) f.keys.push(extraAccount(runner, f.initDir, n + 1));
  options.log(`PostgreSQL, ${servers.length} server(s): generating ${needed} contents to finalize`);
  const pool: PoolItem[] = [];
  let queued = 0;
  let refused = 0;
  const worker = async (w: number) => {
    while (queued < needed) {
      const n = queued++;
      const owner = f.keys[firstOwner + Math.floor(n / ANALYSES_PER_ACCOUNT)];
      const r = await sendJson(`${servers[w % servers.length].url}/api/v1/generate`, "POST", owner, {
        template_id: 1,
        user_direction: f.direction,
        seed: f.seed++,
      });
      // A refused generation is counted and left out, as a load counts its non-2xx; most refused ends the run.
      if (r.status === 201) pool.push({ id: r.body.content_id, text: r.body.content, key: owner });
      else if (++refused > needed / 10) throw new Error(`generate: ${r.status} ${JSON.stringify(r.body)}`);
      else options.log(`PostgreSQL: a generation for the pool answered ${r.status} ${JSON.stringify(r.body)}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
  const filler = words(5000, 7).split(/\s+/);
  let taken = 0;
  let exhausted = 0;
  const next = (req: autocannon.Request) => {
    let item = pool[taken++];
    if (!item) {
      exhausted++;
      item = pool[taken % pool.length];
    }
    const body = JSON.stringify({
      content_id: item.id,
      finalized_content: finalText(item.id, item.text, filler),
      edit_seconds: 300,
    });
    return { ...req, headers: { ...req.headers, authorization: `Bearer ${item.key}` }, body };
  };
  options.log(`PostgreSQL, ${servers.length} server(s): POST /finalizeContent`);
  const finalize = await spreadLoad("POST /finalizeContent", servers, "/api/v1/finalizeContent", options, {
    headers: { "content-type": "application/json" },
    requests: [{ method: "POST", setupRequest: next } as autocannon.Request],
  });
  return { finalize, pool: { made: pool.length, refused, exhausted } };
}
