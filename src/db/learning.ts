/** Queries on learning jobs and voice profiles. */
import type { SqlConnection } from "./connection.js";
import { jobClaimQueries } from "./job-claims.js";

/** Where a learning job is: queued, running, or done one way or the other. */
export type JobStatus = "queued" | "running" | "succeeded" | "failed";

/** One learning job: its input and result are JSON text; a failed one may be retried at `next_attempt_at`. */
export interface LearningJobRow {
  id: string;
  account_id: number;
  workspace_id: string;
  content_id: number;
  status: JobStatus;
  input: string;
  result: string | null;
  error: string | null;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The server running it, or that ran it last (its runner's owner id). */
  claimed_by: string | null;
  /** Until when the server running it holds it: past that, another may claim it (ISO time). */
  lease_until: string | null;
}

/** A workspace's voice profile: the traits learned from its edits (JSON text) and how many samples made them. */
export interface VoiceProfileRow {
  id: string;
  account_id: number;
  workspace_id: string;
  traits: string;
  sample_count: number;
  /** What a person removed, with the contents that had taught it (JSON text, learning/removals.ts). */
  removed: string;
  created_at: string;
  updated_at: string;
}

/** Prepared learning statements of one connection. */
export function learningQueries(db: SqlConnection) {
  const byId = db.prepare<[string], LearningJobRow>("SELECT * FROM learning_jobs WHERE id = ?");
  const insert = db.prepare(
    `INSERT INTO learning_jobs (id, account_id, workspace_id, content_id, status, input, created_at)
     VALUES (@id, @accountId, @workspaceId, @contentId, 'queued', @input, @now)`,
  );
  const due = db.prepare<[string, number], LearningJobRow>(
    `SELECT * FROM learning_jobs WHERE status = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
     ORDER BY created_at, id LIMIT ?`,
  );
  const backlog = db.prepare<[], { n: number }>(
    "SELECT count(*) AS n FROM learning_jobs WHERE status IN ('queued', 'running')",
  );
  const requeueFailed = db.prepare<[string, number]>(
    `UPDATE learning_jobs SET status = 'queued', finished_at = NULL
     WHERE status = 'failed' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ? AND attempts < ?`,
  );
  const quotaUsed = db.prepare<[number, string], { used: number }>(
    "SELECT used FROM analysis_quota_used WHERE account_id = ? AND month = ?",
  );
  // The stored count named by its table: PostgreSQL finds a bare name ambiguous beside `excluded`.
  const useQuota = db.prepare<[number, string]>(
    `INSERT INTO analysis_quota_used (account_id, month, used) VALUES (?, ?, 1)
     ON CONFLICT(account_id, month) DO UPDATE SET used = analysis_quota_used.used + 1`,
  );
  const profileByWs = db.prepare<[string], VoiceProfileRow>("SELECT * FROM voice_profiles WHERE workspace_id = ?");
  const profileById = db.prepare<[string], VoiceProfileRow>("SELECT * FROM voice_profiles WHERE id = ?");
  const profilesOf = db.prepare<[number], VoiceProfileRow>(
    "SELECT * FROM voice_profiles WHERE account_id = ? ORDER BY created_at, id",
  );
  const upsertProfile = db.prepare(
    `INSERT INTO voice_profiles (id, account_id, workspace_id, traits, sample_count, removed, created_at, updated_at)
     VALUES (@id, @accountId, @workspaceId, @traits, @sampleCount, COALESCE(@removed, '{}'), @now, @now)
     ON CONFLICT(workspace_id) DO UPDATE SET traits = excluded.traits, sample_count = excluded.sample_count,
       removed = COALESCE(@removed, voice_profiles.removed), updated_at = excluded.updated_at`,
  );
  return {
    ...jobClaimQueries(db),
    job: (id: string) => byId.get(id),
    enqueue(j: { id: string; accountId: number; workspaceId: string; contentId: number; input: unknown; now: string }) {
      insert.run({ ...j, input: JSON.stringify(j.input) });
      return byId.get(j.id)!;
    },
    due: (now: string, limit: number) => due.all(now, limit),
    /** Jobs queued or running: the learning backlog (GET /metrics). */
    backlog: () => backlog.get()!.n,
    /** Failed jobs whose backoff has passed go back to the queue while attempts remain. */
    requeueFailed: (now: string, maxAttempts: number) => requeueFailed.run(now, maxAttempts).changes,
    /** Analyses counted for an account in a month (YYYY-MM). */
    quotaUsed: (accountId: number, month: string) => quotaUsed.get(accountId, month)?.used ?? 0,
    /** Counts one analysis against an account's month. */
    useQuota(accountId: number, month: string): void {
      useQuota.run(accountId, month);
    },
    profileOfWorkspace: (workspaceId: string) => profileByWs.get(workspaceId),
    profile: (id: string) => profileById.get(id),
    profilesOf: (accountId: number) => profilesOf.all(accountId),
    /** Saves a workspace's profile (the learning job's fold, a person's correction). */
    saveProfile(p: {
      id: string;
      accountId: number;
      workspaceId: string;
      traits: unknown;
      sampleCount: number;
      /** What a person removed; left out, the stored removals stay. */
      removed?: unknown;
      now: string;
    }) {
      const removed = p.removed === undefined ? null : JSON.stringify(p.removed);
      upsertProfile.run({ ...p, traits: JSON.stringify(p.traits), removed });
      return profileByWs.get(p.workspaceId)!;
    },
  };
}
