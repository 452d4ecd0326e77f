-- Jobs that run once across servers sharing one database (issue 34). A learning job is claimed by one server for a
-- lease that it renews while the job runs: a job whose lease has passed (its server died) is claimed again by
-- another (domain/learning/runner.ts). A periodic job's period is run by the server whose insert of its row took it
-- (jobs/once-per-period.ts). test/db/pg/jobs.test.ts holds both over two servers.
ALTER TABLE learning_jobs ADD COLUMN claimed_by TEXT;
ALTER TABLE learning_jobs ADD COLUMN lease_until TEXT;

CREATE TABLE periodic_runs (
  job TEXT NOT NULL,
  period_start TEXT NOT NULL,
  ran_by TEXT NOT NULL,
  PRIMARY KEY (job, period_start)
) WITHOUT ROWID;
