/** The end of a learning job that succeeded: its result stored and folded into its workspace's voice profile. */
import type { JobClaim } from "../../db/job-claims.js";
import type { LearningJobRow } from "../../db/learning.js";
import type { Store } from "../../db/store.js";
import { prefixedId } from "../../runtime/ids.js";
import { emptyTraits, parseTraits } from "../generation/voice.js";
import type { AnalysisResult } from "./analyze.js";
import { foldAnalysis } from "./fold.js";
import { parseRemovals } from "./removals.js";

/**
 * Stores a job's result and folds it into its workspace's profile, in one transaction (the writer's operation);
 * the job's account, or null when the job is gone or no longer held by this claim: a server whose lease passed while
 * it ran folds nothing, so that the server that claimed the job again folds it once (test/db/pg/jobs.test.ts).
 */
export function completeJob(
  store: Store,
  input: { id: string; claim: JobClaim; result: AnalysisResult; now: string },
): number | null {
  const { id, claim, result, now } = input;
  const job = store.transaction(() => {
    const job = store.learning.job(id);
    if (!job || !heldBy(job, claim)) return;
    const profile = store.learning.profileOfWorkspace(job.workspace_id);
    const traits = profile ? parseTraits(profile.traits) : emptyTraits();
    const samples = profile?.sample_count ?? 0;
    store.learning.saveProfile({
      id: profile?.id ?? prefixedId("vp"),
      accountId: job.account_id,
      workspaceId: job.workspace_id,
      // The content is the sample: a trait a person removed is not taken again from the same content's edit.
      traits: foldAnalysis(traits, result, samples, {
        contentId: job.content_id,
        removed: parseRemovals(profile?.removed),
      }),
      sampleCount: samples + 1,
      now,
    });
    store.learning.succeed(id, claim, result, now);
    return job;
  });
  return job ? job.account_id : null;
}

/** Whether a job is running under this claim still. */
function heldBy(job: LearningJobRow, claim: JobClaim): boolean {
  return job.status === "running" && job.claimed_by === claim.owner && job.attempts === claim.attempt;
}
