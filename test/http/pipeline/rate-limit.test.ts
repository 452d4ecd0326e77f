/** The rate-limit stage (src/http/pipeline/rate-limit.ts): buckets per caller or client address (DESIGN §5). */
import { describe, expect, it } from "vitest";
import { authenticateCaller } from "../../../src/http/pipeline/authenticate.js";
import { limitRate, rateHeaders, rereadBucket } from "../../../src/http/pipeline/rate-limit.js";
import { ANONYMOUS_PER_MINUTE } from "../../../src/http/ratelimit.js";
import { makeHarness } from "../../helpers/harness.js";
import { refusalOf, routedOf, testRoute } from "../../helpers/pipeline.js";

describe("limitRate", () => {
  it("takes a token of the key's bucket and settles its account", async () => {
    const h = makeHarness();
    const state = routedOf(testRoute(), "/api/v1/__stage", { auth: h.key() });
    await authenticateCaller(h.services)(state);
    limitRate(h.services)(state);
    expect(state.account?.id).toBe(h.a.id);
    expect(state.decision).toMatchObject({ allowed: true, limit: 100, remaining: 99 });
    expect(rateHeaders(state.decision)).toEqual({
      "x-ratelimit-limit": "100",
      "x-ratelimit-remaining": "99",
      "x-ratelimit-reset": String(state.decision?.reset),
    });
  });

  it("is 429 rate_limit_exceeded with Retry-After once the client address's minute is spent", async () => {
    const h = makeHarness();
    const env = { remoteAddress: "10.9.8.7" };
    for (let i = 0; i < ANONYMOUS_PER_MINUTE; i++) limitRate(h.services)(routedOf(testRoute(), "/x", { env }));
    const refusal = await refusalOf(() => limitRate(h.services)(routedOf(testRoute(), "/x", { env })));
    expect(refusal).toMatchObject({ status: 429, code: "rate_limit_exceeded", details: { window: "minute" } });
    expect(refusal.headers["retry-after"]).toMatch(/^\d+$/);
  });

  it("takes no token for a request its enclosing one covers", () => {
    const h = makeHarness();
    const state = routedOf(testRoute(), "/x", { env: { remoteAddress: "10.9.8.6", enclosing: { covered: false } } });
    expect(state.covered).toBe(true);
    limitRate(h.services)(state);
    expect(state.decision).toBeUndefined();
  });

  it("never refuses the health probes: it peeks at the client address's bucket", () => {
    const h = makeHarness();
    const env = { remoteAddress: "10.9.8.5" };
    const state = routedOf(testRoute({ stability: "outside" }), "/healthz", { env });
    limitRate(h.services)(state);
    limitRate(h.services)(state);
    expect(state.decision).toMatchObject({ allowed: true, remaining: ANONYMOUS_PER_MINUTE });
  });

  it("reads the bucket again after an operation that spends tokens", async () => {
    const h = makeHarness();
    const key = h.key();
    const state = routedOf(testRoute({ spendsTokens: true }), "/x", { auth: key });
    await authenticateCaller(h.services)(state);
    limitRate(h.services)(state);
    h.services.limiter.take(state.bucket!.id, state.bucket!.limits);
    rereadBucket(h.services, state);
    expect(state.decision?.remaining).toBe(98);
  });
});
