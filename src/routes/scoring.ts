/**
 * Scoring (DESIGN §6, beta, account-level): readability, structure, keyword use, prose (repetition, stock filler,
 * sentence variety, fragments) and voice match of a text or of a content's current text, weighed into one 0–100
 * score. Nothing is stored.
 */
import * as v from "valibot";
import type { WorkspaceRow } from "../db/workspaces.js";
import { findContent, workingText } from "../domain/contents.js";
import { workspaceNotFound } from "../domain/errors.js";
import { parseTraits, type VoiceTraits } from "../domain/generation/voice.js";
import { COMPONENT_WEIGHTS } from "../domain/scoring.js";
import { findVoiceProfile } from "../domain/voice-profiles.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { described, exactlyOneOf, Integer, maxChars, minChars, named } from "../http/schemas.js";
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
    direction: v.optional(
      v.pipe(
        v.string(),
        maxChars(2_000),
        v.description(
          "What the text was written to (a generation's user_direction): restating it, five or more of its words " +
            "in a row, more than twice lowers the prose component.",
        ),
      ),
    ),
    voice_profile_id: v.optional(
      v.pipe(v.string(), maxChars(100), v.description("A voice profile of the account to match against.")),
    ),
    workspace_id: v.optional(
      v.pipe(
        v.string(),
        // An empty workspace_id names no workspace: a 400, as on the workspace-aware operations, not a binding check.
        v.regex(/\S/, "must be a workspace id (ws_…); leave workspace_id out for none"),
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

const Phrase = v.object({
  phrase: described(v.string(), "The phrase, in lower case."),
  count: described(Integer, "How often it occurs."),
  density: described(v.number(), "Per cent of the text's words its occurrences cover."),
});
const count = (what: string) => described(Integer, `How many ${what} the text has.`);
const habit = (what: string) => described(Integer, `How often the text has ${what}.`);

const PhraseCount = v.object({ phrase: described(v.string(), "The phrase, in lower case."), count: habit("it") });

/** The prose component's findings (prose-score.ts ProseFindings). */
const ProseFindingsSchema = v.object({
  repeated_phrases: described(
    v.array(PhraseCount),
    "Phrases of three or more words (two of them content words) the text repeats, each as long as the repetition " +
      "runs, most repeated words first; at most 10.",
  ),
  repeated_share: described(v.number(), "Share (0–1) of the text's words that repeat an earlier phrase."),
  direction_repeats: described(
    v.nullable(Integer),
    "How often the direction (five or more of its words in a row) is restated; null without a direction.",
  ),
  filler: described(v.array(PhraseCount), 'Stock filler phrases found ("in today\'s fast-paced world", …).'),
  fragments: described(
    v.object({
      count: described(Integer, "Prose sentences without a verb, among those checked."),
      checked: described(Integer, "Prose sentences checked: all, or 40 spread over a longer text."),
      examples: described(v.array(v.string()), "Up to five of them, as written."),
    }),
    "Fragments: prose sentences without a verb.",
  ),
  variety: described(
    v.object({
      sentences: count("prose sentences"),
      average_words: described(v.number(), "Mean words per prose sentence."),
      length_spread: described(
        v.number(),
        "Standard deviation of the sentences' lengths over their mean: under about 0.25, they read as one length.",
      ),
      top_opener: described(
        v.nullable(v.object({ word: described(v.string(), "The word."), share: described(v.number(), "0–1.") })),
        "The word most sentences start with and the share that do; null without sentences.",
      ),
    }),
    "How varied the sentences are.",
  ),
});

/** What POST /scoring answers (named Scoring in the description). */
const ScoreResponse = named(
  "Scoring",
  v.object({
    score: v.pipe(v.number(), v.description("0–100: the weighted mean of the components.")),
    components: v.pipe(
      v.object({
        readability: described(ComponentSchema, "The Flesch reading ease, clamped to 0–100."),
        structure: described(ComponentSchema, "Paragraph and sentence length, and headings in texts over 300 words."),
        keywords: described(
          ComponentSchema,
          "Each requested keyword best between 0.5 % and 3 % of the words; with none requested, the text's focus.",
        ),
        prose: described(
          ComponentSchema,
          "What an editor would cut: repeated phrases and a restated direction, stock filler, sentences all of one " +
            "length or starting with one word, and fragments lower it (see prose).",
        ),
        voice: v.optional(described(ComponentSchema, "The voice match, scaled to 0–100; left out without a profile.")),
      }),
      v.description(
        `Weights ${Object.entries(COMPONENT_WEIGHTS)
          .map(([k, w]) => `${k} ${w}`)
          .join(", ")}; without a voice profile (or one that has learned nothing) voice is left out and the ` +
          "others share its weight in proportion.",
      ),
    ),
    readability: described(
      v.object({
        flesch_reading_ease: described(v.number(), "Flesch reading ease: higher is easier (60–70 is plain English)."),
        flesch_kincaid_grade: described(v.number(), "Flesch–Kincaid grade: the US school grade that reads it."),
      }),
      "Readability figures of the text.",
    ),
    stats: described(
      v.object({
        words: count("words"),
        sentences: count("sentences"),
        paragraphs: count("paragraphs"),
        headings: count("headings"),
        lists: count("lists"),
        list_items: count("list items"),
        characters: count("characters"),
        syllables: count("syllables"),
        average_sentence_words: described(v.number(), "Mean words per sentence."),
        longest_sentence_words: described(Integer, "Words in the longest sentence."),
        average_paragraph_words: described(v.number(), "Mean words per paragraph."),
        reading_time_seconds: described(v.number(), "About how long it takes to read, in seconds."),
      }),
      "Counts of the text's parts.",
    ),
    keywords: described(
      v.object({
        top: v.pipe(
          v.array(Phrase),
          v.description("The text's own key phrases (one to three words), most prominent first; density in per cent."),
        ),
        requested: described(
          v.array(
            v.object({
              keyword: described(v.string(), "The keyword as sent."),
              found: described(v.boolean(), "Whether the text has it."),
              count: described(Integer, "How often it occurs (plurals and case folded)."),
              density: v.pipe(v.number(), v.description("Per cent of the text's words its occurrences cover.")),
            }),
          ),
          "The keywords sent, in the order sent.",
        ),
      }),
      "Key phrases of the text and the requested keywords.",
    ),
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
          avoided_phrases: described(
            v.array(v.object({ phrase: described(v.string(), "The phrase."), count: habit("it") })),
            "Phrases the profile avoids that the text has.",
          ),
          substitutions: described(
            v.array(
              v.object({
                from: described(v.string(), "The word the writers replace."),
                to: described(v.string(), "What they replace it with."),
                from_count: habit("the replaced word"),
                to_count: habit("the replacing word"),
              }),
            ),
            "The profile's substitutions whose words the text has.",
          ),
          preferred_phrases: described(
            v.array(v.object({ phrase: described(v.string(), "The phrase."), count: habit("it") })),
            "Phrases the profile prefers that the text has.",
          ),
          average_sentence_words: described(v.number(), "The text's mean words per sentence."),
          target_sentence_words: described(v.nullable(v.number()), "The profile's target; null if it has none."),
          flesch_reading_ease: described(v.number(), "The text's Flesch reading ease."),
          readability_target: described(v.nullable(v.number()), "The profile's target; null if it has none."),
        }),
      ),
      v.description("What the text contains of the profile's learned habits; null when voice_match is null."),
    ),
    prose: described(ProseFindingsSchema, "What the prose component found: what an editor would cut or rewrite."),
  }),
);

/** The workspace a body names, if any: the account's (404 otherwise) and one a bound key may use (403 otherwise). */
function namedWorkspace(ctx: Ctx<unknown, unknown, ScoreInput>): WorkspaceRow | undefined {
  const id = ctx.body.workspace_id;
  if (id === undefined) return undefined;
  ctx.checkRecordWorkspace(id);
  const ws = ctx.services.store.workspaces.byId(id);
  if (!ws || ws.account_id !== ctx.account.id) throw workspaceNotFound(id);
  return ws;
}

/** The scoring route: a text scored for readability, structure, keywords, prose and voice. */
export const scoringRoutes = [
  route({
    method: "POST",
    path: "/api/v1/scoring",
    operationId: "scoreContent",
    summary:
      "Score a text or a content: readability, structure, keywords, prose and voice match (0–100 each), " +
      "weighed into one score, with readability figures, statistics, key phrases and what an editor would cut",
    description:
      "Scores a text, or the current text of a content (its finalized text once finalized), before or after editing: " +
      "readability, structure, keyword use, prose (repeated phrases and a restated direction, stock filler, " +
      "sentence variety, fragments) and, with a voice profile, how well it matches the writers' learned " +
      "voice, weighed into one 0–100 score, with the figures behind it. Stores nothing and changes nothing. Send " +
      "exactly one of text or content_id; a content, voice profile or workspace that is not the caller's is 404.",
    bodyExamples: {
      text: {
        text: "# Solar on flat roofs\n\nFlat roofs suit solar panels. Ballast mounts hold them without drilling.",
        keywords: ["solar panels", "flat roof"],
      },
      content: { content_id: 1 },
    },
    tag: "Scoring",
    stability: "beta",
    access: "any",
    body: ScoreBody,
    responses: {
      200: {
        description: "The score.",
        schema: ScoreResponse,
        // The answer to the `text` example below, without a voice profile (voice left out, its weight shared).
        example: {
          score: 81,
          components: {
            readability: { score: 83, weight: 0.25 },
            structure: { score: 100, weight: 0.25 },
            keywords: { score: 20, weight: 0.1875 },
            prose: { score: 100, weight: 0.3125 },
          },
          readability: { flesch_reading_ease: 83.32, flesch_kincaid_grade: 2.88 },
          stats: {
            words: 15,
            sentences: 3,
            paragraphs: 1,
            headings: 1,
            lists: 0,
            list_items: 0,
            characters: 93,
            syllables: 21,
            average_sentence_words: 5,
            longest_sentence_words: 6,
            average_paragraph_words: 11,
            reading_time_seconds: 4,
          },
          keywords: {
            top: [
              { phrase: "flat roofs", count: 2, density: 26.67 },
              { phrase: "solar", count: 2, density: 13.33 },
            ],
            requested: [
              { keyword: "solar panels", found: true, count: 1, density: 13.33 },
              { keyword: "flat roof", found: true, count: 2, density: 26.67 },
            ],
          },
          voice_match: null,
          voice: null,
          prose: {
            repeated_phrases: [],
            repeated_share: 0,
            direction_repeats: null,
            filler: [],
            fragments: { count: 0, checked: 2, examples: [] },
            variety: {
              sentences: 2,
              average_words: 5.5,
              length_spread: 0.091,
              top_opener: { word: "ballast", share: 0.5 },
            },
          },
        },
      },
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
        text = workingText(content);
      } else namedWorkspace(ctx);
      let traits: VoiceTraits | null = null;
      if (ctx.body.voice_profile_id !== undefined) {
        // Voice profiles are account-level (spec §5): a key's binding does not apply.
        traits = parseTraits(findVoiceProfile(store, ctx.account.id, ctx.body.voice_profile_id).traits);
      }
      const result = await ctx.services.pool.run("scoreText", {
        text: text ?? "",
        keywords: ctx.body.keywords,
        traits,
        direction: ctx.body.direction,
      });
      return { body: result };
    },
  }),
];
