/** Learning jobs (workspace-aware) and voice profiles (account-level). */
import * as v from "valibot";
import type { LearningJobRow } from "../db/learning.js";
import { voiceProfileView } from "../domain/contents.js";
import type { Ctx } from "../http/context.js";
import { ApiError } from "../http/errors.js";
import { route } from "../http/route.js";
import { Integer, PageQuery, pageOf, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, checkRecordPlace, INPUT_ERRORS, NOT_FOUND, pageList } from "./common.js";

const JobSchema = v.object({
  id: v.string(),
  content_id: Integer,
  workspace_id: v.string(),
  status: v.picklist(["queued", "running", "succeeded", "failed"]),
  result: v.nullable(v.unknown()),
  error: v.nullable(v.string()),
  attempts: Integer,
  next_attempt_at: v.nullable(Timestamp),
  created_at: Timestamp,
  finished_at: v.nullable(Timestamp),
});

const Traits = v.object({
  substitutions: v.array(v.object({ from: v.string(), to: v.string(), count: Integer })),
  avoided_phrases: v.array(v.object({ phrase: v.string(), count: Integer })),
  preferred_phrases: v.array(v.object({ phrase: v.string(), count: Integer })),
  target_sentence_words: v.nullable(v.number()),
  readability_target: v.nullable(v.number()),
  average_edit_seconds: v.nullable(v.number()),
});

const ProfileSchema = v.object({
  id: v.string(),
  workspace_id: v.string(),
  traits: Traits,
  sample_count: Integer,
  updated_at: Timestamp,
});

function jobView(j: LearningJobRow) {
  return {
    id: j.id,
    content_id: j.content_id,
    workspace_id: j.workspace_id,
    status: j.status,
    result: j.result ? JSON.parse(j.result) : null,
    error: j.error,
    attempts: j.attempts,
    next_attempt_at: j.status === "failed" ? j.next_attempt_at : null,
    created_at: j.created_at,
    finished_at: j.finished_at,
  };
}

const IdParam = (prefix: string) =>
  v.pipe(v.string(), v.regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `must be an id starting ${prefix}_`));

export const learningRoutes = [
  route({
    method: "GET",
    path: "/api/v1/learning-jobs/{jobId}",
    operationId: "getLearningJob",
    summary: "The status and result of a learning analysis started by finalize",
    tag: "Learning",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: v.object({ jobId: IdParam("lj") }),
    responses: {
      200: { description: "The job.", schema: JobSchema },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Learning job"),
    },
    handler(ctx: Ctx<{ jobId: string }>) {
      const job = ctx.services.store.learning.job(ctx.params.jobId);
      if (!job || job.account_id !== ctx.account.id)
        throw new ApiError("learning_job_not_found", `No learning job ${ctx.params.jobId}.`, {
          learning_job_id: ctx.params.jobId,
        });
      checkRecordPlace(
        ctx,
        job.workspace_id,
        (ws) =>
          new ApiError("learning_job_not_found", `No learning job ${ctx.params.jobId} in workspace ${ws}.`, {
            learning_job_id: ctx.params.jobId,
          }),
      );
      return { body: jobView(job) };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/voice-profiles",
    operationId: "listVoiceProfiles",
    summary: "The voice profiles learned in the account's workspaces, oldest first (account-level)",
    tag: "Learning",
    stability: "beta",
    access: "any",
    query: v.object(PageQuery),
    responses: {
      200: { description: "The profiles, oldest first.", schema: pageOf(ProfileSchema) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<unknown, { limit: number; cursor?: string }>) {
      const rows = ctx.services.store.learning.profilesOf(ctx.account.id);
      const p = pageList(rows, ctx.query, (r) => `${r.created_at}|${r.id}`);
      return { body: { ...p, data: p.data.map(voiceProfileView) } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/voice-profiles/{id}",
    operationId: "getVoiceProfile",
    summary: "One voice profile (account-level)",
    tag: "Learning",
    stability: "beta",
    access: "any",
    params: v.object({ id: IdParam("vp") }),
    responses: {
      200: { description: "The profile.", schema: ProfileSchema },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Voice profile"),
    },
    handler(ctx: Ctx<{ id: string }>) {
      const p = ctx.services.store.learning.profile(ctx.params.id);
      if (!p || p.account_id !== ctx.account.id)
        throw new ApiError("voice_profile_not_found", `No voice profile ${ctx.params.id}.`, {
          voice_profile_id: ctx.params.id,
        });
      return { body: voiceProfileView(p) };
    },
  }),
];
