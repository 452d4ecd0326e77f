/** The view of an audit-log entry: the JSON shape of its record in an answer. */
import type { AuditRow } from "../../db/misc.js";

/** An audit-log entry as the API shows it: its columns, with `details` parsed from its JSON (null for none). */
export function auditEntryView(r: AuditRow) {
  return { ...r, details: r.details ? JSON.parse(r.details) : null };
}
