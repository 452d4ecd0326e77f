/** Queries on the daily usage counters (usage_daily), written only in batches. */
import type { SqlConnection } from "./connection.js";

/** The counters of one (account, key, day), in the order of the table's columns. */
export const USAGE_FIELDS = [
  "requests",
  "generations",
  "words_generated",
  "finalizations",
  "learning_analyses",
  "images",
] as const;

/** One counter's name. */
export type UsageField = (typeof USAGE_FIELDS)[number];

/** A set of counter values. */
export type UsageCounts = Record<UsageField, number>;

/** One row of usage_daily; key_id is '' for what no API key did. */
export interface UsageRow extends UsageCounts {
  account_id: number;
  key_id: string;
  day: string;
}

const columns = USAGE_FIELDS.join(", ");
// The stored value named by its table: PostgreSQL finds a bare name ambiguous beside `excluded`.
const additions = USAGE_FIELDS.map((f) => `${f} = usage_daily.${f} + excluded.${f}`).join(", ");

/** Prepared usage statements of one connection. */
export function usageQueries(db: SqlConnection) {
  const add = db.prepare(
    `INSERT INTO usage_daily (account_id, key_id, day, ${columns})
     VALUES (@account_id, @key_id, @day, ${USAGE_FIELDS.map((f) => `@${f}`).join(", ")})
     ON CONFLICT (account_id, key_id, day) DO UPDATE SET ${additions}`,
  );
  const range = db.prepare<[number, string, string], UsageRow>(
    `SELECT * FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day, key_id`,
  );
  const addAll = db.transaction((rows: UsageRow[]) => {
    for (const row of rows) add.run(row);
  });
  return {
    /** Adds a batch of increments in one transaction (each row's counters are added to the stored ones). */
    addMany(rows: UsageRow[]): void {
      addAll(rows);
    },
    /** The stored rows of an account between two days (inclusive, YYYY-MM-DD). */
    range: (accountId: number, from: string, to: string) => range.all(accountId, from, to),
  };
}
