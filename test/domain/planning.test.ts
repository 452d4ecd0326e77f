import { describe, expect, it } from "vitest";
import { isOverdue, plannedDay, todayIn } from "../../src/domain/planning.js";

describe("planned day (spec §4.3)", () => {
  it.each([
    ["2026-03-01T23:30:00-05:00", "2026-03-01"],
    ["2026-03-01T00:30:00+09:00", "2026-03-01"],
    ["2026-03-01", "2026-03-01"],
    ["2026-12-31T23:59:59.999Z", "2026-12-31"],
    ["2024-02-29T10:00:00Z", "2024-02-29"],
    ["2026-03-01T10:00+0530", "2026-03-01"],
    ["2026-03-01T23:30:00", "2026-03-01"],
    ["2026-03-01T23:30:00.250", "2026-03-01"],
    ["2026-03-01T23:30", "2026-03-01"],
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
