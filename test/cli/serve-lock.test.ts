import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { cli, type ServerProcess, startServe, tempDir } from "../helpers/cli.js";
import { postInParts } from "../helpers/http-client.js";

async function stop(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
  await server.exited;
}

describe("serve's data-directory lock", () => {
  it("refuses a second server on the same data directory; a killed server's lock goes with it", async () => {
    const dir = tempDir();
    const first = await startServe(dir);
    try {
      const second = cli(["serve", "--data-dir", dir, "--port", "0", "--workers", "1"]);
      expect(second.status).toBe(1);
      expect(second.stderr).toBe(`error: another server is using ${dir} (pid ${first.child.pid})\n`);
      expect(second.stdout).toBe("");
      // The first one is unaffected.
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      first.child.kill("SIGKILL");
      await first.exited;
    }
    // kill -9 leaves no stale lock: a new server starts at once.
    const next = await startServe(dir);
    await stop(next);
    expect(await next.exited, next.output()).toEqual({ code: 0, signal: null });
  });
});

describe("serve's first start", () => {
  it("shows no credentials when it cannot listen, and shows them on the start that does", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    const dir = tempDir();
    try {
      const failed = cli(["serve", "--data-dir", dir, "--port", String(port), "--workers", "1"]);
      expect(failed.status).toBe(1);
      expect(failed.stderr).toBe(
        `error: cannot listen: --port ${port} is in use (on --host 127.0.0.1): another program listens there\n`,
      );
      expect(failed.stdout + failed.stderr).not.toMatch(/svc_live_|password|shown once/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    const server = await startServe(dir);
    try {
      expect(server.output()).toMatch(/API key \(read, write; shown once\): svc_live_\w{32}/);
      expect(server.output()).toMatch(/admin login: admin@localhost \/ password \S+ \(shown once\)/);
    } finally {
      await stop(server);
    }
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(true);
  });

  it("describes the address it listens on (--port 0) and refuses a --public-url that is not http(s)", async () => {
    const dir = tempDir();
    const server = await startServe(dir);
    try {
      const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
      expect(doc.servers[0].url).toBe(server.url);
      expect(doc.servers[1].url).toBe(server.url.replace("127.0.0.1", "staging.localhost"));
      expect(JSON.stringify(doc.servers)).not.toMatch(/:0"/);
    } finally {
      await stop(server);
    }
    for (const args of [
      ["--public-url", "not a url"],
      ["--staging-url", "ftp://example.test"],
    ]) {
      const run = cli(["serve", "--data-dir", dir, "--port", "0", ...args]);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/must be an http\(s\) URL/);
    }
    const env = cli(["serve", "--data-dir", dir, "--port", "0"], { env: { CONTENT_SERVICE_PUBLIC_URL: "nope" } });
    expect(env.status).toBe(2);
  });
});

describe("serve and SIGUSR1", () => {
  it("opens no debugger (Node's default for the signal), says so and goes on answering", async () => {
    const server = await startServe(tempDir());
    try {
      server.child.kill("SIGUSR1");
      const deadline = Date.now() + 5_000;
      while (!server.output().includes("SIGUSR1: ignored") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(server.output()).toContain("SIGUSR1: ignored");
      expect(server.output()).not.toMatch(/Debugger listening/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await stop(server);
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});

describe("serve and SIGHUP", () => {
  it("drains and stops as on SIGTERM: a request in flight is answered, exit 0 (Node's default ended it at once)", async () => {
    const server = await startServe(tempDir());
    const key = /svc_live_\w+/.exec(server.output())?.[0];
    expect(key).toBeDefined();
    // A write whose body is still arriving when the signal comes.
    const body = JSON.stringify({ title: "t", content: "Some text." });
    const res = await postInParts(`${server.url}/api/v1/contents`, {
      body,
      firstPart: 5,
      headers: { authorization: `Bearer ${key}` },
      meanwhile: async () => {
        await sleep(100);
        server.child.kill("SIGHUP");
        await sleep(200);
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain("SIGHUP: draining and stopping");
  });
});
