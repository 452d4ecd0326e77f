/**
 * Runs queued learning jobs on the worker pool, folds their results into voice profiles, retries failures. Each job is
 * claimed by one server for a lease, renewed while it runs; a job whose lease passed (its server died) is claimed
 * again by a server that finds it (test/db/pg/jobs.test.ts).
 */
import type { ClaimedJob, JobClaim } from "../../db/job-claims.js";
import type { Store } from "../../db/store.js";
import { type DbLocation, threadStore } from "../../db/thread-store.js";
import { serverId } from "../../runtime/ids.js";
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

/**
 * How long a server holds a job it claimed without renewing the claim (renewed every third of it while the job runs):
 * the time a job whose server died waits before another server claims it.
 */
export const LEASE_MS = 60_000;

/** The runner's claims: the server's owner id, and the lease's length in ms. */
export interface LeaseOptions {
  owner: string;
  ms: number;
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
  /** The claims of the jobs this runner has in hand, by job id: their leases are renewed until they end. */
  private held = new Map<string, JobClaim>();
  private ticker: NodeJS.Timeout | undefined;
  /** The tending of the leases under way, if any (awaited by stop: its writes come before the writer closes). */
  private tending: Promise<void> | undefined;

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
    private lease: LeaseOptions = { owner: serverId(), ms: LEASE_MS },
  ) {}

  /** The server's id on the jobs it claims. */
  get owner(): string {
    return this.lease.owner;
  }

  /**
   * After a start (or a crash): interrupted jobs go back to the queue (db/learning.ts requeueInterrupted), then the
   * queue runs; from now on the leases are tended every third of a lease.
   */
  start(): void {
    const resumed = this.store.learning.requeueInterrupted(iso(this.clock.now()));
    if (resumed) this.logger.info("learning jobs resumed after restart", { count: resumed });
    this.ticker ??= setInterval(() => this.tick(), Math.max(1, Math.floor(this.lease.ms / 3)));
    this.ticker.unref();
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

  /** Stops taking jobs and waits for those in hand, whose leases are renewed until they end. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.pending;
    clearInterval(this.ticker);
    await this.tending;
  }

  /** One tending of the leases at a time: a slow one (a writer behind a load) is not run over by the next. */
  private tick(): void {
    this.tending ??= this.tendLeases().finally(() => {
      this.tending = undefined;
    });
  }

  /**
   * Renews the leases of the jobs in hand, then puts back in the queue the jobs whose lease passed, and runs them: on
   * SQLite none pass (one server renews its own), on PostgreSQL those of a server that died.
   */
  private async tendLeases(): Promise<void> {
    try {
      await this.renewLeases();
      if (!this.stopped) await this.requeueExpired();
    } catch (e) {
      this.logger.error("learning leases failed", { error: (e as Error).message });
    }
  }

  private async renewLeases(): Promise<void> {
    if (this.held.size === 0) return;
    const claims = [...this.held].map(([id, claim]) => ({ id, claim }));
    const leaseUntil = iso(this.clock.now() + this.lease.ms);
    const lost = await this.writer.run("learningRenew", { claims, leaseUntil });
    for (const id of lost) this.logger.info("learning job's lease lost: another server claimed it", { job_id: id });
  }

  private async requeueExpired(): Promise<void> {
    const now = iso(this.clock.now());
    // A read first: the write (through the writer) is for the rare tick that finds a lease passed.
    if (this.store.learning.leasesPassed(now) === 0) return;
    const n = await this.writer.run("learningRequeueExpired", { now });
    if (n) this.logger.info("learning jobs requeued: their server's lease passed", { count: n });
    this.kick();
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      // A read on this thread first: a queue with nothing due costs no write.
      const due = this.store.learning.due(iso(this.clock.now()), this.concurrency).length;
      if (due === 0) return;
      const claims = await Promise.all(Array.from({ length: due }, () => this.claimNext()));
      await Promise.all(claims.map((job) => job && this.runOne(job)));
    }
  }

  private claimNext(): Promise<ClaimedJob | null> {
    const now = this.clock.now();
    return this.writer.run("learningClaim", {
      owner: this.lease.owner,
      now: iso(now),
      leaseUntil: iso(now + this.lease.ms),
    });
  }

  private async runOne(job: ClaimedJob): Promise<void> {
    const { id, content_id: contentId, input: rawInput } = job;
    const claim = { owner: this.lease.owner, attempt: job.attempts };
    this.held.set(id, claim);
    try {
      // With a database location the pool's thread reads the two texts itself: they never cross this thread.
      const result = this.location
        ? await this.pool.run("analyzeJob", { db: this.location, contentId, rawInput })
        : await this.pool.run("analyzeEdit", analysisInput(this.store, contentId, rawInput));
      const accountId = await this.writer.run("learningComplete", { id, claim, result, now: iso(this.clock.now()) });
      // Counted for the account: the analysis runs in the background, for no API key.
      if (accountId !== null) this.usage?.count(accountId, null, "learning_analyses");
    } catch (e) {
      await this.failed(id, claim, e);
    } finally {
      this.held.delete(id);
    }
  }

  private async failed(id: string, claim: JobClaim, e: unknown): Promise<void> {
    // Deleted with its content or workspace while it ran: nothing failed, and there is nothing to mark.
    if (!this.store.learning.job(id)) {
      this.logger.info("learning job dropped: its content was deleted", { job_id: id });
      return;
    }
    const attempts = claim.attempt;
    // An analysis stopped past its processing time would only be stopped again: it is not retried.
    const retry = attempts < MAX_ATTEMPTS && !(e instanceof TaskLimitError);
    const retryAt = retry ? iso(this.clock.now() + backoffMs(attempts)) : null;
    const error = (e as Error).message ?? String(e);
    await this.writer.run("learningFail", { id, claim, error, retryAt, now: iso(this.clock.now()) });
    this.logger.error("learning job failed", { job_id: id, attempts, retry_at: retryAt });
  }
}
