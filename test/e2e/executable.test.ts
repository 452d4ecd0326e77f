/** End-to-end: the built executable, copied alone into an empty folder, serves the API over a real socket. */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// E2E_EXECUTABLE tests another build of the same program.
const built = path.resolve(process.env.E2E_EXECUTABLE ?? path.join(root, "dist/content-service"));
const ADMIN_EMAIL = "admin@e2e.test";
const ADMIN_PASSWORD = "e2e-Correct-Horse-42";
// More cycles (E2E_CYCLES=30) make the intermittent shutdown abort of Node 24.19+ headers show up reliably.
const CYCLES = Number(process.env.E2E_CYCLES ?? 5);

let dir = "";
let exe = "";
let dataDir = "";

/** An environment with nothing from this repository in reach: no node_modules, no NODE_OPTIONS, HOME in the temp dir. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: "/usr/bin:/bin", HOME: dir, LANG: "C.UTF-8", ...extra };
}

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs one CLI command to completion, feeding `input` on stdin. */
function cli(args: string[], input = "", extraEnv: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { cwd: dir, env: env(extraEnv), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `serve` and resolves once it has printed its address and /healthz answers 200. */
async function startServer(): Promise<Server> {
  const port = await freePort();
  const child = spawn(exe, ["serve", "--data-dir", dataDir, "--host", "127.0.0.1", "--port", String(port)], {
    cwd: dir,
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 20_000;
  let base = "";
  let stopped = false;
  exited.then(() => {
    stopped = true;
  });
  while (Date.now() < deadline && !stopped) {
    const m = /listening on (http:\/\/[^\s/]+)/.exec(out);
    if (m && !base) base = m[1];
    if (base) {
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return { child, base, output: () => out, exited };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`serve did not become healthy (base ${base || "not printed"}); output:\n${out}`);
}

/** Sends SIGTERM and waits for the exit, failing after 15 seconds. */
async function stopServer(server: Server): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  server.child.kill("SIGTERM");
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`no exit 15 s after SIGTERM; output:\n${server.output()}`)), 15_000),
  );
  return Promise.race([server.exited, timeout]);
}

beforeAll(() => {
  // A missing build is a failure, not a skip: this suite exists to prove the shipped artefact works.
  if (!existsSync(built)) throw new Error(`${built} does not exist: run \`npm run build\` first`);
  dir = mkdtempSync(path.join(os.tmpdir(), "cs-e2e-"));
  exe = path.join(dir, "content-service");
  copyFileSync(built, exe);
  dataDir = path.join(dir, "data");
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the single executable", () => {
  let key = "";
  let server: Server | undefined;

  afterAll(() => {
    server?.child.kill("SIGKILL");
  });

  test("init creates the database and the admin from the password on stdin", async () => {
    const r = await cli(
      ["init", "--data-dir", dataDir, "--account-name", "E2E", "--admin-email", ADMIN_EMAIL],
      `${ADMIN_PASSWORD}\n`,
    );
    expect(r.stderr + r.stdout).not.toMatch(/ExperimentalWarning|single-executable|Assertion failed/i);
    expect(r, r.stderr).toMatchObject({ code: 0 });
  });

  test("writes its embedded files to a private per-build folder under ~/.cache", () => {
    const base = path.join(dir, ".cache", "content-service");
    const builds = readdirSync(base);
    expect(builds).toHaveLength(1);
    const buildDir = path.join(base, builds[0]);
    expect(statSync(buildDir).mode & 0o077).toBe(0);
    expect(readdirSync(buildDir).sort()).toContain("better_sqlite3.node");
  });

  test("keys create --json prints one JSON document with the key", async () => {
    const r = await cli(["keys", "create", "--account", "1", "--name", "e2e", "--json", "--data-dir", dataDir]);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    const created = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(created)).toEqual(
      expect.arrayContaining(["id", "key", "name", "scopes", "workspace_id", "expires_at"]),
    );
    expect(created.name).toBe("e2e");
    expect(created.key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    key = created.key as string;
  });

  test("honours CONTENT_SERVICE_CACHE_DIR", async () => {
    const cacheDir = path.join(dir, "other-cache");
    const r = await cli(["keys", "list", "--json", "--data-dir", dataDir], "", { CONTENT_SERVICE_CACHE_DIR: cacheDir });
    expect(r, r.stderr).toMatchObject({ code: 0 });
    const [build] = readdirSync(cacheDir);
    expect(readdirSync(path.join(cacheDir, build))).toContain("better_sqlite3.node");
  });

  test("serve answers over HTTP", async () => {
    server = await startServer();
    const base = `${server.base}/api/v1`;
    const auth = { authorization: `Bearer ${key}` };

    const current = await fetch(`${base}/api-keys/current`, { headers: auth });
    expect(current.status).toBe(200);
    const body = (await current.json()) as Record<string, unknown>;
    expect(JSON.stringify(body)).toContain('"e2e"');
    expect(JSON.stringify(body)).toMatch(/"scopes"/);

    const anonymous = await fetch(`${base}/api-keys/current`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: string }).error).toBe("UNAUTHORIZED");

    // Login verifies the scrypt hash on the worker pool: this proves the embedded worker bundle runs.
    const login = await fetch(`${base}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    expect(typeof token).toBe("string");

    const wrong = await fetch(`${base}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: "not-the-password" }),
    });
    expect(wrong.status).toBe(401);

    const me = await fetch(`${base}/users/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(JSON.stringify(await me.json())).toContain(ADMIN_EMAIL);

    const [build] = readdirSync(path.join(dir, ".cache", "content-service"));
    expect(readdirSync(path.join(dir, ".cache", "content-service", build))).toContain("worker.cjs");

    const openapi = await fetch(`${base}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
  });

  test("SIGTERM stops the server with exit code 0", async () => {
    if (!server) throw new Error("the server did not start");
    const result = await stopServer(server);
    expect(result, server.output()).toEqual({ code: 0, signal: null });
    expect(server.output()).not.toMatch(/Assertion failed|Aborted|single-executable/i);
    server = undefined;
  });

  test(`${CYCLES} start/stop cycles each exit cleanly`, async () => {
    const failures: string[] = [];
    for (let i = 0; i < CYCLES; i++) {
      server = await startServer();
      // Prepared statements exist when the process exits: the shutdown abort this guards against is in their destructor.
      const r = await fetch(`${server.base}/api/v1/api-keys/current`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(200);
      const result = await stopServer(server);
      if (result.code !== 0 || result.signal) {
        failures.push(`cycle ${i + 1}: ${JSON.stringify(result)}\n${server.output()}`);
      }
      server = undefined;
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
