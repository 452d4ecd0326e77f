/**
 * Sandbox mode in the built executable (docs/sandbox.md): a YAML fixture's key authenticates from the first request
 * (the YAML reader is bundled), a Prefer fault answers as the real case does, the seeded test clock stands at its
 * fixed start and moves, the journal saw the requests, and a reset and a snapshot work on the executable's database.
 * The in-process suites of each point are test/sandbox/.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Sandbox, type Server } from "./harness.js";

const KEY = "svc_live_0123456789abcdefghijABCDEFGHIJ01";
const FIXTURE = `accounts:
  - name: Acme
    plan: agency
    workspaces: [{ name: Main }]
    keys: [{ name: ci, key: ${KEY} }]
`;

let box: Sandbox;
let server: Server;

beforeAll(async () => {
  box = new Sandbox();
  const fixture = path.join(box.dir, "fixture.yaml");
  writeFileSync(fixture, FIXTURE);
  server = await box.startServer(["--sandbox", "--seed", "1", "--fixtures", fixture]);
}, 60_000);

afterAll(async () => {
  if (server) await box.stopServer(server);
  box?.cleanup();
});

const me = (prefer?: string) =>
  fetch(`${server.base}/api/v1/users/me`, {
    headers: { authorization: `Bearer ${KEY}`, ...(prefer ? { prefer } : {}) },
  });
const post = (p: string, body?: unknown) =>
  fetch(`${server.base}${p}`, {
    method: "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("the single executable in sandbox mode", () => {
  test("says so, and the fixture's key authenticates", async () => {
    expect(server.output()).toContain("Sandbox mode:");
    const res = await me();
    expect(res.status).toBe(200);
    expect(res.headers.get("x-sandbox")).toBe("1");
    expect((await res.json()).account.name).toBe("Acme");
  });

  test("answers a 429 asked for as a spent key is answered, and journals it", async () => {
    const limited = await me("status=429");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    expect((await limited.json()).details.error_code).toBe("rate_limit_exceeded");
    const journal = await (await fetch(`${server.base}/_sandbox/requests?path=/api/v1/users/me`)).json();
    expect(journal.data[0].status).toBe(429);
  });

  test("starts the seeded clock at its fixed instant and moves it on", async () => {
    const clock = await (await fetch(`${server.base}/_sandbox/clock`)).json();
    expect(clock.now).toBe("2030-01-01T09:00:00.000Z");
    const moved = await (await post("/_sandbox/clock", { advance: "P1D" })).json();
    expect(moved.now).toBe("2030-01-02T09:00:00.000Z");
  });

  test("saves a snapshot and resets to the start", async () => {
    expect((await post("/_sandbox/snapshots", { name: "one" })).status).toBe(201);
    expect((await post("/_sandbox/reset")).status).toBe(204);
    expect((await (await fetch(`${server.base}/_sandbox/clock`)).json()).now).toBe("2030-01-01T09:00:00.000Z");
    expect((await me()).status).toBe(200);
    expect((await post("/_sandbox/snapshots/one/restore")).status).toBe(204);
  });
});
