/**
 * The Node server's edge as `serve` builds it (createHttpServer): the coded 400 of a request without Host, nosniff on
 * every answer, and the slow-request limits the documentation states (checked as configured, not timed).
 */
import http from "node:http";
import type net from "node:net";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createHttpServer, SERVER_LIMITS } from "../../src/http/node.js";
import { type Harness, makeHarness } from "../helpers/harness.js";

let h: Harness;
let server: http.Server;
let port: number;

beforeAll(async () => {
  h = makeHarness();
  server = createHttpServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends raw bytes on a new connection; resolves with what the server wrote until it closed the connection. */
function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let out = "";
    socket.on("data", (d) => {
      out += d.toString("utf8");
    });
    socket.on("end", () => {
      const [top, ...rest] = out.split("\r\n\r\n");
      const [line, ...lines] = top.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(line.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
    socket.on("error", reject);
    socket.write(request);
  });
}

describe("the Node edge", () => {
  it("answers an HTTP/1.1 request without Host with the coded 400, and closes the connection", async () => {
    const res = await raw("GET /healthz HTTP/1.1\r\n\r\n");
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-trace-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers["x-ratelimit-limit"]).toBeDefined();
    const body = JSON.parse(res.body);
    expect(body.details.error_code).toBe("validation_failed");
    expect(body.details.issues[0].path).toBe("headers.host");
  });

  it("serves an HTTP/1.0 request without Host, which HTTP/1.0 does not require", async () => {
    const res = await raw("GET /healthz HTTP/1.0\r\n\r\n");
    expect(res.status).toBe(200);
  });

  it("sends nosniff on the parser's own refusals", async () => {
    const res = await raw("GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    expect(res.status).toBe(400);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("cuts slow headers at 20 s and slow requests at 60 s, checked once a second", () => {
    expect(SERVER_LIMITS).toMatchObject({
      headersTimeout: 20_000,
      requestTimeout: 60_000,
      connectionsCheckingInterval: 1_000,
    });
    const created = vi.spyOn(http, "createServer");
    try {
      const built = createHttpServer(h.app);
      const options = created.mock.calls[0][0] as http.ServerOptions;
      expect(options).toMatchObject({
        headersTimeout: 20_000,
        requestTimeout: 60_000,
        connectionsCheckingInterval: 1_000,
        requireHostHeader: false,
      });
      expect(built.headersTimeout).toBe(20_000);
      expect(built.requestTimeout).toBe(60_000);
      expect(built.keepAliveTimeout).toBe(65_000);
      built.close();
    } finally {
      created.mockRestore();
    }
  });
});

describe("X-Content-Type-Options: nosniff", () => {
  it.each([
    ["a JSON answer", "GET", "/api/v1/templates", true],
    ["an error", "GET", "/api/v1/templates", false],
    ["a 404", "GET", "/api/v1/nowhere", true],
    ["a 405", "DELETE", "/api/v1/templates", true],
    ["a probe", "GET", "/healthz", false],
    ["the description", "GET", "/api/v1/openapi.json", false],
    ["the dashboard", "GET", "/", false],
    ["the reference page", "GET", "/docs", false],
    ["a preflight without CORS configured", "OPTIONS", "/api/v1/templates", false],
  ] as const)("is on %s", async (_what, method, path, withKey) => {
    const res = await h.send(method, path, withKey ? { auth: h.key() } : {});
    expect(res.headers.get("x-content-type-options"), `${method} ${path} ${res.status}`).toBe("nosniff");
  });
});
