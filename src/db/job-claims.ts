/**
 * Queries on the claims of learning jobs: one server claims a job for a lease, renews it while the job runs, and ends
 * it under that claim; a job whose lease passed goes back to the queue (domain/learning/runner.ts, sql/0025).
 */
import type { SqlConnection } from "./connection.js";
import { isPostgres, sqlFor } from "./dialect.js";

/** One claim of a job: the server's owner id and the attempt it began, which no other claim of the job shares. */
export interface JobClaim {
  owner: string;
  attempt: number;
}

/** What a claim hands its runner: the job, and the claim that its renewals and end must name. */
export interface ClaimedJob {
  id: string;
  content_id: number;
  input: string;
  attempts: number;
}

/** Prepared claim statements of one connection (part of learningQueries). */
export function jobClaimQueries(db: SqlConnection) {
  // One statement picks the oldest due job and claims it, so that no other server can take it between the two. On
  // PostgreSQL a job another server's claim holds locked is skipped rather than waited for; SQLite's single writer
  // makes the statement atomic as it is.
  const claimNext = db.prepare<[{ owner: string; now: string; leaseUntil: string }], ClaimedJob>(
    `UPDATE learning_jobs SET status = 'running', attempts = attempts + 1, started_at = @now, claimed_by = @owner,
       lease_until = @leaseUntil
     WHERE status = 'queued' AND id = (SELECT id FROM learning_jobs
       WHERE status = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= @now)
       ORDER BY created_at, id LIMIT 1 ${sqlFor(db, { sqlite: "", postgres: "FOR UPDATE SKIP LOCKED" })})
     RETURNING id, content_id, input, attempts`,
  );
  // A claim is named by its owner and attempt: a server whose lease passed, the job claimed again since, changes nothing.
  const ofClaim = "id = @id AND status = 'running' AND claimed_by = @owner AND attempts = @attempt";
  const renew = db.prepare<[{ id: string; owner: string; attempt: number; leaseUntil: string }]>(
    `UPDATE learning_jobs SET lease_until = @leaseUntil WHERE ${ofClaim}`,
  );
  const succeed = db.prepare<[{ id: string; owner: string; attempt: number; result: string; now: string }]>(
    `UPDATE learning_jobs SET status = 'succeeded', result = @result, error = NULL, finished_at = @now,
       lease_until = NULL WHERE ${ofClaim}`,
  );
  const fail = db.prepare<
    [{ id: string; owner: string; attempt: number; error: string; retryAt: string | null; now: string }]
  >(
    `UPDATE learning_jobs SET status = 'failed', error = @error, next_attempt_at = @retryAt, finished_at = @now,
       lease_until = NULL WHERE ${ofClaim}`,
  );
  // A job running without a lease was claimed before leases existed (sql/0025): its lease is taken as passed.
  const expired = "status = 'running' AND (lease_until IS NULL OR lease_until <= ?)";
  const leasesPassed = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM learning_jobs WHERE ${expired}`);
  const requeueExpired = db.prepare<[string]>(
    `UPDATE learning_jobs SET status = 'queued', lease_until = NULL WHERE ${expired}`,
  );
  const requeueRunning = db.prepare(
    "UPDATE learning_jobs SET status = 'queued', lease_until = NULL WHERE status = 'running'",
  );
  return {
    /** Claims the oldest due job for `owner` until `leaseUntil`; undefined when none is due. */
    claimNext: (c: { owner: string; now: string; leaseUntil: string }) => claimNext.get(c),
    /** Extends a claim's lease; false when the claim is no longer the job's (its lease passed and another took it). */
    renew: (id: string, claim: JobClaim, leaseUntil: string) => renew.run({ id, ...claim, leaseUntil }).changes > 0,
    /** Stores a claimed job's result; false when the claim is no longer the job's. */
    succeed: (id: string, claim: JobClaim, result: unknown, now: string) =>
      succeed.run({ id, ...claim, result: JSON.stringify(result), now }).changes > 0,
    /** Marks a claimed job failed, to retry at `retryAt` (null: never); false when the claim is no longer the job's. */
    fail: (id: string, claim: JobClaim, error: string, retryAt: string | null, now: string) =>
      fail.run({ id, ...claim, error, retryAt, now }).changes > 0,
    /** Running jobs whose lease has passed: their server stopped without ending them. */
    leasesPassed: (now: string) => leasesPassed.get(now)!.n,
    /** Running jobs whose lease has passed go back to the queue, for any server to claim. */
    requeueExpired: (now: string) => requeueExpired.run(now).changes,
    /**
     * At a server's start, the jobs a stop or crash interrupted go back to the queue. A SQLite file has one server
     * (the data directory's lock): every running job is one it ran, resumed at once. On PostgreSQL other servers run
     * theirs: only jobs whose lease has passed (test/domain/learning-runner.test.ts, test/db/pg/jobs.test.ts).
     */
    requeueInterrupted: (now: string) => (isPostgres(db) ? requeueExpired.run(now) : requeueRunning.run()).changes,
  };
}
