/** The view of a web-session user: the JSON shape of its record in an answer. */
import type { UserRow } from "../../db/users.js";

/** A user as the API shows it (never the hash). */
export function userView(u: UserRow) {
  return { id: u.id, account_id: u.account_id, email: u.email, role: u.role, created_at: u.created_at };
}
