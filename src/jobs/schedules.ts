/** Periodic jobs (node-cron), each registered with the function of the module that owns its data. */
import cron from "node-cron";

/** A periodic job: a name, a cron expression and a plain function (no task files: see the single-executable notes). */
export interface PeriodicJob {
  name: string;
  expression: string;
  run(): void | Promise<void>;
}

/**
 * Starts the jobs after `delayMs`; the returned function stops them all. Scheduling computes each job's next run
 * with Intl time-zone formatting, about 40 ms the first time: the delay keeps that off the server's path to its first
 * answer (jobs run at minute granularity and later).
 */
export function startSchedules(
  jobs: PeriodicJob[],
  onError: (job: string, e: unknown) => void,
  delayMs = 1_000,
): () => Promise<void> {
  let tasks: ReturnType<typeof schedule> = [];
  let stopped = false;
  const timer = setTimeout(() => {
    if (!stopped) tasks = schedule(jobs, onError);
  }, delayMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    for (const t of tasks) await t.destroy();
  };
}

function schedule(jobs: PeriodicJob[], onError: (job: string, e: unknown) => void) {
  return jobs.map((job) =>
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
}
