/** Periodic jobs (node-cron), each registered with the function of the module that owns its data. */
import cron from "node-cron";

/** A periodic job: a name, a cron expression and a plain function (no task files: see the single-executable notes). */
export interface PeriodicJob {
  name: string;
  expression: string;
  run(): void | Promise<void>;
}

/** Starts the jobs; the returned function stops them all. */
export function startSchedules(jobs: PeriodicJob[], onError: (job: string, e: unknown) => void): () => Promise<void> {
  const tasks = jobs.map((job) =>
    cron.schedule(
      job.expression,
      async () => {
        try {
          await job.run();
        } catch (e) {
          onError(job.name, e);
        }
      },
      { name: job.name, noOverlap: true },
    ),
  );
  return async () => {
    for (const t of tasks) await t.destroy();
  };
}
