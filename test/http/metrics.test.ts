/** GET /metrics (src/routes/metrics.ts, src/http/metrics.ts): what it counts and who may read it. */
import { describe, expect, it } from "vitest";
import { isLoopback } from "../../src/routes/metrics.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

/** The value of one series in the exposition text, or undefined. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  it("counts requests by route pattern and status, with their latency", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    await h.send("GET", "/api/v1/memories/424242", { auth: key });
    await h.send("GET", "/api/v1/memories/434343", { auth: key });
    await h.send("GET", "/api/v1/no/such/path", { auth: key });
    const res = await h.send("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body as string;
    const series = 'content_service_http_requests_total{route="/api/v1/memories/{id}",method="GET",status="404"}';
    expect(seriesValue(text, series)).toBe(2);
    expect(text).not.toContain("424242");
    expect(
      seriesValue(text, 'content_service_http_requests_total{route="(unmatched)",method="GET",status="404"}'),
    ).toBe(1);
    expect(
      seriesValue(
        text,
        'content_service_http_request_duration_seconds_count{route="/api/v1/memories/{id}",method="GET"}',
      ),
    ).toBe(2);
    const inf =
      'content_service_http_request_duration_seconds_bucket{route="/api/v1/memories/{id}",method="GET",le="+Inf"}';
    expect(seriesValue(text, inf)).toBe(2);
    expect(text).toContain("# TYPE content_service_http_request_duration_seconds histogram");
  });

  it("reports rate-limit refusals, the learning backlog and the worker pools' tasks in flight", async () => {
    const h = makeHarness();
    for (let i = 0; i < 62; i++) await h.send("GET", "/api/v1/templates", { remoteAddress: "10.1.2.3" });
    const text = (await h.send("GET", "/metrics")).body as string;
    expect(seriesValue(text, "content_service_rate_limit_refusals_total")).toBeGreaterThanOrEqual(2);
    expect(seriesValue(text, "content_service_learning_backlog")).toBe(0);
    expect(seriesValue(text, 'content_service_worker_tasks_in_flight{pool="foreground"}')).toBe(0);
  });

  it("counts a learning job queued by a finalization in the backlog", async () => {
    const h = makeHarness();
    await h.services.learning.stop(); // the job stays queued
    const key = h.key({ workspaceId: h.a.ws1 });
    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "A post about onboarding" },
    });
    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: gen.body.content_id, finalized_content: `${gen.body.content} Edited.`, edit_seconds: 30 },
    });
    expect(fin.body.learning_triggered, JSON.stringify(fin.body)).toBe(true);
    expect(h.services.store.learning.backlog()).toBe(1);
    const text = (await h.send("GET", "/metrics")).body as string;
    expect(seriesValue(text, "content_service_learning_backlog")).toBe(1);
  });

  it("counts a POST /mcp once, not its tool calls as requests of their own", async () => {
    const h = makeHarness();
    const res = await h.send("POST", "/api/v1/mcp", {
      auth: h.key(),
      headers: { "mcp-protocol-version": "2025-06-18" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_templates", arguments: {} } },
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('"isError":true');
    const text = (await h.send("GET", "/metrics")).body as string;
    expect(
      seriesValue(text, 'content_service_http_requests_total{route="/api/v1/mcp",method="POST",status="200"}'),
    ).toBe(1);
    expect(text).not.toContain('route="/api/v1/templates"');
  });

  it("answers loopback clients only by default", async () => {
    const h = makeHarness();
    expect((await h.send("GET", "/metrics", { remoteAddress: "::1" })).status).toBe(200);
    expect((await h.send("GET", "/metrics", { remoteAddress: "::ffff:127.0.0.1" })).status).toBe(200);
    const far = await h.send("GET", "/metrics", { remoteAddress: "192.0.2.10" });
    expectErrorBody(far, 401);
    expect(far.body.message).toContain("--metrics-token");
  });

  it("with a token, answers any client sending it and no client without it", async () => {
    const h = makeHarness({ config: { metricsToken: "scrape-me-123" } });
    const auth = { authorization: "Bearer scrape-me-123" };
    expect((await h.send("GET", "/metrics", { remoteAddress: "192.0.2.10", headers: auth })).status).toBe(200);
    expectErrorBody(await h.send("GET", "/metrics", { remoteAddress: "127.0.0.1" }), 401);
    const wrong = { authorization: "Bearer scrape-me-124" };
    expectErrorBody(await h.send("GET", "/metrics", { remoteAddress: "192.0.2.10", headers: wrong }), 401);
  });

  it("is in no description", async () => {
    const h = makeHarness();
    const doc = (await h.send("GET", "/api/v1/openapi.json")).body;
    expect(Object.keys(doc.paths)).not.toContain("/metrics");
  });

  it.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["10.0.0.1", false],
    ["::ffff:10.0.0.1", false],
    [undefined, false],
  ])("reads %s as loopback: %s", (address, loopback) => {
    expect(isLoopback(address)).toBe(loopback);
  });
});
