/**
 * The test clock (src/sandbox/clock.ts, GET|POST /_sandbox/clock): reading, advancing, setting and freezing it, and
 * everything that reads the server's time following it. The harness's ManualClock stands for real time, and stays.
 */
import { describe, expect, it } from "vitest";
import { setLimits } from "../../src/domain/admin.js";
import { addDuration, isDuration } from "../../src/sandbox/clock.js";
import { makeHarness } from "../helpers/harness.js";
import { makeSandboxHarness, type SandboxHarness } from "../helpers/sandbox.js";

const move = (h: SandboxHarness, body: unknown) => h.sendSandbox("POST", "/_sandbox/clock", { body });
const REAL = Date.UTC(2026, 0, 15, 12, 0, 0);

describe("the test clock's operations", () => {
  it("reads the time, its offset from real time and whether frozen; advances, sets and freezes it", async () => {
    const h = makeSandboxHarness();
    expect((await h.sendSandbox("GET", "/_sandbox/clock")).body).toEqual({
      now: "2026-01-15T12:00:00.000Z",
      offset_ms: 0,
      frozen: false,
    });
    const advanced = await move(h, { advance: "P31D" });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ now: "2026-02-15T12:00:00.000Z", offset_ms: 31 * 86_400_000 });
    // It runs on from where it was set, as real time does ...
    h.clock.advance(1000);
    expect((await h.sendSandbox("GET", "/_sandbox/clock")).body.now).toBe("2026-02-15T12:00:01.000Z");
    const set = await move(h, { set: "2027-01-01T00:00:00Z", freeze: true });
    expect(set.body).toMatchObject({ now: "2027-01-01T00:00:00.000Z", frozen: true });
    // ... unless frozen.
    h.clock.advance(5000);
    expect((await h.sendSandbox("GET", "/_sandbox/clock")).body.now).toBe("2027-01-01T00:00:00.000Z");
    await move(h, { freeze: false });
    h.clock.advance(1000);
    expect((await h.sendSandbox("GET", "/_sandbox/clock")).body).toMatchObject({
      now: "2027-01-01T00:00:01.000Z",
      frozen: false,
    });
  });

  it("refuses to move backward, and a body it cannot read, with a coded 400", async () => {
    const h = makeSandboxHarness();
    const cases: [unknown, string][] = [
      [{ set: "2025-01-01T00:00:00Z" }, "body.set"],
      [{ advance: "31 days" }, "body.advance"],
      [{ advance: "-P1D" }, "body.advance"],
      [{ set: "tomorrow" }, "body.set"],
      [{ advance: "P1D", set: "2027-01-01T00:00:00Z" }, ""],
      [{ rewind: "P1D" }, ""],
    ];
    for (const [body, path] of cases) {
      const res = await move(h, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.error_code).toBe("validation_failed");
      if (path) expect(JSON.stringify(res.body.details), JSON.stringify(body)).toContain(path);
    }
    expect((await h.sendSandbox("GET", "/_sandbox/clock")).body.offset_ms).toBe(0);
  });

  it("is not there without sandbox mode", async () => {
    const h = makeHarness();
    expect((await h.send("GET", "/_sandbox/clock")).status).toBe(404);
    expect((await h.send("POST", "/_sandbox/clock", { body: { advance: "P1D" } })).status).toBe(404);
    const description = JSON.stringify((await h.send("GET", "/api/v1/openapi.json")).body);
    expect(description).not.toContain("_sandbox/clock");
  });

  it("reads ISO 8601 durations: calendar years and months, fixed weeks, days and times", () => {
    expect(addDuration(REAL, "PT61S") - REAL).toBe(61_000);
    expect(addDuration(REAL, "P1W2DT3H4M5.5S") - REAL).toBe(((9 * 24 + 3) * 60 + 4) * 60_000 + 5_500);
    expect(new Date(addDuration(REAL, "P1Y1M")).toISOString()).toBe("2027-02-15T12:00:00.000Z");
    for (const bad of ["P", "PT", "P1S", "1D", "P1.5D", "-P1D"]) expect(isDuration(bad), bad).toBe(false);
  });
});

describe("what follows the test clock", () => {
  it("refills a minute's bucket after 61 s, with X-RateLimit-Reset on the clock", async () => {
    const h = makeSandboxHarness();
    setLimits(h.services.store, "test", h.a.id, 2, null);
    const key = h.key();
    await h.sendSandbox("GET", "/api/v1/users/me", { auth: key });
    await h.sendSandbox("GET", "/api/v1/users/me", { auth: key });
    const limited = await h.sendSandbox("GET", "/api/v1/users/me", { auth: key });
    expect(limited.status).toBe(429);
    await move(h, { advance: "PT61S" });
    const after = await h.sendSandbox("GET", "/api/v1/users/me", { auth: key });
    expect(after.status).toBe(200);
    const reset = Number(after.headers.get("x-ratelimit-reset"));
    const now = h.services.clock.now() / 1000;
    expect(reset).toBeGreaterThan(now);
    expect(reset).toBeLessThanOrEqual(now + 3600);
    expect(reset).toBeGreaterThan(REAL / 1000 + 61);
  });

  it("expires a default key after 91 days", async () => {
    const h = makeSandboxHarness();
    const created = await h.sendSandbox("POST", "/api/v1/api-keys", {
      auth: await h.login("admin@a.test"),
      body: { name: "default expiry" },
    });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect((await h.sendSandbox("GET", "/api/v1/users/me", { auth: key })).status).toBe(200);
    await move(h, { advance: "P91D" });
    const expired = await h.sendSandbox("GET", "/api/v1/users/me", { auth: key });
    expect(expired.status).toBe(401);
    expect(expired.body.details.error_code).toBe("unauthorized");
    expect(expired.body.message).toMatch(/expired/i);
  });

  it("ends a session when its lifetime passes", async () => {
    const h = makeSandboxHarness();
    const token = await h.login("admin@a.test");
    expect((await h.sendSandbox("GET", "/api/v1/users/me", { auth: token })).status).toBe(200);
    await move(h, { advance: "P31D" });
    expect((await h.sendSandbox("GET", "/api/v1/users/me", { auth: token })).status).toBe(401);
  });

  it("flips is_overdue when the planned day passes, and stamps created_at with the clock's time", async () => {
    const h = makeSandboxHarness();
    await move(h, { set: "2027-03-01T10:00:00Z" });
    const key = h.keyNow();
    const draft = await h.sendSandbox("POST", "/api/v1/contents", { auth: key, body: { title: "Plan me" } });
    expect(draft.body.created_at).toBe("2027-03-01T10:00:00.000Z");
    const path = `/api/v1/contents/${draft.body.content_id}`;
    await h.sendSandbox("PATCH", `${path}/schedule`, { auth: key, body: { scheduled_publish_at: "2027-03-05" } });
    expect((await h.sendSandbox("GET", path, { auth: key })).body.is_overdue).toBe(false);
    await move(h, { advance: "P5D" });
    expect((await h.sendSandbox("GET", path, { auth: key })).body.is_overdue).toBe(true);
  });

  it("stamps the audit log with the clock's time, on the HTTP thread and the writer's", async () => {
    const h = makeSandboxHarness();
    await move(h, { set: "2027-04-01T09:00:00Z", freeze: true });
    const token = await h.login("admin@a.test");
    const ws = await h.sendSandbox("POST", "/api/v1/workspaces", { auth: token, body: { name: "Brief" } });
    await move(h, { advance: "PT1M" });
    expect((await h.sendSandbox("DELETE", `/api/v1/workspaces/${ws.body.id}`, { auth: token })).status).toBe(200);
    const log = await h.sendSandbox("GET", "/api/v1/admin/audit-log", { auth: token });
    const at = (action: string) => log.body.data.find((r: { action: string }) => r.action === action)?.created_at;
    expect(at("workspace.create")).toBe("2027-04-01T09:00:00.000Z");
    expect(at("workspace.delete")).toBe("2027-04-01T09:01:00.000Z");
  });

  it("starts a new month's analysis quota when the month changes", async () => {
    const h = makeSandboxHarness();
    const quota = async () =>
      (await h.sendSandbox("GET", "/api/v1/analysis/quota", { auth: await h.login("admin@a.test") })).body;
    expect((await quota()).period_start).toBe("2026-01-01T00:00:00.000Z");
    await move(h, { set: "2026-02-01T00:00:01Z" });
    expect(await quota()).toMatchObject({ period_start: "2026-02-01T00:00:00.000Z", used: 0 });
  });

  it("stops replaying an Idempotency-Key's answer once its retention has passed", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const opts = { auth: key, body: { kind: "context", content: "Owners." }, headers: { "idempotency-key": "k-1" } };
    const first = await h.sendSandbox("POST", `/api/v1/memories?workspace_id=${h.a.ws1}`, opts);
    const replay = await h.sendSandbox("POST", `/api/v1/memories?workspace_id=${h.a.ws1}`, opts);
    expect(replay.body.id).toBe(first.body.id);
    await move(h, { advance: "PT24H1S" });
    const later = await h.sendSandbox("POST", `/api/v1/memories?workspace_id=${h.a.ws1}`, opts);
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });

  it("counts usage on the clock's day", async () => {
    const h = makeSandboxHarness();
    await move(h, { set: "2026-06-10T09:00:00Z" });
    const key = h.keyNow();
    await h.sendSandbox("GET", "/api/v1/users/me", { auth: key });
    const usage = await h.sendSandbox("GET", "/api/v1/usage?from=2026-06-10&to=2026-06-10", { auth: key });
    expect(usage.body.days).toEqual([expect.objectContaining({ day: "2026-06-10", requests: 1 })]);
  });

  it("runs a scheduled job when an advance passes its time, once", async () => {
    const h = makeSandboxHarness();
    const runs: string[] = [];
    h.sandbox.clockJobs.use(
      [
        { name: "nightly", expression: "0 3 * * *", run: () => void runs.push(h.services.clock.now().toString()) },
        { name: "yearly", expression: "0 0 1 7 *", run: () => void runs.push("yearly") },
      ],
      () => {},
    );
    const short = await move(h, { advance: "PT1H" });
    expect(short.body.jobs_run).toEqual([]);
    const past = await move(h, { advance: "P2D" });
    expect(past.body.jobs_run).toEqual(["nightly"]);
    expect(runs).toHaveLength(1);
    // The job ran under the advanced clock.
    expect(Number(runs[0])).toBe(h.services.clock.now());
  });
});
