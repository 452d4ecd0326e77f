/**
 * Named snapshots (src/sandbox/states.ts, /_sandbox/snapshots): save the data under a name, list, restore and remove
 * them; a restore keeps the journal and the fault rules, a save under a taken name replaces it.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeStatesHarness, removedAfterEach, type StatesHarness } from "../helpers/sandbox.js";

const track = removedAfterEach();
const harness = () => track(makeStatesHarness());

const memory = (h: StatesHarness, content: string) =>
  h.sendSandbox("POST", `/api/v1/memories?workspace_id=${h.a.ws1}`, {
    auth: h.startKey,
    body: { kind: "context", content },
  });
const contents = async (h: StatesHarness) =>
  (await h.sendSandbox("GET", `/api/v1/memories?workspace_id=${h.a.ws1}`, { auth: h.startKey })).body.data.map(
    (m: { content: string }) => m.content,
  );

describe("named snapshots", () => {
  it("saves the data under a name (201, Location) and restores it", async () => {
    const h = harness();
    await memory(h, "Kept.");
    const saved = await h.sendSandbox("POST", "/_sandbox/snapshots", { body: { name: "one-memory" } });
    expect(saved.status).toBe(201);
    expect(saved.headers.get("location")).toBe("/_sandbox/snapshots/one-memory");
    expect(saved.body).toMatchObject({ name: "one-memory", size_bytes: expect.any(Number) });
    expect(existsSync(path.join(h.dataDir, "sandbox", "one-memory.db"))).toBe(true);
    await memory(h, "Lost.");
    expect((await h.sendSandbox("POST", "/_sandbox/snapshots/one-memory/restore")).status).toBe(204);
    expect(await contents(h)).toEqual(["Kept."]);
  });

  it("lists them oldest first; a save under a taken name replaces it and counts as the newest", async () => {
    const h = harness();
    for (const name of ["a", "b", "a"]) await h.sendSandbox("POST", "/_sandbox/snapshots", { body: { name } });
    const list = await h.sendSandbox("GET", "/_sandbox/snapshots");
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(["b", "a"]);
  });

  it("removes one (204), then answers 404 for it", async () => {
    const h = harness();
    await h.sendSandbox("POST", "/_sandbox/snapshots", { body: { name: "gone" } });
    expect((await h.sendSandbox("DELETE", "/_sandbox/snapshots/gone")).status).toBe(204);
    expect(existsSync(path.join(h.dataDir, "sandbox", "gone.db"))).toBe(false);
    for (const [method, p] of [
      ["DELETE", "/_sandbox/snapshots/gone"],
      ["POST", "/_sandbox/snapshots/gone/restore"],
    ] as const) {
      const res = await h.sendSandbox(method, p);
      expect(res.status).toBe(404);
      expect(res.body.details).toMatchObject({ error_code: "snapshot_not_found", snapshot: "gone" });
    }
  });

  it("refuses a name that is no plain file name, with 400 naming body.name", async () => {
    const h = harness();
    for (const name of ["", ".start", "../x", "a/b", "x".repeat(65)]) {
      const res = await h.sendSandbox("POST", "/_sandbox/snapshots", { body: { name } });
      expect(res.status, name).toBe(400);
      expect(JSON.stringify(res.body.details)).toContain("name");
    }
  });

  it("keeps the journal and the fault rules through a restore", async () => {
    const h = harness();
    await h.sendSandbox("POST", "/_sandbox/snapshots", { body: { name: "s" } });
    await h.sendSandbox("POST", "/_sandbox/faults", {
      body: { match: { path: "/api/v1/nothing" }, answer: { status: 503 } },
    });
    await h.sendSandbox("GET", "/api/v1/users/me", { auth: h.startKey });
    await h.sendSandbox("POST", "/_sandbox/snapshots/s/restore");
    expect((await h.sendSandbox("GET", "/_sandbox/faults")).body.data).toHaveLength(1);
    expect((await h.sendSandbox("GET", "/_sandbox/requests")).body.data).toHaveLength(1);
  });

  it("a reset goes back to the start, not to a snapshot; the snapshots stay", async () => {
    const h = harness();
    await memory(h, "In the snapshot.");
    await h.sendSandbox("POST", "/_sandbox/snapshots", { body: { name: "s" } });
    await h.sendSandbox("POST", "/_sandbox/reset");
    expect(await contents(h)).toEqual([]);
    await h.sendSandbox("POST", "/_sandbox/snapshots/s/restore");
    expect(await contents(h)).toEqual(["In the snapshot."]);
  });
});
