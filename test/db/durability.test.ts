import { Agent } from "node:http";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { backupDatabase } from "../../src/cli/maintenance.js";
import { openDb } from "../../src/db/open.js";
import { cli, startServe, tempDir } from "../helpers/cli.js";
import { openRequest, postInParts } from "../helpers/http-client.js";

async function session(url: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(200);
  return (await res.json()).token;
}

describe("durability", () => {
  it("keeps every acknowledged write across kill -9", async () => {
    const dir = tempDir();
    cli(["init", "--data-dir", dir, "--admin-email", "ops@x.test"], { input: "pw-durable-1" });
    cli(["accounts", "set-limits", "1", "--per-minute", "100000", "--per-hour", "1000000", "--data-dir", dir]);
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const server = await startServe(dir);
      const token = await session(server.url, "ops@x.test", "pw-durable-1");
      // Fire writes without waiting, then kill the process while some are still in flight.
      const writes = Array.from({ length: 40 }, (_, i) =>
        fetch(`${server.url}/api/v1/workspaces`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: `r${round}-w${i}` }),
        })
          .then(async (res) => {
            if (res.status === 201) acknowledged.push((await res.json()).id);
          })
          .catch(() => {}),
      );
      await Promise.race([Promise.all(writes.slice(0, 20)), new Promise((r) => setTimeout(r, 2_000))]);
      server.child.kill("SIGKILL");
      await server.exited;
      await Promise.all(writes);
    }
    expect(acknowledged.length).toBeGreaterThan(20);
    const db = openDb(dir);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const present = new Set(db.prepare("SELECT id FROM workspaces").pluck().all() as string[]);
    for (const id of acknowledged) expect(present.has(id), id).toBe(true);
    db.close();
  });

  it("on SIGTERM, also sent twice (as `timeout` does), finishes the request in flight, then exits 0", async () => {
    const dir = tempDir();
    cli(["init", "--data-dir", dir, "--admin-email", "ops@x.test"], { input: "pw-durable-2" });
    const server = await startServe(dir);
    const body = JSON.stringify({ email: "ops@x.test", password: "pw-durable-2" });
    // One connection: a first request makes sure the server has accepted it before the signal.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const warm = openRequest(`${server.url}/healthz`, { agent });
    warm.req.end();
    expect((await warm.answer).status).toBe(200);
    // Send the headers and part of the body, stop the server, then send the rest.
    const res = await postInParts(`${server.url}/api/v1/auth/login`, {
      body,
      firstPart: 10,
      agent,
      meanwhile: async () => {
        await sleep(1_000);
        server.child.kill("SIGTERM");
        // A second signal while it drains must not cut the drain short.
        setTimeout(() => server.child.kill("SIGTERM"), 250);
        await sleep(500);
      },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).token).toBeTruthy();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain("draining");
    expect(server.output()).toContain("SIGTERM: already stopping");
    expect(server.output()).toMatch(/stopped\n$/);
    // Standard output is the request log: JSON lines only (the server's own lines go to standard error).
    const lines = server.stdout().trim().split("\n");
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    // Two requests logged, besides the start's own `database opened`.
    expect(lines.filter((l) => JSON.parse(l).message !== "database opened").length).toBeGreaterThanOrEqual(2);
  });

  it("a third signal stops at once, without waiting for the request in flight (exit 1)", async () => {
    const dir = tempDir();
    const server = await startServe(dir);
    const { port, hostname } = new URL(server.url);
    // A request whose body never ends: the drain would wait for it.
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write("POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n");
    socket.write("Content-Length: 100\r\n\r\n{");
    socket.on("error", () => {});
    await new Promise((r) => setTimeout(r, 300));
    for (const delay of [0, 100, 200]) setTimeout(() => server.child.kill("SIGINT"), delay);
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.output()).toContain("SIGINT: already stopping");
    expect(server.output()).toContain("SIGINT: stopping at once, without finishing the requests in flight");
    socket.destroy();
  });

  it("backs up a consistent copy while the server writes", async () => {
    const dir = tempDir();
    cli(["init", "--data-dir", dir, "--admin-email", "ops@x.test"], { input: "pw-durable-3" });
    cli(["accounts", "set-limits", "1", "--per-minute", "100000", "--per-hour", "1000000", "--data-dir", dir]);
    const server = await startServe(dir);
    const token = await session(server.url, "ops@x.test", "pw-durable-3");
    let stop = false;
    const acknowledgedBefore: string[] = [];
    let backupStarted = false;
    const writer = (async () => {
      for (let i = 0; !stop && i < 2000; i++) {
        const res = await fetch(`${server.url}/api/v1/workspaces`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: `w${i}` }),
        });
        expect(res.status).toBe(201);
        const id = (await res.json()).id;
        if (!backupStarted) acknowledgedBefore.push(id);
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    backupStarted = true;
    const out = `${tempDir()}/backup.db`;
    const { bytes } = backupDatabase(dir, out);
    stop = true;
    await writer;
    server.child.kill("SIGTERM");
    await server.exited;
    expect(bytes).toBeGreaterThan(0);
    const restored = openDb(out.replace(/\/backup\.db$/, ""), { file: "backup.db", readonly: true });
    expect(restored.pragma("integrity_check", { simple: true })).toBe("ok");
    const ids = new Set(restored.prepare("SELECT id FROM workspaces").pluck().all() as string[]);
    expect(acknowledgedBefore.length).toBeGreaterThan(0);
    const missing = acknowledgedBefore.filter((id) => !ids.has(id));
    expect(
      missing,
      `${missing.length} of ${acknowledgedBefore.length}, ${ids.size} in copy: ${missing.slice(0, 3)}`,
    ).toEqual([]);
    restored.close();
  });
});
