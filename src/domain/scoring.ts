/**
 * Content scoring (DESIGN §6, §9): readability, structure, keyword use, prose (repetition, filler, sentence variety,
 * fragments: prose-score.ts) and the match with a learned voice, each 0–100, weighed into one score. A pure function
 * of its input, run on the worker pool.
 */
import { type Block, blocksToText, markdownBlocks } from "./conversions/markdown-blocks.js";
import { STOP_WORDS, tokens } from "./generation/language.js";
import type { VoiceTraits } from "./generation/voice.js";
import { countPhrases, dropSubsumed, singular, wordsOf } from "./graph-extract.js";
import { type ProseFindings, proseFindings, proseScore } from "./prose-score.js";
import { readability } from "./readability.js";
import { splitSentences } from "./text.js";

/**
 * The weight of each component; without a voice profile the others share its weight in proportion. Prose weighs
 * most: a readable, well-structured text of stock sentences is still one an editor rewrites.
 */
export const COMPONENT_WEIGHTS = { readability: 0.2, structure: 0.2, keywords: 0.15, prose: 0.25, voice: 0.2 } as const;

/** Key phrases reported, and the words per minute behind the reading time. */
const TOP_PHRASES = 10;
const READING_WORDS_PER_MINUTE = 238;

/** What scoring is given: the text (Markdown or plain), keywords to check, a voice profile's traits, its direction. */
export interface ScoringInput {
  text: string;
  keywords: string[];
  traits: VoiceTraits | null;
  /** What the text was asked to be about: its restatement counts as repetition. */
  direction?: string;
}

/** One component: its score and the weight it has in the total. */
export interface Component {
  score: number;
  weight: number;
}

/** What the text contains of a voice profile's learned habits. */
export interface VoiceFindings {
  avoided_phrases: { phrase: string; count: number }[];
  substitutions: { from: string; to: string; from_count: number; to_count: number }[];
  preferred_phrases: { phrase: string; count: number }[];
  average_sentence_words: number;
  target_sentence_words: number | null;
  flesch_reading_ease: number;
  readability_target: number | null;
}

/** The scoring response (DESIGN §9). */
export interface ScoreResult {
  score: number;
  components: {
    readability: Component;
    structure: Component;
    keywords: Component;
    prose: Component;
    voice?: Component;
  };
  readability: { flesch_reading_ease: number; flesch_kincaid_grade: number };
  stats: {
    words: number;
    sentences: number;
    paragraphs: number;
    headings: number;
    lists: number;
    list_items: number;
    characters: number;
    syllables: number;
    average_sentence_words: number;
    longest_sentence_words: number;
    average_paragraph_words: number;
    reading_time_seconds: number;
  };
  keywords: {
    top: { phrase: string; count: number; density: number }[];
    requested: { keyword: string; found: boolean; count: number; density: number }[];
  };
  voice_match: number | null;
  voice: VoiceFindings | null;
  prose: ProseFindings;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** 1 up to `good`, falling linearly to `floor` at `bad` and beyond. */
function falloff(x: number, good: number, bad: number, floor: number): number {
  if (x <= good) return 1;
  if (x >= bad) return floor;
  return 1 - ((1 - floor) * (x - good)) / (bad - good);
}

/** Per cent of the text's words that `count` occurrences of an n-word phrase cover. */
function density(count: number, n: number, words: number): number {
  return words === 0 ? 0 : round2(((count * n) / words) * 100);
}

/** Occurrences of a word sequence in the sentences, whole words, case and plurals folded. */
function occurrences(sentenceWords: string[][], phrase: string): number {
  const wanted = wordsOf(phrase).map((w) => singular(w.lower));
  if (wanted.length === 0) return 0;
  let n = 0;
  for (const ws of sentenceWords)
    for (let i = 0; i + wanted.length <= ws.length; i++) {
      let match = true;
      for (let k = 0; k < wanted.length && match; k++) if (ws[i + k] !== wanted[k]) match = false;
      if (match) n += 1;
    }
  return n;
}

/** Structure: paragraphs of readable length, sentences of readable length, headings in longer texts. */
function structureScore(s: ScoreResult["stats"]): number {
  if (s.words === 0) return 0;
  const paragraphs = s.paragraphs === 0 ? 1 : falloff(s.average_paragraph_words, 80, 200, 0.2);
  const sentences =
    (falloff(s.average_sentence_words, 20, 35, 0.3) + falloff(s.longest_sentence_words, 30, 60, 0.3)) / 2;
  // About one heading per 350 words once a text passes 300 words.
  const headings = s.words < 300 ? 1 : Math.min(1, 0.3 + (0.7 * s.headings) / (s.words / 350));
  return Math.round(100 * (0.35 * paragraphs + 0.35 * sentences + 0.3 * headings));
}

/** One requested keyword: absent 0; 100 between 0.5 % and 3 % of the words; less when rarer or stuffed. */
function keywordScore(count: number, d: number): number {
  if (count === 0) return 0;
  if (d < 0.5) return 60 + 40 * (d / 0.5);
  if (d <= 3) return 100;
  return Math.max(20, 100 - 20 * (d - 3));
}

/**
 * How well the text follows a voice profile (0–1): learned avoided phrases and the replaced side of
 * substitutions pull it down, preferred phrases and the replacing side pull it up, and so do an average
 * sentence length and a reading ease near the learned targets. Null when the profile has learned nothing.
 */
export function voiceMatch(
  plain: string,
  sentenceWords: string[][],
  traits: VoiceTraits,
  measured: { average_sentence_words: number; flesch_reading_ease: number },
): { match: number | null; findings: VoiceFindings } {
  const count = (phrase: string) => occurrences(sentenceWords, phrase);
  const avoided = traits.avoided_phrases
    .map((a) => ({ phrase: a.phrase, count: count(a.phrase) }))
    .filter((a) => a.count > 0);
  // Function words ("the" → "a") change with context, not with a writer's voice (as in generation).
  const substitutions = traits.substitutions
    .filter((s) => !STOP_WORDS.has(s.from) && s.from.trim() !== "")
    .map((s) => ({
      from: s.from,
      to: s.to,
      from_count: count(s.from),
      to_count: s.to.trim() && !STOP_WORDS.has(s.to) ? count(s.to) : 0,
    }))
    .filter((s) => s.from_count > 0 || s.to_count > 0);
  const preferred = traits.preferred_phrases
    .map((p) => ({ phrase: p.phrase, count: count(p.phrase) }))
    .filter((p) => p.count > 0);
  const bad = avoided.reduce((n, a) => n + a.count, 0) + substitutions.reduce((n, s) => n + s.from_count, 0);
  const good = preferred.reduce((n, p) => n + p.count, 0) + substitutions.reduce((n, s) => n + s.to_count, 0);

  const signals: { value: number; weight: number }[] = [];
  if (traits.avoided_phrases.length > 0 || traits.substitutions.length > 0)
    signals.push({ value: 1 / (1 + bad), weight: 0.4 });
  if (traits.preferred_phrases.length > 0 || traits.substitutions.length > 0)
    signals.push({ value: good === 0 ? 0.5 : Math.min(1, 0.6 + 0.2 * good), weight: 0.2 });
  const target = traits.target_sentence_words;
  if (target && measured.average_sentence_words > 0)
    signals.push({ value: 1 - Math.min(1, Math.abs(measured.average_sentence_words - target) / target), weight: 0.25 });
  if (traits.readability_target !== null && plain.trim() !== "")
    signals.push({
      value: 1 - Math.min(1, Math.abs(measured.flesch_reading_ease - traits.readability_target) / 50),
      weight: 0.15,
    });
  const total = signals.reduce((n, s) => n + s.weight, 0);
  const match =
    total === 0 ? null : Math.round((signals.reduce((n, s) => n + s.value * s.weight, 0) / total) * 1000) / 1000;
  return {
    match,
    findings: {
      avoided_phrases: avoided,
      substitutions,
      preferred_phrases: preferred,
      average_sentence_words: measured.average_sentence_words,
      target_sentence_words: target,
      flesch_reading_ease: measured.flesch_reading_ease,
      readability_target: traits.readability_target,
    },
  };
}

function statsOf(blocks: Block[], plain: string, sentences: string[]): ScoreResult["stats"] {
  const r = readability(plain);
  const lengths = sentences.map((s) => tokens(s).length).filter((n) => n > 0);
  const paragraphs = blocks.filter((b) => b.kind === "paragraph");
  const paragraphWords = paragraphs.reduce((n, b) => n + tokens(b.text).length, 0);
  const items = blocks.filter((b) => b.kind === "item");
  return {
    words: r.words,
    sentences: r.sentences,
    paragraphs: paragraphs.length,
    headings: blocks.filter((b) => b.kind === "heading").length,
    lists: new Set(items.map((b) => b.group)).size,
    list_items: items.length,
    characters: plain.length,
    syllables: r.syllables,
    average_sentence_words: r.average_sentence_words,
    longest_sentence_words: lengths.reduce((m, n) => Math.max(m, n), 0),
    average_paragraph_words: paragraphs.length ? round2(paragraphWords / paragraphs.length) : 0,
    reading_time_seconds: Math.round((r.words / READING_WORDS_PER_MINUTE) * 60),
  };
}

/** Scores a text (runs on the worker pool). */
export function scoreText(input: ScoringInput): ScoreResult {
  const blocks = markdownBlocks(input.text);
  const plain = blocksToText(blocks);
  const sentences = splitSentences(plain);
  const sentenceWords = sentences.map((s) => wordsOf(s).map((w) => singular(w.lower)));
  const stats = statsOf(blocks, plain, sentences);
  const r = readability(plain);

  // Key phrases of the text: one to three words; repeated ones, longer ones first among equals.
  const phrases = dropSubsumed([...countPhrases(sentences, { minWords: 1, maxWords: 3 }).values()]);
  const ranked = phrases
    .filter((p) => p.count >= 2 || stats.words < 50)
    .sort(
      (x, y) =>
        y.count * (1 + 0.5 * (y.words - 1)) - x.count * (1 + 0.5 * (x.words - 1)) ||
        y.words - x.words ||
        (x.key < y.key ? -1 : 1),
    )
    .slice(0, TOP_PHRASES)
    .map((p) => ({ phrase: p.label, count: p.count, density: density(p.count, p.words, stats.words) }));
  const requested = [...new Set(input.keywords.map((k) => k.trim()).filter((k) => k !== ""))].map((keyword) => {
    const count = occurrences(sentenceWords, keyword);
    return { keyword, found: count > 0, count, density: density(count, wordsOf(keyword).length, stats.words) };
  });

  let keywords: number;
  if (stats.words === 0) keywords = 0;
  else if (requested.length > 0)
    keywords = requested.reduce((n, k) => n + keywordScore(k.count, k.density), 0) / requested.length;
  else {
    // No keywords asked for: the text should have a focus (a repeated term) without stuffing it.
    const top = phrases.filter((p) => p.words === 1).sort((x, y) => y.count - x.count)[0];
    const d = top ? density(top.count, 1, stats.words) : 0;
    keywords = stats.words < 50 ? 75 : !top || top.count < 2 ? 50 : d <= 4 ? 100 : Math.max(20, 100 - 15 * (d - 4));
  }

  const prose = proseFindings(input.text, input.direction);
  // An empty text has no voice to match.
  const voice =
    input.traits && stats.words > 0
      ? voiceMatch(plain, sentenceWords, input.traits, {
          average_sentence_words: r.average_sentence_words,
          flesch_reading_ease: r.flesch_reading_ease,
        })
      : null;
  const scores: Record<string, number> = {
    readability: stats.words === 0 ? 0 : clamp(Math.round(r.flesch_reading_ease), 0, 100),
    structure: structureScore(stats),
    keywords: Math.round(keywords),
    prose: stats.words === 0 ? 0 : proseScore(prose),
  };
  if (voice?.match !== null && voice?.match !== undefined) scores.voice = Math.round(voice.match * 100);
  const totalWeight = Object.keys(scores).reduce(
    (n, k) => n + COMPONENT_WEIGHTS[k as keyof typeof COMPONENT_WEIGHTS],
    0,
  );
  const components = Object.fromEntries(
    Object.entries(scores).map(([k, score]) => [
      k,
      {
        score,
        weight: Math.round((COMPONENT_WEIGHTS[k as keyof typeof COMPONENT_WEIGHTS] / totalWeight) * 10_000) / 10_000,
      },
    ]),
  ) as unknown as ScoreResult["components"];
  const score = Math.round(
    Object.entries(scores).reduce(
      (n, [k, s]) => n + s * (COMPONENT_WEIGHTS[k as keyof typeof COMPONENT_WEIGHTS] / totalWeight),
      0,
    ),
  );
  return {
    score: clamp(score, 0, 100),
    components,
    readability: { flesch_reading_ease: r.flesch_reading_ease, flesch_kincaid_grade: r.flesch_kincaid_grade },
    stats,
    keywords: { top: ranked, requested },
    voice_match: voice?.match ?? null,
    voice: voice && voice.match !== null ? voice.findings : null,
    prose,
  };
}
