/** The error stage (src/http/pipeline/render-error.ts): every refusal answered as DESIGN §3's error body. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/domain/errors.js";
import { renderError, renderRefusal } from "../../../src/http/pipeline/render-error.js";
import { makeHarness } from "../../helpers/harness.js";
import { routedOf, stateOf, testRoute } from "../../helpers/pipeline.js";

describe("renderError", () => {
  it("answers a 401 with the coded body, WWW-Authenticate, X-Trace-Id and the address's X-RateLimit-*", () => {
    const h = makeHarness();
    const state = stateOf("GET", "/api/v1/x");
    const response = renderError(h.services, state, new ApiError("unauthorized", "Missing credentials."));
    expect(response.status).toBe(401);
    expect(response.headers).toMatchObject({
      "www-authenticate": 'Bearer realm="content-service"',
      "x-trace-id": state.traceId,
      "x-ratelimit-limit": "60",
    });
    const body = JSON.parse(response.body as string);
    expect(body).toMatchObject({ error: "UNAUTHORIZED", trace_id: state.traceId });
    expect(state.errorCode).toBe("unauthorized");
  });

  it("answers an unknown error as a 500 internal_error, logged with its stack, secrets redacted", () => {
    const h = makeHarness();
    const state = stateOf("GET", "/api/v1/x");
    const response = renderError(h.services, state, new Error("broke near svc_live_abcdefgh"));
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body as string).details.error_code).toBe("internal_error");
    const logged = h.logger.lines.find((l) => l.message === "unhandled error");
    expect(logged).toMatchObject({ trace_id: state.traceId, error: "broke near [redacted]" });
    expect(String(logged?.stack)).not.toContain("svc_live_");
  });

  it("marks a beta path's answer and lets a route with its own protocol shape the body", () => {
    const h = makeHarness();
    const route = testRoute({ errorBody: (coded) => ({ wrapped: coded.error }) });
    const response = renderError(h.services, routedOf(route, "/x"), new ApiError("route_not_found", "No route."));
    expect(response.headers["x-api-stability"]).toBe("beta");
    expect(JSON.parse(response.body as string)).toEqual({ wrapped: "NOT_FOUND" });
  });
});

describe("renderRefusal", () => {
  it("answers with the given trace id and the client address's X-RateLimit-*, taking no token", () => {
    const h = makeHarness();
    const env = { remoteAddress: "10.1.2.3" };
    const response = renderRefusal(h.services, new ApiError("invalid_json", "Bad."), "t-1", env);
    expect(response.status).toBe(400);
    expect(response.headers).toMatchObject({ "x-trace-id": "t-1", "x-ratelimit-remaining": "60" });
  });
});
