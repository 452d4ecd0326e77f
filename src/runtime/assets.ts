/** Where the program's non-code parts come from: node_modules and src when run from source, the SEA blob inside the executable. */
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Set by the build: a hash of the embedded assets, naming the folder they are written to. */
declare const __CS_BUILD_ID__: string | undefined;

interface SeaModule {
  isSea(): boolean;
  getRawAsset(key: string): ArrayBuffer;
  getAsset(key: string): ArrayBuffer;
}

function sea(): SeaModule | undefined {
  try {
    // node:sea exists from Node 20.12; getBuiltinModule keeps it out of the way of tools that run from source.
    return process.getBuiltinModule?.("node:sea") as SeaModule | undefined;
  } catch {
    return undefined;
  }
}

/** Whether this process is the single executable (Node's SEA). */
export function isSea(): boolean {
  return sea()?.isSea() ?? false;
}

/** Thrown when the executable cannot write or load its embedded files; the message says what to do. */
export class AssetCacheError extends Error {}

let cacheDir: string | undefined;

function rawAsset(key: string): Uint8Array {
  const s = sea();
  if (!s?.isSea()) throw new AssetCacheError(`asset ${key} requested outside the executable`);
  return new Uint8Array(s.getRawAsset(key));
}

// A folder is safe to load code from when no other user can write to it. The base folder may be a symlink (an
// administrator's choice) and owned by root; the per-build folder must be a real folder of this user.
function checkPrivate(dir: string, isBase: boolean): void {
  const st = isBase ? statSync(dir) : lstatSync(dir);
  const allowRoot = isBase;
  const uid = process.getuid?.() ?? 0;
  const owner = st.uid === uid || (allowRoot && st.uid === 0);
  if (!st.isDirectory() || !owner || (st.mode & 0o022) !== 0) {
    throw new AssetCacheError(
      `${dir} is not a private folder of this user (it must be owned by uid ${uid} and not group/world-writable); ` +
        "set CONTENT_SERVICE_CACHE_DIR to a folder of your own",
    );
  }
}

/** The asset of the PostgreSQL client's thread (src/db/pg/thread.ts bundled with pg by build.config.ts). */
export const PG_THREAD_ASSET = "pg-thread.cjs";

/** The files a build writes to its folder (besides its temporary names while writing them). */
const ASSET_FILES = new Set(["better_sqlite3.node", "worker.cjs", PG_THREAD_ASSET]);

function buildId(): string {
  if (typeof __CS_BUILD_ID__ !== "undefined") return __CS_BUILD_ID__;
  const hash = createHash("sha256");
  for (const key of ASSET_FILES) hash.update(rawAsset(key));
  return hash.digest("hex").slice(0, 16);
}

// Candidate base folders, most specific first: the override, XDG, ~/.cache, then a per-user folder in the temp dir.
function cacheBases(): string[] {
  const override = process.env.CONTENT_SERVICE_CACHE_DIR;
  if (override) return [path.resolve(override)];
  const bases: string[] = [];
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) bases.push(path.join(xdg, "content-service"));
  let home = "";
  try {
    home = os.homedir();
  } catch {
    // No home directory (no HOME and no passwd entry): the temp folder below remains.
  }
  if (home && home !== "/") bases.push(path.join(home, ".cache", "content-service"));
  bases.push(path.join(os.tmpdir(), `content-service-${process.getuid?.() ?? "user"}`));
  return bases;
}

/** The per-build folder the executable writes its assets to, created private on first use. */
function assetCacheDir(): string {
  // A folder removed while the program runs (a temp-folder cleaner) is made again, and checked, as at start.
  if (cacheDir && existsSync(cacheDir)) return cacheDir;
  const id = buildId();
  const failures: string[] = [];
  for (const base of cacheBases()) {
    const dir = path.join(base, id);
    try {
      // The base is checked before anything is created inside it.
      mkdirSync(base, { recursive: true, mode: 0o700 });
      checkPrivate(base, true);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      checkPrivate(dir, false);
      cacheDir = dir;
      pruneOldBuilds(base, id);
      return dir;
    } catch (error) {
      if (error instanceof AssetCacheError && process.env.CONTENT_SERVICE_CACHE_DIR) throw error;
      failures.push(`${dir}: ${(error as Error).message}`);
    }
  }
  throw new AssetCacheError(`cannot create a cache folder for the embedded files:\n  ${failures.join("\n  ")}`);
}

/** How long the folder of a build no program has started from is kept (an older build started again rewrites it). */
const UNUSED_BUILD_DAYS = 30;

/**
 * Marks this build's folder as used now and removes the folders of other builds not started for UNUSED_BUILD_DAYS:
 * each upgrade left its predecessor's few megabytes behind for ever. Only folders named as builds are (16 hex
 * digits) are touched. A server of an old build still running when its folder goes writes its files back before a
 * thread needs them (restoreAssets); its own addon is already loaded.
 */
function pruneOldBuilds(base: string, id: string): void {
  try {
    markUsed(path.join(base, id));
    const cutoff = Date.now() - UNUSED_BUILD_DAYS * 86_400_000;
    for (const name of readdirSync(base)) {
      if (name === id || !/^[0-9a-f]{16}$/.test(name)) continue;
      const dir = path.join(base, name);
      const stat = lstatSync(dir);
      // Only a folder holding nothing but what a build writes (CONTENT_SERVICE_CACHE_DIR may name a shared folder).
      if (!stat.isDirectory() || stat.mtimeMs >= cutoff) continue;
      if (readdirSync(dir).every((file) => ASSET_FILES.has(file) || file.endsWith(".tmp")))
        rmSync(dir, { recursive: true, force: true });
    }
  } catch {
    // A cache that cannot be tidied is still usable: it only keeps its old folders.
  }
}

/** When this process last marked its build folder as used (Date.now()). */
let markedAt = 0;

/** Marks a build folder as used now (its mtime), which the prune of other builds reads. */
function markUsed(dir: string): void {
  markedAt = Date.now();
  const now = new Date(markedAt);
  utimesSync(dir, now, now);
}

/** The assets written (or found whole) by this process: key → mode. */
const written = new Map<string, number>();

/**
 * Writes an embedded asset to the cache folder once (temp name, then rename, so readers never see half a file). A
 * file already there is used only when its bytes are the embedded ones: one of the same size but other content (a
 * disk error, a hand edit) had been loaded as it was, an addon failing with "invalid ELF header" on every start and a
 * worker bundle stopping the server after it listened.
 */
function writeAsset(key: string, mode: number): string {
  const file = path.join(assetCacheDir(), key);
  if (written.has(key) && existsSync(file)) return file;
  const data = rawAsset(key);
  if (sameBytes(file, data)) {
    written.set(key, mode);
    return file;
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, data, { mode, flag: "wx" });
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw new AssetCacheError(`cannot write ${file}: ${(error as Error).message}`);
  }
  written.set(key, mode);
  return file;
}

function sameBytes(file: string, data: Uint8Array): boolean {
  try {
    if (statSync(file).size !== data.byteLength) return false;
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).equals(readFileSync(file));
  } catch {
    return false;
  }
}

/**
 * Writes back the asset files removed from the cache while the program runs (a temp-folder cleaner, an administrator
 * clearing ~/.cache): worker threads start later, some on their first task, and load them from there; a missing
 * worker bundle had stopped the server. Called before a task is handed to a pool that may start a thread for it
 * (pool.ts): a look at each file (a few microseconds).
 */
export function restoreAssets(): void {
  // A server running for weeks marks its folder as used now and then, so that a newer build's prune keeps it.
  if (cacheDir && Date.now() - markedAt > 86_400_000) {
    try {
      markUsed(cacheDir);
    } catch {
      // Marked again by the next start; the files are written back below if they went.
    }
  }
  for (const [key, mode] of written) {
    try {
      writeAsset(key, mode);
    } catch {
      // Nothing better to do here: the thread that needs it fails with the loader's message.
    }
  }
}

/**
 * Files the server sends as they are (the API reference page's script and its licence notice), by asset key: the
 * npm file each one is, embedded by the build (build.config.ts) and never written to the cache folder.
 */
export const SERVED_ASSETS = {
  "redoc.standalone.js": "redoc/bundles/redoc.standalone.js",
  "redoc.standalone.js.LICENSE.txt": "redoc/bundles/redoc.standalone.js.LICENSE.txt",
} as const;

/** A key of SERVED_ASSETS. */
export type ServedAsset = keyof typeof SERVED_ASSETS;

/** The bytes of a served asset: the executable's embedded copy, or the npm package's file when run from source. */
export function servedAsset(key: ServedAsset): Uint8Array {
  const s = sea();
  // getAsset copies the bytes out of the executable's read-only memory: a copy is safe to hand to any writer.
  if (s?.isSea()) return new Uint8Array(s.getAsset(key));
  return readFileSync(createRequire(import.meta.url).resolve(SERVED_ASSETS[key]));
}

/** The dashboard's folder, built by `npm run build:dashboard` (scripts/build-dashboard.ts), under the source root. */
export const DASHBOARD_DIR = "dist/dashboard";

/** The asset listing the dashboard's files inside the executable (a JSON array of their paths in DASHBOARD_DIR). */
export const DASHBOARD_INDEX_ASSET = "dashboard.json";

/** The asset key of one dashboard file inside the executable. */
export function dashboardAssetKey(file: string): string {
  return `dashboard/${file}`;
}

/** Every file of a folder, as paths relative to it with forward slashes; dot files (the build's hash) left out. */
export function dashboardFileNames(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith(".")) return [];
    if (!entry.isDirectory()) return [entry.name];
    return dashboardFileNames(path.join(dir, entry.name)).map((name) => `${entry.name}/${name}`);
  });
}

/**
 * The dashboard's built files by path (index.html, assets/…): the executable's embedded copies, or the build folder's
 * when run from source; undefined when it has not been built there.
 */
export function dashboardFiles(): Map<string, Uint8Array> | undefined {
  const s = sea();
  if (s?.isSea()) {
    const names = JSON.parse(Buffer.from(s.getAsset(DASHBOARD_INDEX_ASSET)).toString("utf8")) as string[];
    return new Map(names.map((name) => [name, new Uint8Array(s.getAsset(dashboardAssetKey(name)))]));
  }
  const dir = path.join(sourceRoot(), DASHBOARD_DIR);
  if (!existsSync(path.join(dir, "index.html"))) return undefined;
  return new Map(dashboardFileNames(dir).map((name) => [name, readFileSync(path.join(dir, name))]));
}

let addon: unknown;

/** The better-sqlite3 addon to hand to its `nativeBinding` option, or undefined to let it find its own. */
export function sqliteNativeBinding(): unknown {
  if (!isSea()) return undefined;
  if (addon) return addon;
  addon = loadSqliteAddon(writeAsset("better_sqlite3.node", 0o700));
  return addon;
}

/** The SQLite addon's file in the asset cache (inside the executable), for worker threads to load; else undefined. */
export function sqliteAddonFile(): string | undefined {
  return isSea() ? writeAsset("better_sqlite3.node", 0o700) : undefined;
}

/** Loads the SQLite addon from a file (process.dlopen), as better-sqlite3's `nativeBinding`. */
export function loadSqliteAddon(file: string): unknown {
  const mod = { exports: {} };
  try {
    process.dlopen(mod, file);
  } catch (error) {
    throw new AssetCacheError(
      `cannot load the SQLite addon ${file}: ${(error as Error).message} ` +
        "(a noexec filesystem prevents it: set CONTENT_SERVICE_CACHE_DIR to a folder on another filesystem)",
    );
  }
  return mod.exports;
}

/** The piscina worker file and the exec arguments it needs. */
export function workerEntry(): { filename: string; execArgv: string[] } {
  if (isSea()) {
    const filename = writeAsset("worker.cjs", 0o600);
    // The build patches piscina to start this file as its worker runtime (see build.config.ts).
    (globalThis as { __CS_PISCINA_WORKER__?: string }).__CS_PISCINA_WORKER__ = filename;
    return { filename, execArgv: [] };
  }
  // An absolute URL, so that worker threads load tsx whatever the current directory is.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return { filename: path.join(sourceRoot(), "src/workers/worker.ts"), execArgv: ["--import", tsx] };
}

/**
 * What starts a SyncPgClient's thread (src/db/pg/sync-client.ts), as `new Worker(script, options)` takes it: the bundle
 * written from the executable; from source, a line of code that loads the TypeScript file through tsx's require
 * (tsx's `--import` does not reach a thread's main script, which Node then refuses for its .ts extension).
 */
export function pgThreadEntry(): { script: string; eval: boolean } {
  if (isSea()) return { script: writeAsset(PG_THREAD_ASSET, 0o600), eval: false };
  const file = JSON.stringify(path.join(sourceRoot(), "src/db/pg/thread.ts"));
  const tsx = JSON.stringify(createRequire(import.meta.url).resolve("tsx/cjs/api"));
  return { script: `require(${tsx}).require(${file}, ${file});`, eval: true };
}

/** The repository root when running from source (for sql/); the executable's folder inside the executable. */
export function sourceRoot(): string {
  if (isSea()) return path.dirname(process.execPath);
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
}
