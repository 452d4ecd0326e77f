/**
 * A stop signal that arrives while `serve` starts (before it listens): the start stops cleanly, exit 0, and a first
 * start's credentials already made are shown all the same. Node's default had ended the process at once, killed by
 * the signal, with the credentials made and never shown. The signal is sent by a preloaded module
 * (helpers/stop-during-start.ts) at a chosen step.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { cli, ENTRY, startServe, tempDir } from "../helpers/cli.js";

const PRELOAD = pathToFileURL(path.resolve(import.meta.dirname, "../helpers/stop-during-start.ts")).href;

/** Runs `serve` with the preload sending `signal` at step `at`; `args` come after serve's own (a later one wins). */
function serveStopped(dir: string, at: string, signal: string, env: Record<string, string> = {}, args: string[] = []) {
  const [importFlag, tsx, main] = ENTRY;
  return spawnSync(
    process.execPath,
    [importFlag, tsx, "--import", PRELOAD, main, "serve", "--data-dir", dir, "--port", "0", "--workers", "1", ...args],
    {
      encoding: "utf8",
      input: "",
      env: { ...process.env, NODE_OPTIONS: "", STOP_AT: at, STOP_SIGNAL: signal, ...env },
      timeout: 60_000,
    },
  );
}

describe("serve stopped while it starts", () => {
  it("SIGTERM during the first start's setup: exit 0, and the credentials it made are shown and valid", async () => {
    const dir = tempDir();
    const run = serveStopped(dir, "first-start", "SIGTERM");
    const output = run.stdout + run.stderr;
    expect({ status: run.status, signal: run.signal }, output).toEqual({ status: 0, signal: null });
    expect(run.stderr).toContain("SIGTERM: stopping before the server listens\n");
    expect(run.stderr).toContain("stopped before listening; the credentials of this first start, valid nonetheless:");
    expect(run.stderr).toMatch(/admin login: admin@localhost \/ password \S+ \(shown once\)/);
    expect(run.stderr).toMatch(/stopped\n$/);
    expect(output).not.toMatch(/listening on/);
    // Standard error took them: no file of them is left behind.
    expect(existsSync(path.join(dir, "first-start-credentials.txt"))).toBe(false);
    const key = /API key \(read, write; shown once\): (svc_live_\w{32})/.exec(run.stderr)?.[1];
    expect(key, run.stderr).toBeDefined();
    // The key shown is the one made: a later start (which shows nothing again) accepts it.
    const server = await startServe(dir);
    try {
      expect(server.output()).not.toMatch(/shown once/);
      const res = await fetch(`${server.url}/api/v1/api-keys/current`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  it("SIGINT before anything is opened: exit 0, no database made, no credentials", () => {
    const dir = tempDir();
    const run = serveStopped(dir, "listeners", "SIGINT");
    expect({ status: run.status, signal: run.signal }, run.stderr).toEqual({ status: 0, signal: null });
    expect(run.stderr).toBe("SIGINT: stopping before the server listens\nstopped\n");
    expect(run.stdout).toBe("");
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(false);
    // The data directory is free: a start now is a first start.
    const init = cli(["init", "--data-dir", dir]);
    expect(init.status, init.stderr).toBe(0);
  });

  it("SIGTERM while the program's modules load (before serve's action): exit 0, nothing opened", () => {
    const dir = tempDir();
    const run = serveStopped(dir, "loading", "SIGTERM");
    // Node's default had ended it there: killed by the signal (status 143 from a shell), without a word.
    expect({ status: run.status, signal: run.signal }, run.stderr).toEqual({ status: 0, signal: null });
    expect(run.stderr).toBe("SIGTERM: stopping before the server listens\nstopped\n");
    expect(run.stdout).toBe("");
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(false);
  });

  it("SIGTERM while the modules load, then an option refused: the usage error alone, exit 2, no stop announced", () => {
    const dir = tempDir();
    // Refused in serve's action, once it has taken the signal recorded while loading (not by commander's parser).
    const run = serveStopped(dir, "loading", "SIGTERM", { CONTENT_SERVICE_LLM_BASE_URL: "http://127.0.0.1:9/v1" });
    expect({ status: run.status, signal: run.signal }, run.stderr).toEqual({ status: 2, signal: null });
    // It had said "stopping before the server listens", then the error, and no "stopped".
    expect(run.stderr).toMatch(/^error: --llm-base-url \(from CONTENT_SERVICE_LLM_BASE_URL\) needs --llm-model .*\n$/);
    expect(run.stderr.split("\n")).toHaveLength(2);
    expect(run.stdout).toBe("");
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(false);
  });

  // Found by review: refused by commander's parser (an option's own check, an unknown option) or the preAction hook,
  // before serve's action took the signal recorded while loading, the refusal re-sent it as for any other command:
  // killed by it (status 143 from a shell), and the error line of a refusal the program writes itself never written.
  it.each([
    { args: ["--port", "abc"], line: 'error: --port must be 0–65535, got "abc"\n' },
    { args: ["--workers", "0"], line: 'error: --workers must be a whole number from 1 to 64, got "0"\n' },
    { args: ["--nosuch"], line: "error: unknown option '--nosuch'\n" },
    { args: ["--json"], line: "error: `serve` prints no records: --json does not apply to it\n" },
  ])(
    "SIGTERM while the modules load, then $args refused as serve's are parsed: its error line alone, exit 2",
    ({ args, line }) => {
      const dir = tempDir();
      const run = serveStopped(dir, "loading", "SIGTERM", {}, args);
      expect({ status: run.status, signal: run.signal, stderr: run.stderr, stdout: run.stdout }).toEqual({
        status: 2,
        signal: null,
        stderr: line,
        stdout: "",
      });
      expect(existsSync(path.join(dir, "content-service.db"))).toBe(false);
    },
  );

  it.each([
    { words: ["openapi"] },
    { words: ["help", "nosuch"] },
    // Refused options too, whether commander writes the refusal or the program does: ended before either is written.
    { words: ["openapi", "--nosuch"] },
    { words: ["keys", "list", "--nosuch"] },
    { words: ["openapi", "--json"] },
    // Nothing to go to: what the program itself writes (an unknown command or option, its usage, help or version).
    { words: ["nosuch"] },
    { words: ["--nosuch", "serve"] },
    { words: [] },
    { words: ["help"] },
    { words: ["-V"] },
  ])("a command other than serve keeps the default: a stop signal while it loads ends it ($words)", ({ words }) => {
    const [importFlag, tsx, main] = ENTRY;
    const run = spawnSync(process.execPath, [importFlag, tsx, "--import", PRELOAD, main, ...words], {
      encoding: "utf8",
      input: "",
      env: { ...process.env, NODE_OPTIONS: "", STOP_AT: "loading", STOP_SIGNAL: "SIGTERM" },
      timeout: 60_000,
    });
    expect({ status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: null,
      signal: "SIGTERM",
      stdout: "",
      stderr: "",
    });
  });

  it("SIGTERM as it listens, and its close fails: the failure is said, the credentials shown, exit 1", () => {
    const dir = tempDir();
    const run = serveStopped(dir, "listening", "SIGTERM", { STOP_CLOSE_FAILS: "1" });
    const output = run.stdout + run.stderr;
    // As a drain whose close fails: a supervisor must not take the failed stop for a clean one.
    expect({ status: run.status, signal: run.signal }, output).toEqual({ status: 1, signal: null });
    expect(run.stderr).toContain("stopping failed: closing failed (injected)\n");
    expect(run.stderr).toContain("stopped before listening; the credentials of this first start, valid nonetheless:");
    expect(run.stderr).toMatch(/API key \(read, write; shown once\): svc_live_\w{32}/);
    expect(run.stderr).toMatch(/stopped\n$/);
  });
});
