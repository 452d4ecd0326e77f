/**
 * The periodic jobs under the test clock: node-cron fires on real time, so when the clock is advanced past a job's
 * time, the job is run then, once (as a cron that missed runs while the machine slept runs it once), before the
 * advance answers. A job's time is matched against the clock's minutes, in the machine's time zone as node-cron
 * matches them. Held by test/sandbox/clock.test.ts ("runs a scheduled job").
 */
import cron from "node-cron";

/** A periodic job as the server schedules it (jobs/schedules.ts's PeriodicJob, which the sandbox does not import). */
export interface ClockJob {
  name: string;
  expression: string;
  run(): void | Promise<void>;
}

const MINUTE = 60_000;

/** The jobs a clock's advances run, once the server has them (server/start.ts). */
export class ClockJobs {
  private jobs: { job: ClockJob; matches: (at: Date) => boolean }[] = [];
  private onError: (job: string, e: unknown) => void = () => {};

  use(jobs: ClockJob[], onError: (job: string, e: unknown) => void): void {
    this.jobs = jobs.map((job) => {
      const task = cron.createTask(job.expression, () => {});
      return { job, matches: (at: Date) => task.match(at) };
    });
    this.onError = onError;
  }

  /** Runs each job with a time in (fromMs, toMs], once; the names of those run. */
  async runDue(fromMs: number, toMs: number): Promise<string[]> {
    const due = this.jobs.filter((j) => hasMinuteIn(j.matches, fromMs, toMs));
    for (const { job } of due) {
      try {
        await job.run();
      } catch (e) {
        this.onError(job.name, e);
      }
    }
    return due.map((j) => j.job.name);
  }
}

/** Whether a whole minute in (fromMs, toMs] matches; looks at most a year of minutes (the longest cron period). */
function hasMinuteIn(matches: (at: Date) => boolean, fromMs: number, toMs: number): boolean {
  const last = Math.min(toMs, fromMs + 366 * 24 * 60 * MINUTE);
  for (let t = Math.floor(fromMs / MINUTE) * MINUTE + MINUTE; t <= last; t += MINUTE)
    if (matches(new Date(t))) return true;
  return false;
}
