import { describe, expect, it } from "vitest";
import { ANONYMOUS_PER_MINUTE } from "../../src/http/ratelimit.js";
import { makeStatesHarness, removedAfterEach, type StatesHarness } from "../helpers/sandbox.js";

const track = removedAfterEach();
const harness = () => track(makeStatesHarness());

const memory = (h: StatesHarness, content: string, auth = h.startKey) =>
  h.sendSandbox("POST", `/api/v1/memories?workspace_id=${h.a.ws1}`, { auth, body: { kind: "context", content } });

describe("POST /_sandbox/reset", () => {
  it("forgets every record made since the start and keeps those of the start", async () => {
    const h = harness();
    const made = await memory(h, "Owners of flat roofs.");
    expect(made.status).toBe(201);
    const later = h.key();
    expect((await h.sendSandbox("POST", "/_sandbox/reset")).status).toBe(204);
    const gone = await h.sendSandbox("GET", `/api/v1/memories/${made.body.id}`, { auth: h.startKey });
    expect(gone.status).toBe(404);
    expect((await h.sendSandbox("GET", "/api/v1/api-keys/current", { auth: later })).status).toBe(401);
    expect((await h.sendSandbox("GET", "/api/v1/api-keys/current", { auth: h.startKey })).status).toBe(200);
  });

  it("goes on writing after it: the next record is stored and read back", async () => {
    const h = harness();
    await memory(h, "Before the reset.");
    await h.sendSandbox("POST", "/_sandbox/reset");
    const after = await memory(h, "After the reset.");
    expect(after.status).toBe(201);
    const read = await h.sendSandbox("GET", `/api/v1/memories/${after.body.id}`, { auth: h.startKey });
    expect(read.body.content).toBe("After the reset.");
  });

  it("resets what memory kept of the state: a client address's spent rate bucket is full again", async () => {
    const h = harness();
    const send = () => h.sendSandbox("GET", "/api/v1/users/me", { remoteAddress: "10.0.0.9" });
    for (let i = 0; i < ANONYMOUS_PER_MINUTE; i++) await send();
    expect((await send()).status).toBe(429);
    await h.sendSandbox("POST", "/_sandbox/reset");
    expect((await send()).status).toBe(401);
  });

  it("puts the test clock back where it stood at the start, with the data of that time", async () => {
    const h = harness();
    const before = (await h.sendSandbox("GET", "/_sandbox/clock")).body;
    await h.sendSandbox("POST", "/_sandbox/clock", { body: { advance: "P91D", freeze: true } });
    expect((await h.sendSandbox("GET", "/_sandbox/clock")).body.offset_ms).toBe(91 * 86_400_000);
    await h.sendSandbox("POST", "/_sandbox/reset");
    expect((await h.sendSandbox("GET", "/_sandbox/clock")).body).toEqual(before);
  });

  it("empties the journal and removes the fault rules", async () => {
    const h = harness();
    await h.sendSandbox("POST", "/_sandbox/faults", { body: { answer: { status: 503 } } });
    await h.sendSandbox("GET", "/api/v1/users/me", { auth: h.startKey });
    await h.sendSandbox("POST", "/_sandbox/reset");
    expect((await h.sendSandbox("GET", "/_sandbox/faults")).body.data).toEqual([]);
    expect((await h.sendSandbox("GET", "/_sandbox/requests")).body.data).toEqual([]);
    expect((await h.sendSandbox("GET", "/api/v1/users/me", { auth: h.startKey })).status).toBe(200);
  });

  it("waits for the requests under way, and answers those asked meanwhile after it, on the state restored", async () => {
    const h = harness();
    const order: string[] = [];
    const slow = h
      .sendSandbox("GET", "/api/v1/api-keys/current", { auth: h.startKey, headers: { prefer: "delay=200ms" } })
      .then((res) => order.push(`slow ${res.status}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reset = h.sendSandbox("POST", "/_sandbox/reset").then(() => order.push("reset"));
    // The reset is waiting for the slow request now: the next one is asked during it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const meanwhile = memory(h, "Asked during the reset.").then((res) => order.push(`meanwhile ${res.status}`));
    await Promise.all([slow, reset, meanwhile]);
    expect(order).toEqual(["slow 200", "reset", "meanwhile 201"]);
    const list = await h.sendSandbox("GET", `/api/v1/memories?workspace_id=${h.a.ws1}`, { auth: h.startKey });
    expect(list.body.data.map((m: { content: string }) => m.content)).toEqual(["Asked during the reset."]);
  });

  it("does not exist without a database file (a sandbox in memory has no known states)", async () => {
    const { makeSandboxHarness } = await import("../helpers/sandbox.js");
    const h = makeSandboxHarness();
    expect((await h.sendSandbox("POST", "/_sandbox/reset")).status).toBe(404);
  });
});
