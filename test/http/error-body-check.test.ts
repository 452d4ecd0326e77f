/**
 * The error-body check of the HTTP suites (helpers/http.ts): a JSON-RPC error envelope passes only where the test
 * says the route answers one (POST /mcp). It had passed on any route, so a route that wrongly wrapped its errors in
 * an envelope would have passed every suite that checks its errors.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { createApp } from "../../src/http/app.js";
import { route } from "../../src/http/route.js";
import { ROUTES } from "../../src/routes/index.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, expectErrorBodyOf, expectJsonRpcErrorBody, PROBE_ROUTE, sendTo } from "../helpers/http.js";

describe("expectErrorBody and JSON-RPC error envelopes", () => {
  const h = makeHarness();
  const refuse = () => {
    throw new ApiError("validation_failed", "Refused by the probe.", { issues: [] });
  };
  // A route of the API's own protocol that wrongly answers its errors in a JSON-RPC envelope, and one that does not.
  const enveloped = route({
    ...PROBE_ROUTE,
    method: "GET",
    path: "/api/v1/__probe/enveloped",
    operationId: "probeEnveloped",
    errorBody: (body) => ({ jsonrpc: "2.0", id: null, error: { code: -32000, message: body.message, data: body } }),
    handler: refuse,
  });
  const plain = route({
    ...PROBE_ROUTE,
    method: "GET",
    path: "/api/v1/__probe/plain",
    operationId: "probePlain",
    handler: refuse,
  });
  const app = createApp(h.services, [...ROUTES, enveloped, plain]);
  const mcp = ROUTES.find((r) => r.path === "/api/v1/mcp")!;

  it("fails a route other than /mcp that answers a JSON-RPC envelope", async () => {
    const res = await sendTo(app, "GET", enveloped.path, { auth: h.key() });
    expect(res.status).toBe(400);
    expect(() => expectErrorBody(res, 400, "validation_failed")).toThrow(/the coded body/);
    expect(() => expectErrorBodyOf(enveloped, res, 400, "validation_failed")).toThrow(/the coded body/);
  });

  it("fails a coded body where a JSON-RPC error is expected, and passes it where it is not", async () => {
    const res = await sendTo(app, "GET", plain.path, { auth: h.key() });
    expect(() => expectJsonRpcErrorBody(res, 400, "validation_failed")).toThrow(/a JSON-RPC error/);
    expect(expectErrorBody(res, 400, "validation_failed")).toMatchObject({ error_code: "validation_failed" });
  });

  it("passes /mcp's envelope only when asked for it", async () => {
    const res = await sendTo(app, "POST", mcp.path, { auth: h.key(), body: { jsonrpc: "1.0" } });
    expect(() => expectErrorBody(res, 400, "validation_failed")).toThrow(/the coded body/);
    expect(expectJsonRpcErrorBody(res, 400, "validation_failed")).toMatchObject({ error_code: "validation_failed" });
    expect(expectErrorBodyOf(mcp, res, 400, "validation_failed")).toMatchObject({ error_code: "validation_failed" });
  });

  it("expects the envelope of /mcp's 400s only, and only POST /mcp may wrap its errors", async () => {
    expect(ROUTES.filter((r) => r.errorBody !== undefined).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/mcp",
    ]);
    const unauthenticated = await sendTo(app, "POST", mcp.path, { body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect(expectErrorBodyOf(mcp, unauthenticated, 401)).toMatchObject({ error_code: "unauthorized" });
    expect(() => expectJsonRpcErrorBody(unauthenticated, 401)).toThrow(/a JSON-RPC error/);
  });
});
