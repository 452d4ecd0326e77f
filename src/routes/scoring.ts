/**
 * Scoring (DESIGN §6, beta, account-level): readability, structure, keyword use and voice match of a text
 * or of a content's current text, weighed into one 0–100 score. Nothing is stored.
 */
import * as v from "valibot";
import type { WorkspaceRow } from "../db/workspaces.js";
import { findContent } from "../domain/contents.js";
import { parseTraits, type VoiceTraits } from "../domain/generation/voice.js";
import { COMPONENT_WEIGHTS } from "../domain/scoring.js";
import type { Ctx } from "../http/context.js";
import { ApiError, workspaceNotFound } from "../http/errors.js";
import { route } from "../http/route.js";
import { exactlyOneOf, Integer, maxChars, minChars } from "../http/schemas.js";
import { AUTH_ERRORS, INPUT_ERRORS, NOT_FOUND, TASK_ERRORS } from "./common.js";

const Id = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));

const ScoreBody = v.pipe(
  v.object({
    text: v.optional(
      v.pipe(v.string(), minChars(1), maxChars(500_000), v.description("The text to score (Markdown or plain).")),
    ),
    content_id: v.optional(
      v.pipe(Id, v.description("A content whose current text (its finalized text once finalized) is scored.")),
    ),
    keywords: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.trim(), minChars(1), maxChars(100))),
        v.maxLength(50),
        v.description("Keywords or phrases to check: found, count, density (plurals and case folded)."),
      ),
      [],
    ),
    voice_profile_id: v.optional(
      v.pipe(v.string(), maxChars(100), v.description("A voice profile of the account to match against.")),
    ),
    workspace_id: v.optional(
      v.pipe(
        v.string(),
        // Empty is no workspace id (as on the workspace-aware operations): it had been 403 workspace_mismatch naming "".
        v.regex(/\S/, "Expected a workspace id (ws_…); leave workspace_id out for none."),
        maxChars(64),
        v.description("With content_id: the workspace the content must be in (checked against a key's binding)."),
      ),
    ),
  }),
  exactlyOneOf(["text", "content_id"], "Send exactly one of text or content_id."),
);
type ScoreInput = v.InferOutput<typeof ScoreBody>;

const ComponentSchema = v.object({
  score: v.pipe(v.number(), v.description("0–100.")),
  weight: v.pipe(v.number(), v.description("Its share of the total score; the weights add up to 1.")),
});

const Phrase = v.object({ phrase: v.string(), count: Integer, density: v.number() });

const ScoreResponse = v.object({
  score: v.pipe(v.number(), v.description("0–100: the weighted mean of the components.")),
  components: v.pipe(
    v.object({
      readability: ComponentSchema,
      structure: ComponentSchema,
      keywords: ComponentSchema,
      voice: v.optional(ComponentSchema),
    }),
    v.description(
      `Weights ${Object.entries(COMPONENT_WEIGHTS)
        .map(([k, w]) => `${k} ${w}`)
        .join(", ")}; without a voice profile (or one that has learned nothing) voice is left out and the ` +
        "others share its weight in proportion.",
    ),
  ),
  readability: v.object({ flesch_reading_ease: v.number(), flesch_kincaid_grade: v.number() }),
  stats: v.object({
    words: Integer,
    sentences: Integer,
    paragraphs: Integer,
    headings: Integer,
    lists: Integer,
    list_items: Integer,
    characters: Integer,
    syllables: Integer,
    average_sentence_words: v.number(),
    longest_sentence_words: Integer,
    average_paragraph_words: v.number(),
    reading_time_seconds: v.number(),
  }),
  keywords: v.object({
    top: v.pipe(
      v.array(Phrase),
      v.description("The text's own key phrases (one to three words), most prominent first; density in per cent."),
    ),
    requested: v.array(
      v.object({
        keyword: v.string(),
        found: v.boolean(),
        count: Integer,
        density: v.pipe(v.number(), v.description("Per cent of the text's words its occurrences cover.")),
      }),
    ),
  }),
  voice_match: v.pipe(
    v.nullable(v.number()),
    v.description(
      "0–1 against the voice profile: avoided phrases and replaced words lower it, preferred phrases, " +
        "replacing words and sentence length near the target raise it; null without a profile, with one " +
        "that has learned nothing yet, or for an empty text.",
    ),
  ),
  voice: v.pipe(
    v.nullable(
      v.object({
        avoided_phrases: v.array(v.object({ phrase: v.string(), count: Integer })),
        substitutions: v.array(v.object({ from: v.string(), to: v.string(), from_count: Integer, to_count: Integer })),
        preferred_phrases: v.array(v.object({ phrase: v.string(), count: Integer })),
        average_sentence_words: v.number(),
        target_sentence_words: v.nullable(v.number()),
        flesch_reading_ease: v.number(),
        readability_target: v.nullable(v.number()),
      }),
    ),
    v.description("What the text contains of the profile's learned habits; null when voice_match is null."),
  ),
});

/** The workspace a body names, if any: the account's (404 otherwise) and one a bound key may use (403 otherwise). */
function namedWorkspace(ctx: Ctx<unknown, unknown, ScoreInput>): WorkspaceRow | undefined {
  const id = ctx.body.workspace_id;
  if (id === undefined) return undefined;
  ctx.checkRecordWorkspace(id);
  const ws = ctx.services.store.workspaces.byId(id);
  if (!ws || ws.account_id !== ctx.account.id) throw workspaceNotFound(id);
  return ws;
}

export const scoringRoutes = [
  route({
    method: "POST",
    path: "/api/v1/scoring",
    operationId: "scoreContent",
    summary:
      "Score a text or a content: readability, structure, keywords and voice match (0–100 each), weighed " +
      "into one score, with readability figures, statistics and key phrases",
    tag: "Scoring",
    stability: "beta",
    access: "any",
    body: ScoreBody,
    responses: {
      200: { description: "The score.", schema: ScoreResponse },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Content, voice profile or workspace"),
      ...TASK_ERRORS,
    },
    async handler(ctx: Ctx<unknown, unknown, ScoreInput>) {
      const store = ctx.services.store;
      let text = ctx.body.text;
      if (ctx.body.content_id !== undefined) {
        const workspace = namedWorkspace(ctx);
        const content = findContent(
          store,
          { account: ctx.account, workspace, checkRecordWorkspace: ctx.checkRecordWorkspace },
          ctx.body.content_id,
        );
        text = content.finalized_content ?? content.content;
      } else namedWorkspace(ctx);
      let traits: VoiceTraits | null = null;
      if (ctx.body.voice_profile_id !== undefined) {
        // Voice profiles are account-level (spec §5): a key's binding does not apply.
        const profile = store.learning.profile(ctx.body.voice_profile_id);
        if (!profile || profile.account_id !== ctx.account.id)
          throw new ApiError("voice_profile_not_found", `No voice profile ${ctx.body.voice_profile_id}.`, {
            voice_profile_id: ctx.body.voice_profile_id,
          });
        traits = parseTraits(profile.traits);
      }
      const result = await ctx.services.pool.run("scoreText", {
        text: text ?? "",
        keywords: ctx.body.keywords,
        traits,
      });
      return { body: result };
    },
  }),
];
