/** Runs queued learning jobs on the worker pool, folds their results into voice profiles, retries failures. */
import type { Store } from "../../db/store.js";
import { type DbLocation, threadStore } from "../../db/thread-store.js";
import type { Logger } from "../../runtime/log.js";
import type { TaskPool } from "../../runtime/task-pool.js";
import { TaskLimitError } from "../../runtime/task-pool.js";
import { type Clock, iso } from "../clock.js";
import type { UsageCounter } from "../usage.js";
import { inlineWriter, type StoreWriter } from "../writer.js";
import { type AnalysisInput, type AnalysisResult, analyzeEdit } from "./analyze.js";

/** What a job stores (JSON): the versions of its content to compare, and the editing time (null: unknown). */
export interface JobInput {
  generated_version: number;
  finalized_version: number;
  edit_seconds: number | null;
}

/** Attempts before a job stays failed. */
export const MAX_ATTEMPTS = 5;

/** Delay before retry number `attempts` (30 s, 2 min, 8 min, 32 min). */
export function backoffMs(attempts: number): number {
  return 30_000 * 4 ** Math.max(0, attempts - 1);
}

/** A job's analysis input: the texts of the versions it names (older jobs hold the texts themselves). */
export function analysisInput(store: Store, contentId: number, rawInput: string): AnalysisInput {
  const input = JSON.parse(rawInput) as AnalysisInput | JobInput;
  if ("generated" in input) return input;
  const generated = store.contents.versionText(contentId, input.generated_version);
  const finalized = store.contents.versionText(contentId, input.finalized_version);
  if (generated === undefined || finalized === undefined)
    throw new Error(`the versions of content ${contentId} this job analyses are gone`);
  return { generated, finalized, edit_seconds: input.edit_seconds };
}

/** The pool task: reads a job's texts from the database on this thread and analyses them. */
export function analyzeJob(input: { db: DbLocation; contentId: number; rawInput: string }): AnalysisResult {
  return analyzeEdit(analysisInput(threadStore(input.db, { readonly: true }), input.contentId, input.rawInput));
}

/** The pool tasks the runner hands a job's analysis to (workers/tasks.ts runs them). */
export type LearningTasks = { analyzeJob: typeof analyzeJob; analyzeEdit: typeof analyzeEdit };

/** The job queue's runner; one per server. */
export class LearningRunner {
  private running = false;
  private pending: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private store: Store,
    private pool: TaskPool<LearningTasks>,
    private clock: Clock,
    private logger: Logger,
    private usage?: UsageCounter,
    private concurrency = 2,
    /** Where the jobs' writes run (the server: its writer thread; see writer.ts). */
    private writer: StoreWriter = inlineWriter(store),
    /** The database file, for the pool's threads to read the texts from (the server); none: texts are sent. */
    private location?: DbLocation,
  ) {}

  /** After a start (or a crash): interrupted jobs go back to the queue, then the queue runs. */
  start(): void {
    const resumed = this.store.learning.requeueInterrupted();
    if (resumed) this.logger.info("learning jobs resumed after restart", { count: resumed });
    this.kick();
  }

  /** Makes the runner look at the queue (after a finalize, a retry or a start). */
  kick(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.pending = this.drain()
      .catch((e) => {
        // A database error (busy, disk full) must not end the process: the jobs stay queued for the next kick.
        this.logger.error("learning queue failed", { error: (e as Error).message });
      })
      .finally(() => {
        this.running = false;
      });
  }

  /** Failed jobs whose backoff has passed are queued again (the periodic job calls this). */
  retryFailed(): number {
    const n = this.store.learning.requeueFailed(iso(this.clock.now()), MAX_ATTEMPTS);
    if (n) this.kick();
    return n;
  }

  /** Runs the queue until nothing is due, then resolves (for tests). */
  async idle(): Promise<void> {
    this.kick();
    while (this.running) await this.pending;
  }

  /** Stops taking jobs and waits for those in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.pending;
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const due = this.store.learning.due(iso(this.clock.now()), this.concurrency);
      if (due.length === 0) return;
      await Promise.all(due.map((job) => this.runOne(job.id, job.content_id, job.input)));
    }
  }

  private async runOne(id: string, contentId: number, rawInput: string): Promise<void> {
    if (!(await this.writer.run("learningClaim", { id, now: iso(this.clock.now()) }))) return;
    try {
      // With a database location the pool's thread reads the two texts itself: they never cross this thread.
      const result = this.location
        ? await this.pool.run("analyzeJob", { db: this.location, contentId, rawInput })
        : await this.pool.run("analyzeEdit", analysisInput(this.store, contentId, rawInput));
      const accountId = await this.writer.run("learningComplete", { id, result, now: iso(this.clock.now()) });
      // Counted for the account: the analysis runs in the background, for no API key.
      if (accountId !== null) this.usage?.count(accountId, null, "learning_analyses");
    } catch (e) {
      const job = this.store.learning.job(id);
      // Deleted with its content or workspace while it ran: nothing failed, and there is nothing to mark.
      if (!job) {
        this.logger.info("learning job dropped: its content was deleted", { job_id: id });
        return;
      }
      const attempts = job.attempts;
      // An analysis stopped past its processing time would only be stopped again: it is not retried.
      const retry = attempts < MAX_ATTEMPTS && !(e instanceof TaskLimitError);
      const retryAt = retry ? iso(this.clock.now() + backoffMs(attempts)) : null;
      const error = (e as Error).message ?? String(e);
      await this.writer.run("learningFail", { id, error, retryAt, now: iso(this.clock.now()) });
      this.logger.error("learning job failed", { job_id: id, attempts, retry_at: retryAt });
    }
  }
}
