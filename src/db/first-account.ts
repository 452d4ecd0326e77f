/** Whether a database has been set up: the question `init` asks before it reads a password it may not need. */
import { ANY_ACCOUNT_SQL } from "./accounts.js";
import type { SqlConnection } from "./connection.js";

/**
 * Whether the database is migrated (its schema_migrations has a row) and holds an account. Throws on a database
 * without those tables (another program's, one never migrated), which cannot say.
 */
export function hasFirstAccount(db: SqlConnection): boolean {
  return (
    db.prepare("SELECT 1 AS found FROM schema_migrations LIMIT 1").get() !== undefined &&
    db.prepare(ANY_ACCOUNT_SQL).get() !== undefined
  );
}
