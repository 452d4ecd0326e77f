/**
 * Scoring's prose component: what an editor cuts or rewrites before reading for sense. Repetition (phrases of three
 * or more words repeated, the direction restated), stock filler (filler.ts), sentences all of one length or
 * starting with one word, and fragments lower it; its findings say what was found, so a writer knows what to fix.
 */
import { fillerIn } from "./filler.js";
import {
  directionRepeats,
  isFragment,
  proseSentences,
  repeatedPhrases,
  type SentenceVariety,
  sentenceVariety,
} from "./writing-checks.js";

/** Repeated phrases and fragment examples reported; sentences checked for a verb (a parse costs ~1–3 ms each). */
const TOP_REPEATS = 10;
const FRAGMENT_EXAMPLES = 5;
const MAX_FRAGMENT_CHECKS = 40;
const MAX_FRAGMENT_WORDS = 40;

/** A direction may appear in the title and once in the text before its repetition counts against the text. */
const DIRECTION_ALLOWANCE = 2;

/** What the prose component found. */
export interface ProseFindings {
  /** Phrases of three or more words the text repeats, most repeated words first. */
  repeated_phrases: { phrase: string; count: number }[];
  /** Share (0–1) of the text's words that are repetitions of an earlier phrase. */
  repeated_share: number;
  /** How often the direction (five or more of its words in a row) is restated; null without a direction. */
  direction_repeats: number | null;
  filler: { phrase: string; count: number }[];
  /** Prose sentences without a verb, among those checked (those of up to 40 words; 40 spread over a longer text). */
  fragments: { count: number; checked: number; examples: string[] };
  variety: SentenceVariety;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** 1 up to `good`, falling linearly to `floor` at `bad` and beyond. */
function falloff(x: number, good: number, bad: number, floor: number): number {
  if (x <= good) return 1;
  if (x >= bad) return floor;
  return 1 - ((1 - floor) * (x - good)) / (bad - good);
}

/** Up to `limit` items spread evenly over the list, in order. */
function spread<T>(items: readonly T[], limit: number): T[] {
  if (items.length <= limit) return [...items];
  return Array.from({ length: limit }, (_, i) => items[Math.floor((i * items.length) / limit)]);
}

/** The repeated words' share: each repeated phrase's occurrences after its first, over the text's words. */
function repeatedShare(repeats: { phrase: string; count: number }[], words: number): number {
  const excess = repeats.reduce((n, r) => n + (r.count - 1) * r.phrase.split(" ").length, 0);
  return words === 0 ? 0 : Math.round(Math.min(1, excess / words) * 1000) / 1000;
}

/** The findings of a text (Markdown or plain) against its direction, if known. */
export function proseFindings(text: string, direction?: string): ProseFindings {
  const sentences = proseSentences(text);
  const words = sentences.reduce((n, s) => n + s.split(/\s+/).length, 0);
  const repeats = repeatedPhrases(sentences);
  // A sentence past 40 words is not short of a verb but of a full stop, and its parse costs grow with its length.
  const checked = spread(
    sentences.filter((s) => s.split(/\s+/).length <= MAX_FRAGMENT_WORDS),
    MAX_FRAGMENT_CHECKS,
  );
  const fragments = checked.filter(isFragment);
  return {
    repeated_phrases: repeats.slice(0, TOP_REPEATS),
    repeated_share: repeatedShare(repeats, words),
    direction_repeats: direction?.trim() ? directionRepeats(direction, text) : null,
    filler: fillerIn(sentences),
    fragments: { count: fragments.length, checked: checked.length, examples: fragments.slice(0, FRAGMENT_EXAMPLES) },
    variety: sentenceVariety(sentences),
  };
}

/** Sentences of one length, or starting with one word, read as a list: 1 when varied, down to 0.2. */
function varietyScore(v: SentenceVariety): number {
  if (v.sentences < 5) return 1;
  const lengths = 0.2 + 0.8 * clamp01((v.length_spread - 0.1) / 0.25);
  const openers = falloff(v.top_opener?.share ?? 0, 0.25, 0.6, 0.2);
  return (lengths + openers) / 2;
}

/** The prose component (0–100) of the findings: repetition and filler weigh most, then variety and fragments. */
export function proseScore(f: ProseFindings): number {
  const sentences = f.variety.sentences;
  if (sentences === 0) return 0;
  const restated = falloff(f.direction_repeats ?? 0, DIRECTION_ALLOWANCE, DIRECTION_ALLOWANCE + 4, 0.2);
  const repetition = falloff(f.repeated_share, 0.04, 0.25, 0) * restated;
  // One filler phrase per 15 sentences costs a fifth of this signal.
  const hits = f.filler.reduce((n, x) => n + x.count, 0);
  const filler = clamp01(1 - (0.2 * hits) / Math.max(1, sentences / 15));
  const fragments = falloff(f.fragments.checked === 0 ? 0 : f.fragments.count / f.fragments.checked, 0.02, 0.2, 0);
  return Math.round(100 * (0.35 * repetition + 0.35 * filler + 0.15 * varietyScore(f.variety) + 0.15 * fragments));
}
