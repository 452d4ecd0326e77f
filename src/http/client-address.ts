/**
 * The client's address of a request, the one every use of it reads (rate buckets, sign-in backoff, GET /metrics's
 * loopback rule). Without trusted proxies (`serve --trust-proxy`, none by default) it is the connection's peer and
 * X-Forwarded-For is ignored, since any client can write it. From a trusted proxy it is the right-most entry of
 * X-Forwarded-For that is not itself a trusted proxy: each proxy appends the address it was reached from, so entries
 * left of the first untrusted one are whatever that client wrote. The walk is proxy-addr's (Express's): a
 * well-kept implementation of that rule, with IPv4-mapped peers and CIDR matching, rather than parsing by hand.
 * Tests: test/http/client-address.test.ts.
 */
import { isIP } from "node:net";
import proxyaddr from "proxy-addr";

/** Whether hop `i` (0: the connection's peer) at `address` is a trusted proxy. */
export type TrustProxy = (address: string, i: number) => boolean;

/** The shorthands a --trust-proxy value may be, besides an address or a CIDR range (proxy-addr's names). */
export const TRUST_PROXY_NAMES = ["loopback", "linklocal", "uniquelocal"] as const;

/** A --trust-proxy value that is neither an address, a CIDR range nor one of TRUST_PROXY_NAMES. */
export class TrustProxyError extends Error {}

/** The trust of the given proxies; undefined for none; TrustProxyError naming the first value that is not one. */
export function trustProxyOf(values: readonly string[]): TrustProxy | undefined {
  if (values.length === 0) return undefined;
  for (const value of values) {
    try {
      proxyaddr.compile(value);
    } catch (e) {
      throw new TrustProxyError(
        `"${value}" is not an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or one of ` +
          `${TRUST_PROXY_NAMES.join(", ")} (${(e as Error).message})`,
      );
    }
  }
  return proxyaddr.compile([...values]);
}

/**
 * The client's address: the peer's, or through trusted proxies the first untrusted X-Forwarded-For entry from the
 * right. An entry that is no IP address (a proxy passing on what its client wrote) ends the walk at the proxy that
 * sent it, so that a client cannot choose its bucket with any string.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | null,
  trust: TrustProxy | undefined,
): string | undefined {
  if (trust === undefined || peer === undefined || !forwardedFor) return peer;
  const hops = proxyaddr.all({ socket: { remoteAddress: peer }, headers: { "x-forwarded-for": forwardedFor } }, trust);
  const last = hops.length - 1;
  return last > 0 && isIP(hops[last]) === 0 ? hops[last - 1] : hops[last];
}
