/**
 * Rate limits (spec §8, DESIGN §5): the two token buckets of a key checked together, the per-address bucket
 * of requests without valid credentials, the X-RateLimit-* headers and overrides. Time moves only through
 * the ManualClock; nothing sleeps.
 */
import { describe, expect, it } from "vitest";
import { setLimits, setPlan } from "../../src/domain/admin.js";
import { ManualClock } from "../../src/domain/clock.js";
import { ANONYMOUS_PER_MINUTE, RateLimiter } from "../../src/http/ratelimit.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, expectRateHeaders, freshAddress, sessionOf } from "../helpers/http.js";
import { limiterCases } from "../helpers/ratelimit-cases.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const seconds = (ms: number) => ms / 1000;

describe("RateLimiter (unit)", () => {
  limiterCases((clock) => new RateLimiter(clock));

  it("forgets buckets once they are full again", () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock);
    limiter.take("x", { perMinute: 10, perHour: 10 });
    limiter.take("y", { perMinute: 10 });
    expect(limiter.size).toBe(3);
    clock.advance(2 * MINUTE);
    limiter.take("z", { perMinute: 10 });
    // x's hour bucket is not full yet; x's minute bucket and y's are.
    expect(limiter.size).toBe(2);
    clock.advance(2 * HOUR);
    limiter.take("z", { perMinute: 10 });
    expect(limiter.size).toBe(1);
  });
});

describe("rate limits through the app", () => {
  it("exhausting the minute bucket answers 429 with window, limit, retry_after_seconds and Retry-After", async () => {
    const h = makeHarness();
    const key = h.key();
    for (let i = 0; i < 100; i++) {
      const res = await h.send("GET", "/api/v1/users/me", { auth: key });
      expect(res.status).toBe(200);
      expect(expectRateHeaders(res).remaining).toBe(99 - i);
    }
    const refused = await h.send("GET", "/api/v1/users/me", { auth: key });
    const details = expectErrorBody(refused, 429, "rate_limit_exceeded");
    expect(refused.body.error).toBe("RATE_LIMITED");
    expect(details).toMatchObject({ window: "minute", limit: 100, retry_after_seconds: 1 });
    expect(refused.headers.get("retry-after")).toBe(String(details.retry_after_seconds));
    expect(expectRateHeaders(refused)).toMatchObject({ limit: 100, remaining: 0 });
    // Admitted again once a token is back; refused again after it is spent.
    h.clock.advance(600);
    expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(200);
    expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(429);
    h.clock.advance(MINUTE);
    expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(200);
  });

  it("the hour bucket refuses even when the minute bucket has tokens", async () => {
    const h = makeHarness();
    setLimits(h.services.store, "test", h.a.id, 1000, 5);
    const key = h.key();
    for (let i = 0; i < 5; i++) expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(200);
    const refused = await h.send("GET", "/api/v1/users/me", { auth: key });
    const details = expectErrorBody(refused, 429, "rate_limit_exceeded");
    expect(details).toMatchObject({ window: "hour", limit: 5, retry_after_seconds: 720 });
    expect(refused.headers.get("retry-after")).toBe("720");
    h.clock.advance(5 * MINUTE);
    expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(429);
    h.clock.advance(7 * MINUTE);
    expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(200);
  });

  it("a refused request takes from neither bucket", async () => {
    const h = makeHarness();
    setLimits(h.services.store, "test", h.a.id, 3, 4);
    const key = h.key();
    const statuses: number[] = [];
    const call = async () => statuses.push((await h.send("GET", "/api/v1/users/me", { auth: key })).status);
    for (let i = 0; i < 13; i++) await call();
    expect(statuses).toEqual([200, 200, 200, ...Array(10).fill(429)]);
    // The hour bucket kept its last token through the ten refusals of the minute bucket.
    h.clock.advance(MINUTE);
    expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(200);
    const refused = await h.send("GET", "/api/v1/users/me", { auth: key });
    expect(expectErrorBody(refused, 429).window).toBe("hour");
  });

  it("X-RateLimit-* report the bucket with fewer tokens; Reset is the Unix second it is full again", async () => {
    const h = makeHarness();
    const now = seconds(h.clock.now());
    const first = await h.send("GET", "/api/v1/users/me", { auth: h.key() });
    expect(expectRateHeaders(first)).toEqual({ limit: 100, remaining: 99, reset: Math.ceil(now + 0.6) });
    setLimits(h.services.store, "test", h.a.id, 1000, 5);
    const hourly = await h.send("GET", "/api/v1/users/me", { auth: h.key() });
    expect(expectRateHeaders(hourly)).toEqual({ limit: 5, remaining: 4, reset: now + 720 });
  });

  it("keys have their own buckets; a key's bucket follows its account's plan", async () => {
    const h = makeHarness();
    const a1 = await h.send("GET", "/api/v1/users/me", { auth: h.key() });
    const a2 = await h.send("GET", "/api/v1/users/me", { auth: h.key() });
    expect(expectRateHeaders(a1).remaining).toBe(99);
    expect(expectRateHeaders(a2).remaining).toBe(99);
    const agency = await h.send("GET", "/api/v1/users/me", { auth: h.key({ account: h.b.id }) });
    expect(expectRateHeaders(agency)).toMatchObject({ limit: 300, remaining: 299 });
  });

  it("sessions are limited per user, at the plan's limits (an account's lower ones hold its keys only)", async () => {
    const h = makeHarness();
    setLimits(h.services.store, "test", h.a.id, 2, null);
    const t1 = await sessionOf(h, "member@a.test");
    const t2 = await sessionOf(h, "member@a.test");
    for (let i = 0; i < 50; i++) {
      expect((await h.send("GET", "/api/v1/users/me", { auth: t1 })).status).toBe(200);
      expect((await h.send("GET", "/api/v1/users/me", { auth: t2 })).status).toBe(200);
    }
    expectErrorBody(await h.send("GET", "/api/v1/users/me", { auth: t1 }), 429, "rate_limit_exceeded");
    const admin = await sessionOf(h, "admin@a.test");
    expect((await h.send("GET", "/api/v1/users/me", { auth: admin })).status).toBe(200);
  });

  it("401 responses carry the headers of the per-address bucket", async () => {
    const h = makeHarness();
    const address = freshAddress();
    for (const auth of [undefined, "svc_live_nope", "garbage"]) {
      const res = await h.send("GET", "/api/v1/users/me", { auth, remoteAddress: address });
      expectErrorBody(res, 401);
      expect(expectRateHeaders(res).limit).toBe(ANONYMOUS_PER_MINUTE);
    }
    const last = await h.send("GET", "/api/v1/users/me", { remoteAddress: address });
    expect(expectRateHeaders(last).remaining).toBe(ANONYMOUS_PER_MINUTE - 4);
  });

  it("the health probes carry the address bucket's headers, take nothing from it, and are never refused", async () => {
    const h = makeHarness();
    const address = freshAddress();
    for (let i = 0; i < ANONYMOUS_PER_MINUTE + 10; i++)
      for (const path of ["/healthz", "/readyz"]) {
        const res = await h.send("GET", path, { remoteAddress: address });
        expect(res.status).toBe(200);
        expect(expectRateHeaders(res)).toMatchObject({ limit: ANONYMOUS_PER_MINUTE, remaining: ANONYMOUS_PER_MINUTE });
      }
    // Requests the limit covers spend the bucket; the probes report it and still answer.
    for (let i = 0; i < ANONYMOUS_PER_MINUTE; i++) await h.send("GET", "/api/v1/users/me", { remoteAddress: address });
    expectErrorBody(await h.send("GET", "/api/v1/users/me", { remoteAddress: address }), 429, "rate_limit_exceeded");
    const probe = await h.send("GET", "/healthz", { remoteAddress: address });
    expect(probe.status).toBe(200);
    expect(expectRateHeaders(probe).remaining).toBe(0);
  });

  it("requests without valid credentials: 60 per minute per address; the 61st is 429, another address still 401", async () => {
    const h = makeHarness();
    const address = freshAddress();
    for (let i = 0; i < 60; i++) {
      const auth = i % 2 === 0 ? undefined : "svc_live_invalidinvalidinvalidinvalid0";
      expect((await h.send("GET", "/api/v1/workspaces", { auth, remoteAddress: address })).status).toBe(401);
    }
    const refused = await h.send("GET", "/api/v1/workspaces", { remoteAddress: address });
    expect(expectErrorBody(refused, 429, "rate_limit_exceeded")).toMatchObject({ window: "minute", limit: 60 });
    expect(refused.headers.get("retry-after")).toBe("1");
    // Public routes and unknown paths share the address bucket.
    expect((await h.send("GET", "/api/v1/openapi.json", { remoteAddress: address })).status).toBe(429);
    expect((await h.send("GET", "/nope", { remoteAddress: address })).status).toBe(429);
    expectErrorBody(await h.send("GET", "/api/v1/workspaces", { remoteAddress: freshAddress() }), 401);
    // A valid key from the same address is not limited by the address bucket.
    expect((await h.send("GET", "/api/v1/workspaces", { auth: h.key(), remoteAddress: address })).status).toBe(200);
    h.clock.advance(MINUTE);
    expectErrorBody(await h.send("GET", "/api/v1/workspaces", { remoteAddress: address }), 401);
  });

  it("a setLimits override takes effect at once, and nulls return to the plan's limits", async () => {
    const h = makeHarness();
    const key = h.key();
    const call = () => h.send("GET", "/api/v1/users/me", { auth: key });
    for (let i = 0; i < 10; i++) await call();
    setLimits(h.services.store, "test", h.a.id, 20, null);
    expect(expectRateHeaders(await call())).toMatchObject({ limit: 20, remaining: 9 });
    setLimits(h.services.store, "test", h.a.id, 3, null);
    expect(expectErrorBody(await call(), 429)).toMatchObject({ window: "minute", limit: 3 });
    setLimits(h.services.store, "test", h.a.id, null, null);
    const back = await call();
    expect(back.status).toBe(200);
    expect(expectRateHeaders(back).limit).toBe(100);
    const entitlements = await h.send("GET", "/api/v1/users/me/entitlements", { auth: key });
    expect(entitlements.body.rate_limits).toEqual({ per_minute: 100, per_hour: 1000, overridden: false });
  });

  it("a plan change takes effect at once", async () => {
    const h = makeHarness();
    const key = h.key();
    expect(expectRateHeaders(await h.send("GET", "/api/v1/users/me", { auth: key })).limit).toBe(100);
    setPlan(h.services.store, "test", h.a.id, "agency");
    expect(expectRateHeaders(await h.send("GET", "/api/v1/users/me", { auth: key })).limit).toBe(300);
    setPlan(h.services.store, "test", h.a.id, "pro");
    expectErrorBody(await h.send("GET", "/api/v1/users/me", { auth: key }), 403, "plan_upgrade_required");
  });

  it("150 concurrent requests on a fresh 100-per-minute key: exactly 100 admitted and 50 refused", async () => {
    const h = makeHarness();
    const key = h.key();
    const answers = await Promise.all(
      Array.from({ length: 150 }, () => h.send("GET", "/api/v1/users/me", { auth: key })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s >= 200 && s < 300)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
    const remaining = answers.filter((a) => a.status === 200).map((a) => expectRateHeaders(a).remaining);
    expect(new Set(remaining).size).toBe(100);
  });
});
