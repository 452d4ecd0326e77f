/**
 * The description's patterns of planning dates say what the server's checks accept: CALENDAR_DAY_PATTERN is
 * isCalendarDay, and PLANNED_DATE_PATTERN is plannedDay but for a leap second's minute.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CALENDAR_DAY_PATTERN, isCalendarDay, PLANNED_DATE_PATTERN, plannedDay } from "../../src/domain/planning.js";

const day = new RegExp(CALENDAR_DAY_PATTERN, "u");
const planned = new RegExp(PLANNED_DATE_PATTERN, "u");
const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** Every YYYY-MM-DD with month 00-13 and day 00-32 of a year. */
function daysOf(year: number): string[] {
  const out: string[] = [];
  for (let m = 0; m <= 13; m++) for (let d = 0; d <= 32; d++) out.push(`${pad(year, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
  return out;
}

describe("CALENDAR_DAY_PATTERN", () => {
  it("matches exactly the days isCalendarDay takes, leap years included", () => {
    const years = [...Array(401).keys(), 1900, 2000, 2023, 2024, 2100, 2400, 9996, 9999];
    const differ = years.flatMap(daysOf).filter((text) => day.test(text) !== isCalendarDay(text));
    expect(differ).toEqual([]);
  });
});

describe("PLANNED_DATE_PATTERN", () => {
  const part = (max: number) => fc.integer({ min: 0, max }).map((n) => pad(n, 2));
  const candidate = fc
    .tuple(
      fc.constantFrom("2024-02-29", "2023-02-29", "2030-01-31", "2030-04-31", "0000-02-29", "2030-13-01"),
      fc.constantFrom("T", "t", " ", "x"),
      part(25),
      part(61),
      fc.option(part(61)),
      fc.option(fc.constantFrom(".5", ",250", ".123456789", ".1234567890")),
      fc.option(
        fc.oneof(
          fc.constantFrom("Z", "z"),
          fc.tuple(fc.constantFrom("+", "-"), part(24), fc.constantFrom("", ":", "|"), part(60)).map((t) => t.join("")),
        ),
      ),
      fc.boolean(),
    )
    .map(([d, sep, hh, mm, ss, frac, zone, dateOnly]) =>
      dateOnly ? d : `${d}${sep}${hh}:${mm}${ss === null ? "" : `:${ss}${frac ?? ""}`}${(zone ?? "").replace("|", "")}`,
    );

  it("matches what plannedDay takes, and takes what it matches but a leap second outside 23:59 UTC", () => {
    fc.assert(
      fc.property(candidate, (text) => {
        const accepted = plannedDay(text) !== null;
        if (accepted) expect(planned.test(text), text).toBe(true);
        else if (planned.test(text)) expect(text, "only a leap second is beyond the pattern").toMatch(/:60/);
      }),
      { numRuns: 3000 },
    );
  });
});
