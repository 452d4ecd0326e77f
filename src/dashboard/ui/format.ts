/** How the dashboard writes times and numbers: in the person's own locale, a missing value as a dash. */

/** A timestamp as a date and time in the browser's locale; a dash for none. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A timestamp as a date; a dash for none. */
export function date(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: "medium" });
}

/** A count with the locale's grouping. */
export function count(n: number | null | undefined): string {
  return n == null ? "—" : n.toLocaleString();
}
