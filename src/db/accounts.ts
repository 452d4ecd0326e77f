/** Queries on accounts. */
import type { SqlConnection } from "./connection.js";

/** The plans an account can be on, as its row stores them (what each allows: domain/plans.ts). */
export const PLANS = ["starter", "pro", "business", "agency"] as const;
/** One of PLANS. */
export type Plan = (typeof PLANS)[number];

/** One row of accounts; the rate limits and quotas are null where the plan's apply. */
export interface AccountRow {
  id: number;
  name: string;
  plan: Plan;
  rate_per_minute: number | null;
  rate_per_hour: number | null;
  max_active_keys: number | null;
  storage_bytes: number | null;
  created_at: string;
}

/** Whether the accounts table has a row, without reading one (accountQueries any, first-account.ts). */
export const ANY_ACCOUNT_SQL = "SELECT 1 AS found FROM accounts LIMIT 1";

/** Prepared account statements of one connection. */
export function accountQueries(db: SqlConnection) {
  const byId = db.prepare<[number], AccountRow>("SELECT * FROM accounts WHERE id = ?");
  const all = db.prepare<[], AccountRow>("SELECT * FROM accounts ORDER BY id");
  const anyRow = db.prepare(ANY_ACCOUNT_SQL);
  const insert = db
    .prepare<[string, string, string], number>(
      // The id from id_sequences: never one a deleted account had (sql/0020_user_sessions_and_ids.sql).
      `INSERT INTO accounts (id, name, plan, created_at)
       VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'accounts'), ?, ?, ?) RETURNING id`,
    )
    .pluck();
  const setPlan = db.prepare<[string, number]>("UPDATE accounts SET plan = ? WHERE id = ?");
  const remove = db.prepare<[number]>("DELETE FROM accounts WHERE id = ?");
  const setLimits = db.prepare<[number | null, number | null, number]>(
    "UPDATE accounts SET rate_per_minute = ?, rate_per_hour = ? WHERE id = ?",
  );
  const setQuotas = db.prepare<[number | null, number | null, number]>(
    "UPDATE accounts SET max_active_keys = ?, storage_bytes = ? WHERE id = ?",
  );
  return {
    byId: (id: number) => byId.get(id),
    list: () => all.all(),
    /** Deletes an account and, by the schema's cascades, everything in it. */
    remove: (id: number) => remove.run(id).changes > 0,
    /** Whether the database holds an account: asked in a transaction, the answer holds until it ends. */
    any: () => anyRow.get() !== undefined,
    create(name: string, plan: Plan, now: string): AccountRow {
      const id = Number(insert.get(name, plan, now));
      return byId.get(id)!;
    },
    setPlan: (id: number, plan: Plan) => setPlan.run(plan, id).changes > 0,
    setLimits: (id: number, perMinute: number | null, perHour: number | null) =>
      setLimits.run(perMinute, perHour, id).changes > 0,
    setQuotas: (id: number, maxActiveKeys: number | null, storageBytes: number | null) =>
      setQuotas.run(maxActiveKeys, storageBytes, id).changes > 0,
  };
}
