/** The view of an account as its members see it: the JSON shape of its record in an answer. */
import type { AccountRow } from "../../db/accounts.js";

/** An account as GET /users/me shows it: its id, name, plan and creation time (not its limits). */
export function accountView(a: AccountRow) {
  return { id: a.id, name: a.name, plan: a.plan, created_at: a.created_at };
}
