/** Learning jobs (workspace-aware) and voice profiles (account-level). */
import * as v from "valibot";
import { ApiError } from "../domain/errors.js";
import { learningJobView, voiceProfileView } from "../domain/views/learning.js";
import { findVoiceProfile } from "../domain/voice-profiles.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { described, Integer, named, PageQuery, pageOf, RecordWorkspaceId, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, checkRecordPlace, INPUT_ERRORS, NOT_FOUND, pageList } from "./common.js";

/** The analysis of one finalization (named LearningJob in the description). */
const JobSchema = named(
  "LearningJob",
  v.object({
    id: described(v.string(), "The job's id (lj_…), as POST /finalizeContent gave it."),
    content_id: described(Integer, "The finalized content it analyses."),
    workspace_id: RecordWorkspaceId,
    status: described(
      v.picklist(["queued", "running", "succeeded", "failed"]),
      "queued, running, succeeded (result set, the profile updated) or failed (retried with backoff, five attempts).",
    ),
    result: described(
      v.nullable(v.unknown()),
      "Once succeeded, what the writer changed: words added and removed, substitutions, removed and added " +
        "phrases, sentence length, readability and editing time; null before.",
    ),
    error: described(v.nullable(v.string()), "Why the last attempt failed; null otherwise."),
    attempts: described(Integer, "Attempts made so far."),
    next_attempt_at: described(v.nullable(Timestamp), "When a failed job is tried again; null otherwise."),
    created_at: described(Timestamp, "When the finalization queued it."),
    finished_at: described(v.nullable(Timestamp), "When it succeeded or last failed; null before."),
  }),
);

const counted = (what: string) => described(Integer, `How many times this ${what} was seen.`);
const Traits = v.object({
  substitutions: described(
    v.array(
      v.object({
        from: described(v.string(), "What generation wrote."),
        to: described(v.string(), "What the writer put instead."),
        count: counted("substitution"),
      }),
    ),
    "Words the writers replace, at most 50: later generations write the replacement.",
  ),
  avoided_phrases: described(
    v.array(v.object({ phrase: described(v.string(), "The phrase."), count: counted("deletion") })),
    "Phrases the writers delete, at most 50: later generations avoid them.",
  ),
  preferred_phrases: described(
    v.array(v.object({ phrase: described(v.string(), "The phrase."), count: counted("addition") })),
    "Phrases the writers add, at most 50: later generations prefer them.",
  ),
  target_sentence_words: described(v.nullable(v.number()), "The sentence length, in words, the writers edit towards."),
  readability_target: described(v.nullable(v.number()), "The reading ease (Flesch) the writers edit towards."),
  average_edit_seconds: described(v.nullable(v.number()), "The mean editing time of the finalizations learned from."),
});

/** What a workspace's writers were seen to change, which later generations follow (named VoiceProfile). */
const ProfileSchema = named(
  "VoiceProfile",
  v.object({
    id: described(v.string(), "The profile's id (vp_…)."),
    workspace_id: RecordWorkspaceId,
    traits: described(Traits, "What was learned."),
    sample_count: described(Integer, "How many finalizations it was learned from."),
    updated_at: described(Timestamp, "When a learning job last changed it."),
  }),
);

const PROFILE_EXAMPLE = {
  id: "vp_3Jd8sLq0Xw2Rt6Yb",
  workspace_id: "ws_4fT9sK2mQ8zL1xWc",
  traits: {
    substitutions: [{ from: "technicians", to: "installers", count: 3 }],
    avoided_phrases: [{ phrase: "in today's world", count: 2 }],
    preferred_phrases: [{ phrase: "no drilling", count: 2 }],
    target_sentence_words: 14,
    readability_target: 62,
    average_edit_seconds: 210,
  },
  sample_count: 4,
  updated_at: "2026-03-02T10:02:09.000Z",
};

const IdParam = (prefix: string) =>
  v.pipe(v.string(), v.regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `must be an id starting ${prefix}_`));

/** The learning routes: learning jobs and voice profiles. */
export const learningRoutes = [
  route({
    method: "GET",
    path: "/api/v1/learning-jobs/{jobId}",
    operationId: "getLearningJob",
    summary: "The status and result of a learning analysis started by finalize",
    description:
      "Reads the learning job a finalization started: poll it after POST /finalizeContent until it has succeeded, " +
      "then read the workspace's voice profile (GET /voice-profiles) to see what was learned. A failed job is " +
      "retried with backoff (30 s, 2 min, 8 min, 32 min; five attempts). Changes nothing.",
    tag: "Learning",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: v.object({
      jobId: described(IdParam("lj"), "The learning job's id (learning_job_id of the finalization)."),
    }),
    responses: {
      200: {
        description: "The job.",
        schema: JobSchema,
        example: {
          id: "lj_7Hq2kP9xR3mN5vB1",
          content_id: 42,
          workspace_id: "ws_4fT9sK2mQ8zL1xWc",
          status: "succeeded",
          result: { words_before: 120, words_after: 104, substitutions: [{ from: "technicians", to: "installers" }] },
          error: null,
          attempts: 1,
          next_attempt_at: null,
          created_at: "2026-03-02T10:02:00.000Z",
          finished_at: "2026-03-02T10:02:09.000Z",
        },
      },
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
      return { body: learningJobView(job) };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/voice-profiles",
    operationId: "listVoiceProfiles",
    summary: "The voice profiles learned in the account's workspaces, oldest first (account-level)",
    description:
      "Lists the voice profiles of the account, one per workspace that has learned from a finalization, oldest " +
      "first. A profile holds the substitutions, avoided and preferred phrases, sentence length and reading ease " +
      "the writers edit towards; generations in that workspace follow it. Changes nothing.",
    tag: "Learning",
    stability: "beta",
    access: "any",
    query: v.object(PageQuery),
    responses: {
      200: {
        description: "The profiles, oldest first.",
        schema: pageOf(ProfileSchema),
        example: { data: [PROFILE_EXAMPLE], has_more: false, next_cursor: null },
      },
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
    description: "Reads one voice profile of the account by id. Changes nothing. One of another account is 404.",
    tag: "Learning",
    stability: "beta",
    access: "any",
    params: v.object({ id: described(IdParam("vp"), "The voice profile's id (vp_…).") }),
    responses: {
      200: { description: "The profile.", schema: ProfileSchema, example: PROFILE_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Voice profile"),
    },
    handler(ctx: Ctx<{ id: string }>) {
      return { body: voiceProfileView(findVoiceProfile(ctx.services.store, ctx.account.id, ctx.params.id)) };
    },
  }),
];
