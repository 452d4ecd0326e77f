import { describe, expect, it } from "vitest";
import { isOverdue, plannedDay, todayIn } from "../../src/domain/planning.js";

describe("planned day (spec §4.3)", () => {
  it.each([
    ["2026-03-01T23:30:00-05:00", "2026-03-01"],
    ["2026-03-01T00:30:00+09:00", "2026-03-01"],
    ["2026-03-01", "2026-03-01"],
    ["2026-12-31T23:59:59.999Z", "2026-12-31"],
    ["2024-02-29T10:00:00Z", "2024-02-29"],
    ["2026-03-01T10:00+05:30", "2026-03-01"],
    ["2026-03-01t10:00:00z", "2026-03-01"],
    ["2026-03-01 10:00:00Z", "2026-03-01"],
    // Years 0000-9999, as /usage takes them: 0000 is 1 BC, a leap year.
    ["0000-01-01", "0000-01-01"],
    ["0000-02-29T12:00:00Z", "0000-02-29"],
    ["9999-12-31T23:59:59Z", "9999-12-31"],
    // A leap second where one can be: 23:59:60 UTC, whatever the offset says locally.
    ["2016-12-31T23:59:60Z", "2016-12-31"],
    ["2016-12-31T23:59:60.5z", "2016-12-31"],
    ["2016-12-31T15:59:60-08:00", "2016-12-31"],
    ["2017-01-01T01:59:60+02:00", "2017-01-01"],
    ["2017-01-01T05:29:60+05:30", "2017-01-01"],
    ["2026-03-01T23:30:00", "2026-03-01"],
    ["2026-03-01T23:30:00.250", "2026-03-01"],
    ["2026-03-01T23:30", "2026-03-01"],
    // ISO 8601's other offsets: ±HH, and ±HHMM as strftime's %z writes it; a comma before the fraction.
    ["2026-03-01T10:00:00+05", "2026-03-01"],
    ["2026-03-01T10:00+0530", "2026-03-01"],
    ["2026-03-01T23:00:00-0800", "2026-03-01"],
    ["2026-03-01T10:00:00,5Z", "2026-03-01"],
    ["2017-01-01T05:29:60+0530", "2017-01-01"],
    ["2017-01-01T01:59:60+02", "2017-01-01"],
  ])("keeps the YYYY-MM-DD portion of %s as sent", (value, day) => {
    expect(plannedDay(value)).toBe(day);
  });

  it.each([
    "2026-02-30",
    "2025-02-29T10:00:00Z",
    "2026-13-01",
    "2026-00-10",
    "2026-03-01T24:00:00Z",
    "2026-03-01T10:61:00Z",
    "2026-03-01T10:00:00+25:00",
    "2026-03-01T10:00:00+24:00",
    "2026-03-01T10:00:00+05:60",
    // Offsets of one or three digits, a colon with nothing after it, and minutes past 59.
    "2026-03-01T10:00:00+5",
    "2026-03-01T10:00:00+053",
    "2026-03-01T10:00:00+05:",
    "2026-03-01T10:00:00+05:3",
    "2026-03-01T10:00:00+0560",
    "2026-03-01T10:00:00+2400",
    "2026-03-01T10:00:00,Z",
    // ISO 8601's basic format, week and ordinal dates: no YYYY-MM-DD portion to take as the day (DESIGN §7).
    "20260301",
    "20260301T100000Z",
    "2026-W09-7",
    "2026-060",
    // A leap second that is not 23:59:60 UTC under an hours-only offset.
    "2017-01-01T01:59:60+01",
    // A leap second at any other UTC minute, or in a local value (no zone: no UTC time), had been taken.
    "2026-03-01T10:00:60Z",
    "2016-12-31T23:58:60Z",
    "2016-12-31T23:59:60+01:00",
    "2016-12-31T23:59:60",
    "2016-12-31T23:59:61Z",
    "0000-02-30",
    "10000-01-01",
    "03/01/2026",
    "tomorrow",
    "2026-3-1",
    "",
  ])("refuses %s", (value) => {
    expect(plannedDay(value)).toBeNull();
  });

  it("computes today in a time zone and overdue only before it and unpublished", () => {
    const instant = Date.UTC(2026, 2, 2, 3, 0, 0);
    expect(todayIn("UTC", instant)).toBe("2026-03-02");
    expect(todayIn("America/New_York", instant)).toBe("2026-03-01");
    expect(isOverdue("2026-03-01", "finalized", "2026-03-02")).toBe(true);
    expect(isOverdue("2026-03-01", "published", "2026-03-02")).toBe(false);
    expect(isOverdue("2026-03-02", "draft", "2026-03-02")).toBe(false);
    expect(isOverdue(null, "draft", "2026-03-02")).toBe(false);
  });
});
