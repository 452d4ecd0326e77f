/** Learning jobs (workspace-aware) and voice profiles (account-level). */
import * as v from "valibot";
import { iso } from "../domain/clock.js";
import { ApiError } from "../domain/errors.js";
import {
  emptyTraits,
  MAX_PHRASE_CHARS,
  MAX_SUBSTITUTION_CHARS,
  MAX_TRAIT_ENTRIES,
} from "../domain/generation/voice.js";
import { learningJobView, voiceProfileView } from "../domain/views/learning.js";
import { findVoiceProfile } from "../domain/voice-profiles.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  Integer,
  maxChars,
  minChars,
  named,
  PageQuery,
  pageOf,
  RecordWorkspaceId,
  Timestamp,
} from "../http/schemas.js";
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

const counted = (what: string) => described(Integer, `How many times this ${what} was seen, over every finalization.`);
const Samples = described(
  Integer,
  "How many finalizations showed it: the weight of its evidence (one sample does not outweigh many).",
);
const ContentIds = described(
  v.array(Integer),
  "The contents whose finalizations showed it, the newest last (at most 20): a trait removed is not learned again " +
    "from these.",
);
const Substitution = v.object({
  from: described(v.string(), "What generation wrote."),
  to: described(v.string(), "What the writer put instead."),
  count: counted("substitution"),
  samples: Samples,
  content_ids: ContentIds,
});
const Phrase = (what: string) =>
  v.object({
    phrase: described(v.string(), "The phrase: a whole sentence, or a clause that opens one."),
    count: counted(what),
    samples: Samples,
    content_ids: ContentIds,
  });
const Traits = v.object({
  substitutions: described(
    v.array(Substitution),
    "Words the writers replace inside a sentence, at most 50, one for each `from`: later generations write the " +
      "replacement.",
  ),
  avoided_phrases: described(
    v.array(Phrase("deletion")),
    "Sentences and opening clauses the writers delete, at most 50: later generations leave them out.",
  ),
  preferred_phrases: described(
    v.array(Phrase("addition")),
    "Sentences and opening clauses the writers add, at most 50: later generations prefer them.",
  ),
  target_sentence_words: described(v.nullable(v.number()), "The sentence length, in words, the writers edit towards."),
  readability_target: described(v.nullable(v.number()), "The reading ease (Flesch) the writers edit towards."),
  average_edit_seconds: described(
    v.nullable(v.number()),
    "The mean editing time, in seconds, of the finalizations that said it (edit_seconds); null when none did.",
  ),
  contested_substitutions: described(
    v.array(Substitution),
    "Substitutions that contradict an applied one (the same `from`) seen in fewer finalizations so far: not " +
      "applied until one has as many samples as the applied one.",
  ),
});

const RemovedPhrase = v.object({ phrase: described(v.string(), "The phrase removed."), content_ids: ContentIds });
const Removed = v.object({
  substitutions: described(
    v.array(
      v.object({
        from: described(v.string(), "The removed substitution's from."),
        to: described(v.string(), "Its to."),
        content_ids: ContentIds,
      }),
    ),
    "Substitutions a person removed (or replaced by an edit).",
  ),
  avoided_phrases: described(v.array(RemovedPhrase), "Avoided phrases a person removed."),
  preferred_phrases: described(v.array(RemovedPhrase), "Preferred phrases a person removed."),
});

/** What a workspace's writers were seen to change, which later generations follow (named VoiceProfile). */
const ProfileSchema = named(
  "VoiceProfile",
  v.object({
    id: described(v.string(), "The profile's id (vp_…)."),
    workspace_id: RecordWorkspaceId,
    traits: described(Traits, "What was learned, each trait with its evidence."),
    removed: described(
      Removed,
      "What a person removed with PATCH, with the contents that had taught it: learning does not take it again " +
        "from those contents' edits, though a new edit may teach it again.",
    ),
    sample_count: described(Integer, "How many finalizations it was learned from (0 after a reset)."),
    updated_at: described(Timestamp, "When a learning job or a correction last changed it."),
  }),
);

const EVIDENCE = { samples: 3, content_ids: [12, 31, 42] };
const PROFILE_EXAMPLE = {
  id: "vp_3Jd8sLq0Xw2Rt6Yb",
  workspace_id: "ws_4fT9sK2mQ8zL1xWc",
  traits: {
    substitutions: [{ from: "technicians", to: "installers", count: 4, ...EVIDENCE }],
    avoided_phrases: [{ phrase: "In today's world", count: 3, ...EVIDENCE }],
    preferred_phrases: [{ phrase: "No drilling, no leaks", count: 2, samples: 2, content_ids: [31, 42] }],
    target_sentence_words: 14,
    readability_target: 62,
    average_edit_seconds: 210,
    contested_substitutions: [{ from: "technicians", to: "fitters", count: 1, samples: 1, content_ids: [40] }],
  },
  removed: {
    substitutions: [{ from: "logs when", to: "log", content_ids: [12] }],
    avoided_phrases: [],
    preferred_phrases: [],
  },
  sample_count: 4,
  updated_at: "2026-03-02T10:02:09.000Z",
};

const SubstitutionRef = v.object({
  from: described(
    v.pipe(v.string(), minChars(1), maxChars(MAX_SUBSTITUTION_CHARS)),
    "The learned substitution's from.",
  ),
  to: described(v.pipe(v.string(), maxChars(MAX_SUBSTITUTION_CHARS)), "Its to."),
});
const PhraseRef = v.pipe(v.string(), minChars(1), maxChars(MAX_PHRASE_CHARS));
const List = <S extends v.GenericSchema>(item: S, text: string) =>
  v.optional(described(v.pipe(v.array(item), v.maxLength(MAX_TRAIT_ENTRIES, "at most 50 entries")), text));

/** A person's correction of a profile: traits to remove, substitutions to edit, targets to set. */
const CorrectionBody = v.object({
  remove: v.optional(
    described(
      v.object({
        substitutions: List(SubstitutionRef, "Substitutions to remove, by from and to as the profile shows them."),
        avoided_phrases: List(PhraseRef, "Avoided phrases to remove, as the profile shows them (case ignored)."),
        preferred_phrases: List(PhraseRef, "Preferred phrases to remove, as the profile shows them (case ignored)."),
      }),
      "Traits to remove. One the profile does not hold changes nothing; one it holds is recorded in `removed`.",
    ),
  ),
  edit: v.optional(
    described(
      v.object({
        substitutions: List(
          v.object({
            from: described(v.pipe(v.string(), minChars(1), maxChars(MAX_SUBSTITUTION_CHARS)), "A learned from."),
            to: described(
              v.pipe(v.string(), v.trim(), minChars(1), maxChars(MAX_SUBSTITUTION_CHARS)),
              "What generation is to write for it from now on: at most 60 characters, and at most 8 times as long as " +
                "`from` plus 40, lower-cased as stored (a longer one is 400).",
            ),
          }),
          "Learned substitutions to give another replacement; a from the profile has not learned is 400.",
        ),
      }),
      "Substitutions to edit: the substitution keeps its evidence, the old replacement is recorded in `removed`.",
    ),
  ),
  set: v.optional(
    described(
      v.object({
        target_sentence_words: v.optional(
          described(
            v.nullable(v.pipe(v.number(), v.minValue(3), v.maxValue(60))),
            "The sentence length to write towards, 3 to 60 words; null forgets it until the next edit teaches it.",
          ),
        ),
        readability_target: v.optional(
          described(
            v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
            "The reading ease (Flesch, 0 to 100) to score towards; null forgets it.",
          ),
        ),
      }),
      "Targets to set.",
    ),
  ),
});
type CorrectionInput = v.InferOutput<typeof CorrectionBody>;

const IdParam = (prefix: string) =>
  v.pipe(v.string(), v.regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `must be an id starting ${prefix}_`));

const ProfileParams = v.object({ id: described(IdParam("vp"), "The voice profile's id (vp_…).") });

function profileNotFound(id: string, workspaceId?: string): ApiError {
  const where = workspaceId ? ` in workspace ${workspaceId}` : "";
  return new ApiError("voice_profile_not_found", `No voice profile ${id}${where}.`, { voice_profile_id: id });
}

/**
 * A profile the caller may change: the account's (404 otherwise), in a workspace the caller's key may use (403
 * workspace_mismatch otherwise, as every bound write) and the one the request names, if it names one (404 otherwise).
 */
function profileToChange(ctx: Ctx<{ id: string }>) {
  const p = findVoiceProfile(ctx.services.store, ctx.account.id, ctx.params.id);
  checkRecordPlace(ctx, p.workspace_id, (ws) => profileNotFound(ctx.params.id, ws));
  return p;
}

const WRITE = { tag: "Learning", stability: "beta", access: "any", workspace: "optional" } as const;

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
    params: ProfileParams,
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
  route({
    ...WRITE,
    method: "PATCH",
    path: "/api/v1/voice-profiles/{id}",
    operationId: "updateVoiceProfile",
    summary: "Correct what a voice profile learned: remove or edit traits, set its targets",
    description:
      "Removes learned traits (substitutions by from and to, avoided and preferred phrases as the profile shows " +
      "them), gives a learned substitution another replacement, or sets the sentence-length and reading-ease " +
      "targets; every part may be left out. The next generation in the workspace follows the profile as it now " +
      "is. A removed trait is recorded in `removed` with the contents that had taught it, and learning does not " +
      "take it again from those contents' edits; a new edit may teach it again. Removing what the profile does " +
      "not hold changes nothing; editing a substitution it has not learned is 400. A key bound to another " +
      "workspace gets 403 workspace_mismatch.",
    bodyExamples: {
      remove: {
        remove: { substitutions: [{ from: "logs when", to: "log" }], avoided_phrases: ["Consider adopt"] },
      },
      edit: { edit: { substitutions: [{ from: "technicians", to: "installers" }] } },
      set: { set: { target_sentence_words: 12, readability_target: null } },
    },
    params: ProfileParams,
    body: CorrectionBody,
    responses: {
      200: { description: "The profile as it now is.", schema: ProfileSchema, example: PROFILE_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Voice profile"),
    },
    async handler(ctx: Ctx<{ id: string }, unknown, CorrectionInput>) {
      const p = profileToChange(ctx);
      const row = await ctx.services.writer.run("voiceProfileCorrect", {
        id: p.id,
        correction: ctx.body,
        now: iso(ctx.services.clock.now()),
      });
      if (!row) throw profileNotFound(p.id);
      return { body: voiceProfileView(row) };
    },
  }),
  route({
    ...WRITE,
    method: "POST",
    path: "/api/v1/voice-profiles/{id}/reset",
    operationId: "resetVoiceProfile",
    summary: "Empty a voice profile: it learns again from the next finalization",
    description:
      "Forgets everything the profile learned (its traits, targets and sample count), so that generation in the " +
      "workspace writes as with no profile until the next finalization teaches it again. The profile keeps its " +
      "id, and what a person removed stays recorded. Takes no body. A key bound to another workspace gets 403 " +
      "workspace_mismatch.",
    params: ProfileParams,
    responses: {
      200: {
        description: "The emptied profile.",
        schema: ProfileSchema,
        example: {
          ...PROFILE_EXAMPLE,
          traits: emptyTraits(),
          sample_count: 0,
        },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Voice profile"),
    },
    async handler(ctx: Ctx<{ id: string }>) {
      const p = profileToChange(ctx);
      const row = await ctx.services.writer.run("voiceProfileReset", { id: p.id, now: iso(ctx.services.clock.now()) });
      if (!row) throw profileNotFound(p.id);
      return { body: voiceProfileView(row) };
    },
  }),
];
