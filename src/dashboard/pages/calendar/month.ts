/**
 * The calendar's days as the server writes them (YYYY-MM-DD), counted with plain numbers: a planned day is a date part
 * kept as sent (spec §4.3, no time-zone conversion), so no Date of the browser's zone ever touches one.
 */

/** A month: its year and its number, 1 to 12. */
export interface Month {
  year: number;
  month: number;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The month's `YYYY-MM`, as the page's address names it (`#/calendar?month=2026-12`). */
export function monthKey(m: Month): string {
  return `${pad(m.year, 4)}-${pad(m.month)}`;
}

/** The month an address names; the browser's current month for none or a malformed one. */
export function parseMonth(text: string | null): Month {
  const match = /^(\d{4})-(\d{2})$/.exec(text ?? "");
  if (match && Number(match[2]) >= 1 && Number(match[2]) <= 12)
    return { year: Number(match[1]), month: Number(match[2]) };
  const now = new Date();
  return { year: now.getFullYear(), month: now.getMonth() + 1 };
}

/** The month `delta` months away. */
export function addMonths(m: Month, delta: number): Month {
  const index = m.year * 12 + (m.month - 1) + delta;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** How many days the month has (UTC arithmetic: independent of the browser's zone). */
export function daysIn(m: Month): number {
  return new Date(Date.UTC(m.year, m.month, 0)).getUTCDate();
}

/** The day's `YYYY-MM-DD`. */
export function dayKey(m: Month, day: number): string {
  return `${monthKey(m)}-${pad(day)}`;
}

/** The weekday of the month's first day, Monday 0 to Sunday 6 (the grid's first column is Monday). */
export function firstWeekday(m: Month): number {
  return (new Date(Date.UTC(m.year, m.month - 1, 1)).getUTCDay() + 6) % 7;
}

/** The weekdays' names in the grid's order, Monday first. */
export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/** The weekday's name of a day of the month. */
export function weekdayOf(m: Month, day: number): string {
  return WEEKDAYS[(firstWeekday(m) + day - 1) % 7];
}

/** The month's name and year in the browser's language ("December 2026"); computed in UTC so the month never shifts. */
export function monthTitle(m: Month): string {
  return new Date(Date.UTC(m.year, m.month - 1, 1)).toLocaleDateString(undefined, {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}
