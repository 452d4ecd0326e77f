/** The built executable, copied alone into an empty folder, with helpers to run its commands and its server. */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// E2E_EXECUTABLE tests another build of the same program.
export const built = path.resolve(process.env.E2E_EXECUTABLE ?? path.join(root, "dist/content-service"));

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Server {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, the description's paths (`/api/v1/…`) go after it. */
  base: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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

export class Sandbox {
  readonly dir: string;
  readonly exe: string;
  readonly dataDir: string;

  constructor() {
    // A missing build is a failure, not a skip: this suite exists to prove the shipped artefact works.
    if (!existsSync(built)) throw new Error(`${built} does not exist: run \`npm run build\` first`);
    this.dir = mkdtempSync(path.join(os.tmpdir(), "cs-e2e-"));
    this.exe = path.join(this.dir, "content-service");
    copyFileSync(built, this.exe);
    this.dataDir = path.join(this.dir, "data");
  }

  /** An environment with nothing from this repository in reach: no node_modules, no NODE_OPTIONS, HOME in the temp dir. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { PATH: "/usr/bin:/bin", HOME: this.dir, LANG: "C.UTF-8", ...extra };
  }

  /** Runs one CLI command to completion, feeding `input` on stdin. */
  cli(args: string[], input = "", extraEnv: Record<string, string> = {}): Promise<Result> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.exe, args, { cwd: this.dir, env: this.env(extraEnv), stdio: ["pipe", "pipe", "pipe"] });
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

  /** Starts `serve` (with `args` after its own) and resolves once it has printed its address and /healthz answers 200. */
  async startServer(args: string[] = []): Promise<Server> {
    const port = await freePort();
    const child = spawn(
      this.exe,
      ["serve", "--data-dir", this.dataDir, "--host", "127.0.0.1", "--port", String(port), ...args],
      { cwd: this.dir, env: this.env(), stdio: ["ignore", "pipe", "pipe"] },
    );
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
  async stopServer(server: Server): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    server.child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no exit 15 s after SIGTERM; output:\n${server.output()}`)), 15_000);
    });
    try {
      return await Promise.race([server.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
