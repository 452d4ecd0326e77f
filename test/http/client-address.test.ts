/**
 * The client's address (src/http/client-address.ts): X-Forwarded-For is read only from a proxy given to
 * `serve --trust-proxy`, right to left past the trusted hops; the address found is what the anonymous rate buckets,
 * the sign-in backoff and GET /metrics's loopback rule read, and an IPv6 client counts by its /64.
 */
import { describe, expect, it } from "vitest";
import { clearAddressBackoff } from "../../src/domain/sign-in-backoff.js";
import { clientAddress, TrustProxyError, trustProxyOf } from "../../src/http/client-address.js";
import { ANONYMOUS_PER_MINUTE } from "../../src/http/ratelimit.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

const PROXY = "10.0.0.2";
const CLIENT = "203.0.113.7";
const SPOOFED = "198.51.100.1";

describe("clientAddress", () => {
  const trust = trustProxyOf(["loopback", "10.0.0.0/8"]);

  it("is the peer without trusted proxies, whatever X-Forwarded-For says", () => {
    expect(clientAddress(CLIENT, SPOOFED, undefined)).toBe(CLIENT);
    expect(clientAddress("127.0.0.1", SPOOFED, trustProxyOf([]))).toBe("127.0.0.1");
  });

  it("ignores X-Forwarded-For from a peer that is not trusted", () => {
    expect(clientAddress(CLIENT, SPOOFED, trust)).toBe(CLIENT);
  });

  it("takes the right-most untrusted entry from a trusted proxy, skipping trusted hops", () => {
    expect(clientAddress(PROXY, CLIENT, trust)).toBe(CLIENT);
    // The client wrote SPOOFED itself; the outer proxy appended CLIENT, the inner one 10.0.0.9.
    expect(clientAddress(PROXY, `${SPOOFED}, ${CLIENT}, 10.0.0.9`, trust)).toBe(CLIENT);
    expect(clientAddress("::ffff:127.0.0.1", `${SPOOFED},${CLIENT}`, trust)).toBe(CLIENT);
    expect(clientAddress("::1", "2001:db8::5", trust)).toBe("2001:db8::5");
  });

  it("stops at the proxy that forwarded an entry that is no address", () => {
    expect(clientAddress(PROXY, "not-an-address", trust)).toBe(PROXY);
    expect(clientAddress(PROXY, `${SPOOFED}, not-an-address, 10.0.0.9`, trust)).toBe("10.0.0.9");
  });

  it("is the trusted proxy's own address when every hop is trusted, or the header is empty", () => {
    expect(clientAddress(PROXY, "10.0.0.3, 127.0.0.1", trust)).toBe("10.0.0.3");
    expect(clientAddress(PROXY, "", trust)).toBe(PROXY);
    expect(clientAddress(PROXY, null, trust)).toBe(PROXY);
  });

  it("refuses a value that is not an address, a CIDR range or a name, naming it", () => {
    for (const bad of ["proxy.example", "10.0.0.0/33", "1.2.3", "::1/129", ""])
      expect(() => trustProxyOf([bad])).toThrow(TrustProxyError);
    expect(() => trustProxyOf(["loopback", "proxy.example"])).toThrow(/"proxy.example" is not an IP address/);
    expect(trustProxyOf(["loopback", "linklocal", "uniquelocal", "192.0.2.0/24", "fd00::/8"])).toBeTypeOf("function");
  });
});

/** Wrong passwords for one email from `remoteAddress`, forwarded for `forwardedFor` when given. */
async function failSignIns(h: Harness, n: number, remoteAddress: string, forwardedFor?: string): Promise<number[]> {
  const statuses: number[] = [];
  const headers: Record<string, string> = forwardedFor ? { "x-forwarded-for": forwardedFor } : {};
  for (let i = 0; i < n; i++) {
    const body = { email: "member@a.test", password: `wrong ${i}` };
    statuses.push((await h.send("POST", "/api/v1/auth/login", { body, remoteAddress, headers })).status);
  }
  return statuses;
}

/** Spends the anonymous minute of the client behind `remoteAddress`, and answers the next request. */
async function spendAnonymousMinute(h: Harness, remoteAddress: string, forwardedFor: string) {
  const headers = { "x-forwarded-for": forwardedFor };
  for (let i = 0; i < ANONYMOUS_PER_MINUTE; i++) await h.send("GET", "/api/v1/templates", { remoteAddress, headers });
  return h.send("GET", "/api/v1/templates", { remoteAddress, headers });
}

describe("the client's address in the pipeline", () => {
  it("ignores a spoofed X-Forwarded-For without --trust-proxy: the peer's bucket and backoff count", async () => {
    const h = makeHarness();
    expectErrorBody(await spendAnonymousMinute(h, CLIENT, SPOOFED), 429, "rate_limit_exceeded");
    // Another forwarded address from the same peer is the same client.
    const again = await h.send("GET", "/api/v1/templates", {
      remoteAddress: CLIENT,
      headers: { "x-forwarded-for": "192.0.2.1" },
    });
    expectErrorBody(again, 429, "rate_limit_exceeded");
    h.clock.advance(60_000);
    await failSignIns(h, 1, CLIENT, SPOOFED);
    expect(h.services.store.signInBackoff.get(`addr:${CLIENT}`)?.failures).toBe(1);
    expect(h.services.store.signInBackoff.get(`addr:${SPOOFED}`)).toBeUndefined();
  });

  it("honours X-Forwarded-For from a trusted proxy: each forwarded client has its own bucket", async () => {
    const h = makeHarness({ config: { trustProxy: ["loopback"] } });
    expectErrorBody(await spendAnonymousMinute(h, "127.0.0.1", CLIENT), 429, "rate_limit_exceeded");
    const other = await h.send("GET", "/api/v1/templates", {
      remoteAddress: "127.0.0.1",
      headers: { "x-forwarded-for": SPOOFED },
    });
    expect(other.status).toBe(401);
  });

  it("backs sign-ins off per forwarded client, and per /64 for IPv6 clients", async () => {
    const h = makeHarness({ config: { trustProxy: ["loopback"] } });
    await failSignIns(h, 1, "127.0.0.1", `${SPOOFED}, ${CLIENT}`);
    expect(h.services.store.signInBackoff.get(`addr:${CLIENT}`)?.failures).toBe(1);
    expect(h.services.store.signInBackoff.get("addr:127.0.0.1")).toBeUndefined();
    await failSignIns(h, 1, "127.0.0.1", "2001:db8:1:2::10");
    await failSignIns(h, 1, "::1", "2001:db8:1:2:ffff::20");
    expect(h.services.store.signInBackoff.get("addr:2001:db8:1:2::/64")?.failures).toBe(2);
    // `users clear-backoff --address` takes any address of the /64, or the /64 as `users backoff` lists it.
    expect(clearAddressBackoff(h.services.store, "2001:db8:1:2::99")).toBe(true);
    await failSignIns(h, 1, "::1", "2001:db8:1:2::10");
    expect(clearAddressBackoff(h.services.store, "2001:db8:1:2::/64")).toBe(true);
    expect(h.services.store.signInBackoff.get("addr:2001:db8:1:2::/64")).toBeUndefined();
  });

  it("counts the IPv6 hosts of one /64 as one anonymous client", async () => {
    const h = makeHarness();
    for (let i = 0; i < ANONYMOUS_PER_MINUTE; i++)
      await h.send("GET", "/api/v1/templates", { remoteAddress: `2001:db8:5:6::${(i + 1).toString(16)}` });
    expectErrorBody(await h.send("GET", "/api/v1/templates", { remoteAddress: "2001:db8:5:6:abcd::1" }), 429);
    expect((await h.send("GET", "/api/v1/templates", { remoteAddress: "2001:db8:5:7::1" })).status).toBe(401);
  });

  it("judges GET /metrics's loopback rule by the forwarded client behind a trusted local proxy", async () => {
    const h = makeHarness({ config: { trustProxy: ["loopback"] } });
    const far = await h.send("GET", "/metrics", { remoteAddress: "127.0.0.1", headers: { "x-forwarded-for": CLIENT } });
    expectErrorBody(far, 401, "unauthorized");
    const untrusting = makeHarness();
    const local = await untrusting.send("GET", "/metrics", {
      remoteAddress: "127.0.0.1",
      headers: { "x-forwarded-for": CLIENT },
    });
    expect(local.status).toBe(200);
  });
});
