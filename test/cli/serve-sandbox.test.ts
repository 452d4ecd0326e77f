/**
 * `serve --sandbox` from the command line (src/cli/serve/options.ts checkSandboxOptions, listen.ts): refused on an
 * address other than loopback without --sandbox-allow-remote, its variable read as on or off, the start banner saying
 * so, and the executable's answers marked.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, startServe, tempDir } from "../helpers/cli.js";

const CLEAN = { CONTENT_SERVICE_SANDBOX: undefined, CONTENT_SERVICE_SANDBOX_ALLOW_REMOTE: undefined };

describe("serve --sandbox: the checks before the start", () => {
  it("is refused on an address other than loopback without --sandbox-allow-remote: one line, exit 2", () => {
    const dir = tempDir();
    const run = cli(["serve", "--data-dir", dir, "--sandbox", "--host", "0.0.0.0", "--port", "0"], { env: CLEAN });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("--sandbox on --host 0.0.0.0, not a loopback address: add --sandbox-allow-remote");
    // Refused before the data directory is made.
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(false);
  });

  it("reads CONTENT_SERVICE_SANDBOX as on (1, true) or off (0, false), and refuses anything else", () => {
    const dir = tempDir();
    const remote = ["serve", "--data-dir", dir, "--host", "0.0.0.0", "--port", "0"];
    const on = cli(remote, { env: { ...CLEAN, CONTENT_SERVICE_SANDBOX: "true" } });
    expect(on.status).toBe(2);
    expect(on.stderr).toContain("not a loopback address");
    const bad = cli(remote, { env: { ...CLEAN, CONTENT_SERVICE_SANDBOX: "maybe" } });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('CONTENT_SERVICE_SANDBOX must be 1 or 0 (true or false), got "maybe"');
  });
});

describe("serve --sandbox: the running server", () => {
  it("says so in its banner, marks every answer and serves /_sandbox/; without it, none of that", async () => {
    for (const [extra, env] of [
      [["--sandbox"], CLEAN],
      [[], { ...CLEAN, CONTENT_SERVICE_SANDBOX: "1" }],
      [[], { ...CLEAN, CONTENT_SERVICE_SANDBOX: "0" }],
    ] as const) {
      const on = extra.length > 0 || env.CONTENT_SERVICE_SANDBOX === "1";
      const server = await startServe(tempDir(), [...extra], env);
      try {
        for (let i = 0; i < 200 && !server.output().includes("API reference:"); i++)
          await new Promise((r) => setTimeout(r, 25));
        expect(server.output().includes("\nSandbox mode: "), server.output()).toBe(on);
        const health = await fetch(`${server.url}/healthz`);
        expect(health.headers.get("x-sandbox")).toBe(on ? "1" : null);
        const journal = await fetch(`${server.url}/_sandbox/requests`);
        expect(journal.status).toBe(on ? 200 : 404);
        if (on) expect((await journal.json()).data[0]).toMatchObject({ method: "GET", path: "/healthz" });
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    }
  });
});
