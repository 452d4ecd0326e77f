/** Runs the CLI from source in a child process, and starts servers for end-to-end checks. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect } from "vitest";
import { openDb } from "../../src/db/open.js";
import { createStore, type Store } from "../../src/db/store.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
// Node itself with tsx's loader, not tsx's command line: that one runs the program in a child process of its own, so
// a signal (kill -9 in the crash tests) reached the wrapper and left the real server running as an orphan.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/** Node's arguments that run the CLI from source. */
export const ENTRY = ["--import", TSX, path.join(ROOT, "src/main.ts")];

const made: string[] = [];
// Each test file gets its own copy of this module: its folders go when the file's tests end.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary data directory, removed after the test file. */
export function tempDir(prefix = "cs-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** The outcome of one CLI run. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: parsed --json output.
  json(): any;
}

/** Runs `content-service ...args` with an optional stdin. */
export function cli(args: string[], opts: { input?: string; env?: Record<string, string | undefined> } = {}): CliRun {
  const res = spawnSync(process.execPath, [...ENTRY, ...args], {
    input: opts.input ?? "",
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "", ...opts.env },
    timeout: 60_000,
    // `openapi` prints over 1 MiB, spawnSync's default, past which the output is cut.
    maxBuffer: 64 * 1024 * 1024,
  });
  return {
    status: res.status,
    stdout: res.stdout,
    stderr: res.stderr,
    json: () => JSON.parse(res.stdout),
  };
}

/** Runs the CLI from source as another user (the tests that need one run as root). */
export function asUser(uid: number, args: string[]) {
  return spawnSync(process.execPath, [...ENTRY, ...args], {
    input: "",
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "", HOME: "/tmp" },
    timeout: 60_000,
    uid,
    gid: uid,
  });
}

/** A fresh data directory made by `init`: its path, the `--data-dir` arguments and its database file. */
export function initDir(): { dir: string; d: string[]; file: string } {
  const dir = tempDir();
  const d = ["--data-dir", dir];
  const run = cli(["init", ...d]);
  expect(run.status, run.stderr).toBe(0);
  return { dir, d, file: path.join(dir, "content-service.db") };
}

/** A server started with `serve` in a child process. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Standard output and standard error, as they came. */
  output(): string;
  /** Standard output alone (the request log). */
  stdout(): string;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `serve` on a free port and waits for its "listening on" line; `env` is added to this process's (undefined
 * removes a variable).
 */
export async function startServe(
  dataDir: string,
  extra: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [...ENTRY, "serve", "--data-dir", dataDir, "--port", "0", "--workers", "1", ...extra],
    { env: { ...process.env, NODE_OPTIONS: "", ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  return untilListening(child);
}

/** Follows a process that runs `serve` (itself or through npm) until its "listening on" line. */
export async function untilListening(child: ChildProcess): Promise<ServerProcess> {
  let out = "";
  let stdout = "";
  child.stdout!.on("data", (d) => {
    out += d;
    stdout += d;
  });
  child.stderr!.on("data", (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening:\n${out}`));
    });
  });
  return { url, child, output: () => out, stdout: () => stdout, exited };
}

/** Runs `fn` on the data directory's store, as the server would have written, and closes it. */
export async function withDb<T>(dir: string, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const db = openDb(dir);
  try {
    return await fn(createStore(db));
  } finally {
    db.close();
  }
}
