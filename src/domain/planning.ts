/** Editorial planning dates (spec §4.3, DESIGN §7): the YYYY-MM-DD portion of the value as sent is the day. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// A date-time with Z, with an offset, or local (no zone): the day is the portion as sent in each case (DESIGN §7).
// The separator is T, t or a space (RFC 3339 §5.6); seconds and their fraction (after ISO 8601's full stop or comma)
// are optional. The offset is ±HH:MM (RFC 3339), or ISO 8601's ±HH, or ±HHMM as strftime's %z writes it (Python,
// C): a client's ISO 8601 value was refused for writing its offset the other way.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * isCalendarDay as a JSON Schema pattern, for the description: months 01-12, each with its days, and 02-29 only in
 * a leap year (divisible by 4 and not by 100, or by 400; 0000 is one). Held to isCalendarDay by
 * test/domain/planning-patterns.test.ts.
 */
const DAY_SOURCE =
  "\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))" +
  "|(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29";
/** A calendar day YYYY-MM-DD as isCalendarDay takes it, as a pattern (see DAY_SOURCE). */
export const CALENDAR_DAY_PATTERN = `^(?:${DAY_SOURCE})$`;
/**
 * What plannedDay accepts, as a pattern: a calendar day, or DATE_TIME on one with hours 00-23, minutes 00-59, seconds
 * 00-60 and an offset of at most 23:59. One rule is beyond it: a leap second (:60) only at 23:59:60 UTC.
 */
export const PLANNED_DATE_PATTERN =
  `^(?:${DAY_SOURCE})(?:[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d(?::(?:[0-5]\\d|60)(?:[.,]\\d{1,9})?)?` +
  "(?:[Zz]|[+-](?:[01]\\d|2[0-3])(?::?[0-5]\\d)?)?)?$";

const MINUTES_A_DAY = 24 * 60;
/** 23:59 in minutes: the only minute a leap second (:60) ends, in UTC. */
const LAST_MINUTE = MINUTES_A_DAY - 1;

/**
 * Whether year, month and day make a day of the proleptic Gregorian calendar, years 0000-9999 (what YYYY writes;
 * ISO 8601's year 0000 is 1 BC, a leap year). One rule for every day the API takes: planned days, their filters and
 * /usage's range.
 */
function validDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

/** Whether a string is a calendar day written YYYY-MM-DD, 0000-01-01 to 9999-12-31 (2026-02-30 is not). */
export function isCalendarDay(text: string): boolean {
  const date = DATE.exec(text);
  return date !== null && validDay(+date[1], +date[2], +date[3]);
}

/**
 * The planned day of an ISO 8601 date or date-time (with Z, an offset, or local), or null when it is not one. A
 * leap second (:60) is taken only where one can be: at 23:59:60 UTC (23:59:60Z, 01:59:60+02:00), on any date. A
 * local value (no zone) cannot be placed in UTC, so its :60 is refused, as :60 at any other minute.
 */
export function plannedDay(value: string): string | null {
  if (isCalendarDay(value)) return value;
  const dt = DATE_TIME.exec(value);
  if (!dt) return null;
  const [, y, m, d, hh, mm, ss, z, sign, oh, om = "00"] = dt;
  if (!validDay(+y, +m, +d) || +hh > 23 || +mm > 59 || (ss !== undefined && +ss > 60)) return null;
  if (oh !== undefined && (+oh > 23 || +om > 59)) return null;
  if (ss === "60") {
    if (z === undefined && sign === undefined) return null;
    const offset = sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (+oh * 60 + +om);
    const utcMinute = (((+hh * 60 + +mm - offset) % MINUTES_A_DAY) + MINUTES_A_DAY) % MINUTES_A_DAY;
    if (utcMinute !== LAST_MINUTE) return null;
  }
  return `${y}-${m}-${d}`;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
let machineZone: string | undefined;

/**
 * The time zone this machine is set to (TZ or /etc/localtime, as Intl resolves it); UTC when it has none. Resolved
 * once, when first asked: the first use of Intl loads ICU's time-zone data (15-60 ms on the development machine),
 * which a start would otherwise spend before its first answer.
 */
export function machineTimezone(): string {
  if (machineZone === undefined) {
    try {
      machineZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    } catch {
      machineZone = "UTC";
    }
  }
  return machineZone;
}

/** Today's date (YYYY-MM-DD) in a time zone. */
export function todayIn(timeZone: string, nowMs: number): string {
  // Building a DateTimeFormat costs far more than formatting with one: one per time zone, kept.
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    dayFormats.set(timeZone, format);
  }
  return format.format(new Date(nowMs));
}

/** Whether a planned day has passed without publication. */
export function isOverdue(day: string | null, status: string, today: string): boolean {
  return day !== null && status !== "published" && day < today;
}
