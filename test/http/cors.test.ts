/** CORS (`serve --cors-origin`, src/http/cors.ts): the preflight, the answers to a named origin, and none by default. */
import { describe, expect, it } from "vitest";
import { originOf } from "../../src/http/cors.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

const APP = "https://app.example";
const preflightHeaders = (origin: string) => ({
  origin,
  "access-control-request-method": "POST",
  "access-control-request-headers": "authorization, content-type",
});

describe("CORS with configured origins", () => {
  const h = makeHarness({ config: { corsOrigins: [APP, "http://localhost:5173"] } });

  it("answers a preflight from a named origin with 204 and what the path allows", async () => {
    const res = await h.send("OPTIONS", "/api/v1/contents", { headers: preflightHeaders(APP) });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, HEAD");
    expect(res.headers.get("access-control-allow-headers")).toMatch(/Authorization.*Content-Type.*Idempotency-Key/);
    expect(res.headers.get("access-control-max-age")).toBe("600");
    expect(res.headers.get("vary")).toMatch(/Origin/);
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
  });

  it("takes no token of the address's bucket for a preflight", async () => {
    const first = await h.send("OPTIONS", "/api/v1/contents", {
      headers: preflightHeaders(APP),
      remoteAddress: "10.9.0.1",
    });
    const second = await h.send("OPTIONS", "/api/v1/contents", {
      headers: preflightHeaders(APP),
      remoteAddress: "10.9.0.1",
    });
    expect(second.headers.get("x-ratelimit-remaining")).toBe(first.headers.get("x-ratelimit-remaining"));
  });

  it("sends Allow-Origin, the exposed headers and Vary on answers to a named origin, errors too", async () => {
    const ok = await h.send("GET", "/api/v1/templates", { auth: h.key(), headers: { origin: APP } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP);
    const exposed = ok.headers.get("access-control-expose-headers")!;
    for (const name of ["X-RateLimit-Remaining", "Retry-After", "X-Trace-Id", "Location"])
      expect(exposed).toContain(name);
    expect(ok.headers.get("vary")).toMatch(/Origin/);
    const refused = await h.send("GET", "/api/v1/templates", { headers: { origin: APP } });
    expectErrorBody(refused, 401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("matches origins exactly: another scheme, port or host gets no Allow-Origin", async () => {
    for (const origin of ["http://app.example", "https://app.example:8443", "https://evil.app.example", "null"]) {
      const res = await h.send("GET", "/api/v1/templates", { auth: h.key(), headers: { origin } });
      expect(res.headers.get("access-control-allow-origin"), origin).toBeNull();
      expect(res.headers.get("vary"), origin).toMatch(/Origin/);
      const pre = await h.send("OPTIONS", "/api/v1/templates", { headers: preflightHeaders(origin) });
      expectErrorBody(pre, 405, "method_not_allowed");
    }
  });

  it("answers a preflight at a path no route has with the coded 404", async () => {
    const res = await h.send("OPTIONS", "/api/v1/nowhere", { headers: preflightHeaders(APP) });
    expectErrorBody(res, 404, "route_not_found");
  });
});

describe("CORS by default", () => {
  const h = makeHarness();

  it("answers a preflight with the coded 405 and no CORS header", async () => {
    const res = await h.send("OPTIONS", "/api/v1/contents", { headers: preflightHeaders(APP) });
    expectErrorBody(res, 405, "method_not_allowed");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("sends no CORS header and no Vary: Origin on answers", async () => {
    const res = await h.send("GET", "/api/v1/templates", { auth: h.key(), headers: { origin: APP } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("vary") ?? "").not.toMatch(/Origin/);
  });
});

describe("originOf", () => {
  it.each([
    ["https://app.example", "https://app.example"],
    ["https://APP.example:443/", "https://app.example"],
    ["http://localhost:5173", "http://localhost:5173"],
    ["https://app.example/path", undefined],
    ["https://u:p@app.example", undefined],
    ["ftp://app.example", undefined],
    ["*", undefined],
  ])("reads %s as %s", (value, origin) => {
    expect(originOf(value)).toBe(origin);
  });
});
