/**
 * Faults asked for with the Prefer header in sandbox mode (src/sandbox/prefer.ts, stream-faults.ts): each answered
 * as the real server answers that case, a bad value refused naming it, and nothing of it on paths outside /api/v1/.
 */
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/domain/errors.js";
import { parsePrefer } from "../../src/sandbox/prefer.js";
import type { Answer } from "../helpers/harness.js";
import { makeSandboxHarness } from "../helpers/sandbox.js";

const ME = "/api/v1/users/me";

/** An answer with what differs between two answers to two requests (their trace ids) taken out. */
function comparable(res: Answer) {
  const headers = Object.fromEntries(
    [...res.headers].filter(([name]) => name !== "x-trace-id" && name !== "x-sandbox"),
  );
  const { trace_id, ...body } = res.body;
  expect(trace_id).toBe(res.headers.get("x-trace-id"));
  return { status: res.status, headers, body };
}

describe("Prefer: status= and error_code=", () => {
  it("status=429 answers exactly what a key that spent its minute is answered, but for the trace id", async () => {
    const h = makeSandboxHarness();
    const spent = h.key();
    for (let i = 0; i < 100; i++) await h.send("GET", ME, { auth: spent });
    const real = await h.send("GET", ME, { auth: spent });
    expect(real.status).toBe(429);
    const asked = await h.sendSandbox("GET", ME, { auth: h.key(), headers: { prefer: "status=429" } });
    expect(asked.headers.get("retry-after")).toBe("1");
    expect(asked.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(comparable(asked)).toEqual(comparable(real));
  });

  it("error_code=service_busy answers a busy database's 503, with its Retry-After", async () => {
    const h = makeSandboxHarness();
    const res = await h.sendSandbox("GET", ME, { auth: h.key(), headers: { prefer: "error_code=service_busy" } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.body).toMatchObject({
      error: "SERVICE_UNAVAILABLE",
      details: { error_code: "service_busy", retry_after_seconds: 1 },
      trace_id: res.headers.get("x-trace-id"),
    });
    expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
  });

  it("answers any code of the error table with its status, and a status with its first code", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      const res = await h.sendSandbox("GET", ME, { auth: key, headers: { prefer: `error_code=${code}` } });
      expect(res.status, code).toBe(status);
      expect(res.body.details.error_code, code).toBe(code);
      h.clock.advance(1000);
    }
    const bad = await h.sendSandbox("GET", ME, { auth: key, headers: { prefer: "status=502" } });
    expect(bad.body.details.error_code).toBe("upstream_unavailable");
  });

  it("answers the server's own message for a code it raises in one way, and says so for the others", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const message = async (code: string) =>
      (await h.sendSandbox("GET", ME, { auth: key, headers: { prefer: `error_code=${code}` } })).body.message;
    expect(await message("internal_error")).toBe("The server met an unexpected error.");
    expect(await message("request_timeout")).toBe("The request was not received in time; send it again.");
    expect(await message("payload_too_large")).toBe("The request body is larger than 1048576 bytes.");
    expect(await message("upstream_timeout")).toMatch(/^The model server did not answer within \d+ s\.$/);
    expect(await message("upstream_error")).toMatch(/^The model server answered with an error: /);
    expect(await message("upstream_unavailable")).toMatch(/^The model server at .* cannot be reached: /);
    expect(await message("upstream_invalid_response")).toMatch(/^The model server's answer cannot be used: /);
    expect(await message("content_not_found")).toBe(
      "Answered with content_not_found, as the request's Prefer header asked (sandbox mode).",
    );
  });

  it("answers the error without running the request: a POST stores nothing", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const before = (await h.send("GET", "/api/v1/memories", { auth: key })).body.data.length;
    const res = await h.sendSandbox("POST", "/api/v1/memories", {
      auth: key,
      body: { kind: "context", content: "Never stored" },
      headers: { prefer: "status=503" },
    });
    expect(res.status).toBe(503);
    expect((await h.send("GET", "/api/v1/memories", { auth: key })).body.data).toHaveLength(before);
  });
});

describe("Prefer: delay=", () => {
  it("answers the real answer after the delay", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const res = await h.sendSandbox("GET", ME, { auth: key, headers: { prefer: "delay=5ms" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await h.send("GET", ME, { auth: key })).body);
  });

  it("reads ms, s and a random range, and refuses a delay past 30 s", () => {
    expect(parsePrefer("delay=250ms")).toEqual({ delayMs: 250, delayMaxMs: 250 });
    expect(parsePrefer("delay=2s")).toEqual({ delayMs: 2000, delayMaxMs: 2000 });
    expect(parsePrefer("delay=1s-3s")).toEqual({ delayMs: 1000, delayMaxMs: 3000 });
    expect(parsePrefer("delay=1.5s, status=429")).toMatchObject({ delayMs: 1500, errorCode: "rate_limit_exceeded" });
    expect(() => parsePrefer("delay=31s")).toThrow(/delay=31s/);
    expect(() => parsePrefer("delay=3s-1s")).toThrow(/delay=3s-1s/);
  });
});

describe("a Prefer header the sandbox cannot read", () => {
  it.each([
    "status=200",
    "status=418",
    "error_code=teapot",
    "delay=2",
    "delay=2min",
    "fault=explode",
    "fault=stream_error_after=x",
    "stauts=429",
    "status=429, error_code=service_busy",
  ])("%s is a coded 400 naming it", async (prefer) => {
    const h = makeSandboxHarness();
    const res = await h.sendSandbox("GET", ME, { auth: h.key(), headers: { prefer } });
    expect(res.status).toBe(400);
    expect(res.body.details.error_code).toBe("validation_failed");
    expect(res.body.details.issues[0].path).toBe("header.prefer");
    expect(res.body.message).toContain(prefer.split(", ").at(-1));
  });

  it("leaves RFC 7240's own preferences to the usual answer", async () => {
    const h = makeSandboxHarness();
    const res = await h.sendSandbox("GET", ME, { auth: h.key(), headers: { prefer: "return=minimal, wait=5" } });
    expect(res.status).toBe(200);
  });

  it("is not read outside /api/v1/", async () => {
    const h = makeSandboxHarness();
    expect((await h.sendSandbox("GET", "/healthz", { headers: { prefer: "status=429" } })).status).toBe(200);
    expect((await h.sendSandbox("GET", "/_sandbox/requests", { headers: { prefer: "bogus" } })).status).toBe(200);
  });
});

describe("Prefer: fault=stream_error_after=N", () => {
  it("ends a streamed generation with the real stream's error event after N deltas, and stores nothing", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const res = await h.sandboxApp.handle(
      new Request("http://test.local/api/v1/generate", {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          prefer: "fault=stream_error_after=3",
        },
        body: JSON.stringify({ template_id: 1, user_direction: "Planning reviews", stream: true }),
      }),
      { remoteAddress: "127.0.0.1" },
    );
    expect(res.status).toBe(200);
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events.slice(0, 3).every((e) => e.startsWith("event: delta\n"))).toBe(true);
    expect(events).toHaveLength(4);
    expect(events[3]).toMatch(/^event: error\ndata: /);
    const error = JSON.parse(events[3].slice(events[3].indexOf("data: ") + 6));
    expect(error).toMatchObject({
      error: "BAD_GATEWAY",
      status: 502,
      details: { error_code: "upstream_error" },
      trace_id: res.headers.get("x-trace-id"),
    });
    expect((await h.send("GET", "/api/v1/contents", { auth: key })).body.data).toHaveLength(0);
  });
});
