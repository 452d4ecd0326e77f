/**
 * `serve --sandbox --fixtures FILE` from the command line (src/cli/serve/start.ts fixturesOf): a file that cannot be
 * used stops the start with one line naming it and the JSON path at fault; a good one's keys authenticate from the
 * first request, and the banner says what it made.
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, startServe, tempDir } from "../helpers/cli.js";

const KEY = `svc_live_${"Q7w8E9r0".repeat(4)}`;
const CLEAN = { CONTENT_SERVICE_SANDBOX: undefined, CONTENT_SERVICE_SANDBOX_FIXTURES: undefined };

function fixtureFile(name: string, text: string): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

describe("serve --fixtures: refusals before the start", () => {
  it("refuses a bad fixture with one line naming the file and the JSON path, before the data directory is made", () => {
    const dir = tempDir();
    const file = fixtureFile("bad.json", '{"accounts": [{"name": "Acme", "plan": "gold"}]}');
    const run = cli(["serve", "--data-dir", dir, "--sandbox", "--port", "0", "--fixtures", file], { env: CLEAN });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(`--fixtures ${file}: accounts[0].plan: `);
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(false);
  });

  it("needs --sandbox", () => {
    const file = fixtureFile("f.json", '{"accounts": []}');
    const run = cli(["serve", "--data-dir", tempDir(), "--port", "0", "--fixtures", file], { env: CLEAN });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--fixtures \S+ needs --sandbox/);
  });
});

describe("serve --fixtures: the running server", () => {
  it("loads a YAML fixture: its key authenticates, the banner counts it, a reset keeps it", async () => {
    const file = fixtureFile(
      "f.yaml",
      `accounts:\n  - name: Acme\n    plan: agency\n    workspaces: [{ name: Main }]\n    keys: [{ name: ci, key: ${KEY} }]\n`,
    );
    const server = await startServe(tempDir(), ["--sandbox", "--fixtures", file], CLEAN);
    try {
      const auth = { headers: { authorization: `Bearer ${KEY}` } };
      expect((await fetch(`${server.url}/api/v1/api-keys/current`, auth)).status).toBe(200);
      for (let i = 0; i < 200 && !server.output().includes("Fixtures:"); i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(server.output()).toContain("Fixtures: 1 accounts (Acme), 1 keys");
      expect((await fetch(`${server.url}/_sandbox/reset`, { method: "POST" })).status).toBe(204);
      expect((await fetch(`${server.url}/api/v1/api-keys/current`, auth)).status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });
});
