/** Editorial planning dates (spec §4.3, DESIGN §7): the YYYY-MM-DD portion of the value as sent is the day. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// A date-time with Z, with an offset, or local (no zone): the day is the portion as sent in each case (DESIGN §7).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))?$/;

function validDay(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

/** The planned day of an ISO 8601 date or date-time (with Z, an offset, or local), or null when it is not one. */
export function plannedDay(value: string): string | null {
  const date = DATE.exec(value);
  if (date) return validDay(+date[1], +date[2], +date[3]) ? value : null;
  const dt = DATE_TIME.exec(value);
  if (!dt) return null;
  const [, y, m, d, hh, mm, ss, oh, om] = dt;
  if (!validDay(+y, +m, +d) || +hh > 23 || +mm > 59 || (ss !== undefined && +ss > 60)) return null;
  if (oh !== undefined && (+oh > 23 || +om > 59)) return null;
  return `${y}-${m}-${d}`;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

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
