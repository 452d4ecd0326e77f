/**
 * Sandbox mode on and off (src/sandbox/index.ts): off, /_sandbox/ is a path like any unknown one and no answer says
 * sandbox; on, every answer carries X-Sandbox: 1 and the description still names nothing of it.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { makeHarness } from "../helpers/harness.js";
import { makeSandboxHarness } from "../helpers/sandbox.js";

describe("sandbox mode off", () => {
  it("has no /_sandbox/ operations: 404 route_not_found, as any unknown path", async () => {
    const h = makeHarness();
    for (const method of ["GET", "DELETE"]) {
      const res = await h.send(method, "/_sandbox/requests");
      expect(res.status).toBe(404);
      expect(res.body.details.error_code).toBe("route_not_found");
      expect(res.headers.get("x-sandbox")).toBeNull();
    }
  });

  it("ignores Prefer: the real answer, without X-Sandbox", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/api-keys/current", {
      auth: h.key(),
      headers: { prefer: "status=429" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-sandbox")).toBeNull();
  });

  it("names nothing of the sandbox in the description", async () => {
    const h = makeHarness();
    const doc = await h.send("GET", "/api/v1/openapi.json");
    expect(JSON.stringify(doc.body)).not.toMatch(/_sandbox|sandbox/i);
  });
});

describe("sandbox mode on", () => {
  it("marks every answer X-Sandbox: 1: successes, errors, the health probes, the sandbox's own", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    for (const [method, path, auth] of [
      ["GET", "/api/v1/api-keys/current", key],
      ["GET", "/api/v1/api-keys/current", undefined],
      ["GET", "/nowhere", undefined],
      ["GET", "/healthz", undefined],
      ["GET", "/_sandbox/requests", undefined],
    ] as const) {
      const res = await h.sendSandbox(method, path, { auth });
      expect(res.headers.get("x-sandbox"), `${method} ${path}`).toBe("1");
    }
  });

  it("marks the answers to requests that could not be read as HTTP too", () => {
    const h = makeSandboxHarness();
    const out = h.sandboxApp.refuse(new ApiError("request_timeout", "Too slow."));
    expect(out.headers["x-sandbox"]).toBe("1");
  });

  it("serves its operations without credentials, and keeps them out of the description", async () => {
    const h = makeSandboxHarness();
    expect((await h.sendSandbox("GET", "/_sandbox/requests")).status).toBe(200);
    const doc = await h.sendSandbox("GET", "/api/v1/openapi.json");
    expect(JSON.stringify(doc.body)).not.toContain("/_sandbox/");
  });
});
