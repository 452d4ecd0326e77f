/**
 * contrib/content-service.service: systemd accepts it (`systemd-analyze verify`, where installed), its ExecStart is a
 * command line the real program starts a server with, and its stop settings match the server's graceful shutdown.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SHUTDOWN_LIMIT_MS } from "../../src/cli/serve/shutdown.js";
import { STOP_SIGNALS } from "../../src/cli/stop-signals.js";
import { ENTRY, tempDir, untilListening } from "../helpers/cli.js";

const UNIT_FILE = path.resolve(import.meta.dirname, "../../contrib/content-service.service");
const UNIT = readFileSync(UNIT_FILE, "utf8");
const EXECUTABLE = "/usr/local/bin/content-service";
const HAVE_SYSTEMD_ANALYZE = spawnSync("systemd-analyze", ["--version"], { stdio: "ignore" }).status === 0;

/** The values of a directive in the unit, in order. */
function directive(name: string): string[] {
  return [...UNIT.matchAll(new RegExp(`^${name}=(.*)$`, "gm"))].map((m) => m[1]);
}

/** ExecStart's words, split as systemd splits them: on spaces, a double-quoted word kept whole. */
function execStart(): string[] {
  const [line] = directive("ExecStart");
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

describe("the systemd unit", () => {
  it.skipIf(!HAVE_SYSTEMD_ANALYZE)(
    `passes systemd-analyze verify${HAVE_SYSTEMD_ANALYZE ? "" : " (skipped: systemd-analyze is not installed)"}`,
    () => {
      // verify also checks that ExecStart's program exists: a stub stands at its place for this machine.
      const dir = tempDir("cs-unit-");
      const stub = path.join(dir, "content-service");
      writeFileSync(stub, "#!/bin/sh\n");
      chmodSync(stub, 0o755);
      const unit = path.join(dir, "content-service.service");
      writeFileSync(unit, UNIT.replaceAll(EXECUTABLE, stub));
      const run = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" });
      // An unknown or misspelt directive is only a warning on stderr (exit 0): none is allowed.
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: "" });
    },
  );

  it("runs the executable's serve with flags the program accepts: a server starts with them and stops on SIGTERM", async () => {
    const [program, ...args] = execStart();
    expect(program).toBe(EXECUTABLE);
    expect(args[0]).toBe("serve");
    // The unit's own flags, then this test's data directory and a free port (a later flag wins).
    const child = spawn(process.execPath, [...ENTRY, ...args, "--data-dir", tempDir(), "--port", "0"], {
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const server = await untilListening(child);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    child.kill(directive("KillSignal")[0] as NodeJS.Signals);
    expect((await server.exited).code, server.output()).toBe(0);
  });

  it("stops as the server drains: a stop signal it handles, and a timeout past the server's own limit", () => {
    const [signal] = directive("KillSignal");
    expect(STOP_SIGNALS).toContain(signal);
    const [timeout] = directive("TimeoutStopSec");
    expect(timeout).toMatch(/^\d+s$/);
    expect(Number.parseInt(timeout, 10) * 1000).toBeGreaterThan(SHUTDOWN_LIMIT_MS);
  });

  it("clears NODE_OPTIONS, restarts on failure and keeps its data in its state directory", () => {
    expect(directive("Environment")).toContain("NODE_OPTIONS=");
    expect(directive("Restart")).toEqual(["on-failure"]);
    expect(directive("StateDirectory")).toEqual(["content-service"]);
    const args = execStart();
    expect(args[args.indexOf("--data-dir") + 1]).toBe("/var/lib/content-service");
    expect(directive("ReadWritePaths")[0].split(" ")).toContain("/var/lib/content-service");
    expect(directive("NoNewPrivileges")).toEqual(["yes"]);
    expect(directive("ProtectSystem")).toEqual(["strict"]);
  });
});
