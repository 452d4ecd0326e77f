/**
 * A periodic job that runs once per period across the servers sharing a database (issue 34): each server's schedule
 * fires it, and only the server that takes the period (db/periodic.ts) runs it; the others skip that period
 * (test/jobs/once-per-period.test.ts, test/db/pg/jobs.test.ts).
 */
import type { PeriodicJob } from "./schedules.js";

/** Takes a job's period for this server: true when this server is the one to run it. */
export type PeriodClaim = (job: string, periodStart: string) => boolean | Promise<boolean>;

/** A minute: the schedules' granularity, so the period of a firing is the minute it fired in. */
const PERIOD_MS = 60_000;

/**
 * The period a firing at `now` (ms) belongs to: its minute, as an ISO time. Servers fire a job at the same minute by
 * their clocks, so clocks that agree within a minute (NTP) name the same period.
 */
export function periodOf(now: number): string {
  return new Date(Math.floor(now / PERIOD_MS) * PERIOD_MS).toISOString();
}

/** `job`, run only when `claim` takes the period it fired in (by `now`, in ms). */
export function oncePerPeriod(job: PeriodicJob, claim: PeriodClaim, now: () => number): PeriodicJob {
  return {
    ...job,
    run: async () => {
      if (await claim(job.name, periodOf(now()))) await job.run();
    },
  };
}
