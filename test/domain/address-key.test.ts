/** The key of per-address limits (src/domain/address-key.ts): IPv4 as itself, IPv6 by its /64, mapped as IPv4. */
import { describe, expect, it } from "vitest";
import { addressKey } from "../../src/domain/address-key.js";

describe("addressKey", () => {
  it("keys an IPv4 address as itself", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("203.0.113.8")).not.toBe(addressKey("203.0.113.7"));
  });

  it("keys an IPv6 address by its /64 network, however it is written", () => {
    const key = addressKey("2001:db8:1:2:3:4:5:6");
    expect(key).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe(key);
    expect(addressKey("2001:db8:1:2::1")).toBe(key);
    expect(addressKey("fe80::1%eth0")).toBe("fe80::/64");
    expect(addressKey("2001:db8:1:3::1")).not.toBe(key);
    expect(addressKey("::1")).toBe("::/64");
  });

  it("keys an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:cb00:7107")).toBe("203.0.113.7");
  });

  it("keys no address as unknown, and what is not an address as it is", () => {
    expect(addressKey(undefined)).toBe("unknown");
    expect(addressKey("in-process")).toBe("in-process");
  });
});
