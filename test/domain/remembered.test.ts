/** The small per-request memories of the hot path answer exactly what the plain computation would. */
import { describe, expect, it } from "vitest";
import { storedScopes } from "../../src/db/apikeys.js";
import { iso } from "../../src/domain/clock.js";
import { utcDay } from "../../src/domain/usage.js";

describe("remembered answers", () => {
  it("utcDay keeps the last day only while the instant lies in it", () => {
    const midnight = Date.parse("2026-11-23T00:00:00.000Z");
    const instants = [midnight - 1, midnight - 1, midnight, midnight + 86_399_999, midnight + 86_400_000, midnight - 1];
    for (const ms of instants) expect(utcDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
    expect(utcDay(midnight - 86_400_000 * 400)).toBe("2025-10-19");
  });

  it("iso answers every instant, repeated or not", () => {
    for (const ms of [0, 1, 1, 0, 1_795_000_000_123, 1_795_000_000_123, 1_795_000_000_124])
      expect(iso(ms)).toBe(new Date(ms).toISOString());
  });

  it("storedScopes gives each caller its own array", () => {
    const a = storedScopes('["read"]');
    a.push("write");
    expect(storedScopes('["read"]')).toEqual(["read"]);
    expect(storedScopes('["read","write"]')).toEqual(["read", "write"]);
    expect(storedScopes("[]")).toEqual(["read", "write"]);
    expect(storedScopes(null)).toEqual(["read", "write"]);
  });
});
