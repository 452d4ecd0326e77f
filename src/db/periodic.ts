/** Queries on the periods of the periodic jobs: which server took each (sql/0025_job_leases.sql). */
import type { SqlConnection } from "./connection.js";

/** How long a period's row is kept: a server whose clock runs behind finds the periods others ran in that time. */
const KEPT_MS = 24 * 60 * 60 * 1000;

/** Prepared statements of the periodic jobs' periods. */
export function periodicQueries(db: SqlConnection) {
  // The primary key makes the insert the decision: of servers inserting the same row, one inserts it.
  const take = db.prepare<[string, string, string]>(
    "INSERT INTO periodic_runs (job, period_start, ran_by) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const forget = db.prepare<[string, string]>("DELETE FROM periodic_runs WHERE job = ? AND period_start < ?");
  return {
    /**
     * Takes a job's period (its start, an ISO time) for the server `ranBy`: true for the one server whose insert made
     * the row, false for every other; the job's rows a day older go.
     */
    claim(job: string, periodStart: string, ranBy: string): boolean {
      if (take.run(job, periodStart, ranBy).changes === 0) return false;
      forget.run(job, new Date(Date.parse(periodStart) - KEPT_MS).toISOString());
      return true;
    },
  };
}
