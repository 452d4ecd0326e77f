import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { pacedLoad } from "../../bench/lib/load.js";

/** A local server answering with `answer`, recording when each request arrived and its body. */
async function server(answer: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const seen: { at: number; body: string; auth?: string }[] = [];
  const s = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ at: performance.now(), body, auth: req.headers.authorization });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  servers.push(s);
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/x`, seen };
}
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe("pacedLoad (the bench's evenly spaced loads)", () => {
  it("sends rate × duration requests, each no earlier than its turn, and counts the answers", async () => {
    const { url, seen } = await server((_req, res) => res.end("{}"));
    const start = performance.now();
    const result = await pacedLoad("paced", { url, connections: 2, rate: 40, duration: 0.5 });
    expect(result.requests).toBe(20);
    expect(seen).toHaveLength(20);
    expect(result.non2xx + result.errors + result.timeouts).toBe(0);
    expect(result.p50).toBeGreaterThan(0);
    // The i-th is due i/40 s after the start and never sent before (a lower bound: a slow machine only delays). A
    // load that sent its second's share at once (autocannon's overallRate) has them all within milliseconds.
    for (const [i, x] of seen.entries()) expect(x.at, `request ${i}`).toBeGreaterThanOrEqual(start + i * 25 - 1);
    expect(result.lateMax).toBeGreaterThanOrEqual(0);
    expect(result.lateP99).toBeLessThanOrEqual(result.lateMax!);
  });

  it("times each request from its sending to the end of its answer, a wait for a connection included", async () => {
    const { url } = await server((_req, res) => setTimeout(() => res.end("{}"), 60));
    // One connection, a request due every 20 ms, each answered after 60 ms: each waits for the ones before it.
    const result = await pacedLoad("slow", { url, connections: 1, rate: 50, duration: 0.1 });
    expect(result).toMatchObject({ requests: 5, errors: 0, timeouts: 0 });
    expect(result.p50).toBeGreaterThanOrEqual(60);
    expect(result.p99).toBeGreaterThanOrEqual(5 * 60 - 4 * 20 - 5);
  });

  it("counts a request unanswered past timeoutMs as a timeout, those waiting for a connection too, and ends", async () => {
    const { url } = await server(() => {});
    const result = await pacedLoad("hung", { url, connections: 1, rate: 20, duration: 0.2, timeoutMs: 300 });
    expect(result).toMatchObject({ requests: 0, timeouts: 4 });
    expect(result.p99).toBeNaN();
  });

  it("posts the bodies and headers `next` returns, in order, and counts non-2xx apart from the latencies", async () => {
    const { url, seen } = await server((_req, res, body) => {
      res.statusCode = JSON.parse(body).n % 2 ? 409 : 200;
      res.end("{}");
    });
    let n = 0;
    const result = await pacedLoad("posts", {
      url,
      headers: { "content-type": "application/json" },
      next: () => ({ headers: { authorization: `Bearer k${n}` }, body: JSON.stringify({ n: n++ }) }),
      connections: 1,
      rate: 100,
      duration: 0.1,
    });
    expect(seen.map((x) => JSON.parse(x.body).n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(seen.map((x) => x.auth)).toEqual(Array.from({ length: 10 }, (_, i) => `Bearer k${i}`));
    expect(result).toMatchObject({ requests: 10, non2xx: 5, errors: 0 });
  });

  it("finishes, counting errors, when the server drops the connections", async () => {
    const { url } = await server((req) => req.socket.destroy());
    const result = await pacedLoad("dropped", { url, connections: 2, rate: 50, duration: 0.1 });
    expect(result).toMatchObject({ requests: 0, errors: 5 });
    expect(result.p99).toBeNaN();
  });
});
