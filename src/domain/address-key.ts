/**
 * The key under which per-address limits count a client (the anonymous rate buckets, the sign-in backoff per
 * address): an IPv4 address as itself, an IPv4-mapped IPv6 address (::ffff:1.2.3.4) as that IPv4 address, and an
 * IPv6 address by its /64 network, since one host is usually given a whole /64 and could otherwise count as 2^64
 * clients (docs/operations.md "Client addresses"). Tests: test/domain/address-key.test.ts.
 */
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** The bits of an IPv6 address that name its network (its first four 16-bit parts). */
const NETWORK_PARTS = 4;

/** The key of a client address: see above; "unknown" when the transport knows none, anything else as it is. */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return "unknown";
  if (isIP(address) === 0) return address;
  const ip = ipaddr.parse(address);
  if (ip.kind() === "ipv4") return ip.toString();
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const network = new ipaddr.IPv6([...v6.parts.slice(0, NETWORK_PARTS), 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}
