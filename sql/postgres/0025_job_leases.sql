-- PostgreSQL: the same columns and table as SQLite's (rules in README.md).
-- Jobs that run once across servers sharing one database (issue 34). A learning job is claimed by one server for a
-- lease that it renews while the job runs: a job whose lease has passed (its server died) is claimed again by
-- another (domain/learning/runner.ts). A periodic job's period is run by the server whose insert of its row took it
-- (jobs/once-per-period.ts). test/db/pg/jobs.test.ts holds both over two servers.
ALTER TABLE learning_jobs ADD COLUMN claimed_by TEXT COLLATE "C";
ALTER TABLE learning_jobs ADD COLUMN lease_until TEXT COLLATE "C";

CREATE TABLE periodic_runs (
  job TEXT COLLATE "C" NOT NULL,
  period_start TEXT COLLATE "C" NOT NULL,
  ran_by TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (job, period_start)
);
