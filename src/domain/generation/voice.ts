/** The learned voice of a workspace and how a text is made to follow it without breaking its sentences. */

import { splitSentences } from "../text.js";
import { DANGLING_WORDS, STOP_WORDS, tokens } from "./language.js";
import { splitToLimit } from "./sentence-split.js";

/**
 * What stands behind one learned trait: how often it was seen, in how many finalizations, and which contents those
 * were (so that a trait a person removed is not learned again from the same old edit, see learning/fold.ts).
 */
export interface TraitEvidence {
  /** Times seen, over every finalization. */
  count: number;
  /** How many finalizations showed it; a trait stored without it counts as one. */
  samples?: number;
  /** The contents whose finalizations showed it, the newest last, at most MAX_SAMPLE_IDS. */
  content_ids?: number[];
}

/** A learned substitution: generation writes `to` where it would have written `from`. */
export type LearnedSubstitution = { from: string; to: string } & TraitEvidence;

/** A learned phrase: a whole sentence or an opening clause the writers delete or add. */
export type LearnedPhrase = { phrase: string } & TraitEvidence;

/** What learning analysis has folded into a workspace's voice profile. */
export interface VoiceTraits {
  /** Words or phrases the writer consistently replaces, at most one entry for each `from` (the best evidenced). */
  substitutions: LearnedSubstitution[];
  /** Phrases the writer deletes from generated text. */
  avoided_phrases: LearnedPhrase[];
  /** Phrases the writer adds. */
  preferred_phrases: LearnedPhrase[];
  /** Preferred average sentence length in words, or null before any sample. */
  target_sentence_words: number | null;
  /** Flesch reading ease of the finalized texts (moving average), or null. */
  readability_target: number | null;
  /** Average editing time per piece, in seconds. */
  average_edit_seconds: number | null;
  /**
   * Substitutions of a `from` that contradict the one applied and have less evidence so far: not applied, kept so
   * that evidence can build up until one of them has as many samples as the applied one and takes its place.
   */
  contested_substitutions?: LearnedSubstitution[];
}

/** The words of a request in STOP_WORDS ("write", "post", "use" …): a writer's voice may well replace them. */
const REQUEST_WORDS = new Set(
  "write writing create draft make produce generate post article piece blog content short long give need want using use".split(
    " ",
  ),
);

/** English function words ("the", "when", "of"): they change with a sentence's grammar, not with a writer's voice. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([...STOP_WORDS].filter((w) => !REQUEST_WORDS.has(w)));

/** The longest word or phrase a learned substitution may replace, or put in its place, in characters. */
export const MAX_SUBSTITUTION_CHARS = 60;

/** The longest avoided or preferred phrase a profile keeps, in characters. */
export const MAX_PHRASE_CHARS = 200;

/** The most entries a profile keeps in each list. */
export const MAX_TRAIT_ENTRIES = 50;

/** The most content ids a trait keeps as its evidence (the newest). */
export const MAX_SAMPLE_IDS = 20;

/**
 * Whether a substitution is one a writer's voice makes: a short word or phrase for another not many times longer.
 * Learning takes a pair of up to three words from an edit, whatever the words' length: one finalization that replaced
 * "compost" with a 400,000-character word made every later generation of its workspace write that word for each
 * "compost" (hundreds of megabytes a request, then V8's longest string: a 500), and no later edit could unlearn it.
 */
export function isVoiceSubstitution(s: { from: string; to: string }): boolean {
  return (
    s.from.length > 0 &&
    s.from.length <= MAX_SUBSTITUTION_CHARS &&
    s.to.length <= Math.min(MAX_SUBSTITUTION_CHARS, 8 * s.from.length + 40)
  );
}

/** Whether an avoided or preferred phrase is one a profile keeps. */
export function isVoicePhrase(phrase: string): boolean {
  return phrase.length > 0 && phrase.length <= MAX_PHRASE_CHARS;
}

/** How many finalizations showed a trait (one for a trait stored before evidence was kept). */
export function samplesOf(e: TraitEvidence): number {
  return e.samples ?? 1;
}

/** A trait's evidence in full: samples and content ids filled in and bounded. */
function withEvidence<T extends TraitEvidence>(t: T): T {
  const ids = Array.isArray(t.content_ids) ? t.content_ids.filter(Number.isSafeInteger) : [];
  return { ...t, samples: samplesOf(t), content_ids: ids.slice(-MAX_SAMPLE_IDS) };
}

/** Orders entries by evidence: more finalizations first, then more occurrences (a stable sort keeps ties in order). */
export function byEvidence<T extends TraitEvidence>(a: T, b: T): number {
  return samplesOf(b) - samplesOf(a) || b.count - a.count;
}

/** One substitution for each `from`, the first of each in the list's order. */
function onePerFrom(list: LearnedSubstitution[]): LearnedSubstitution[] {
  const seen = new Set<string>();
  return list.filter((s) => !seen.has(s.from.toLowerCase()) && seen.add(s.from.toLowerCase()));
}

/** Traits with only the entries a profile keeps (those above, at most MAX_TRAIT_ENTRIES of each), evidence filled. */
export function boundTraits(traits: VoiceTraits): VoiceTraits {
  const phrases = (list: LearnedPhrase[]) =>
    list
      .filter((p) => isVoicePhrase(p.phrase))
      .slice(0, MAX_TRAIT_ENTRIES)
      .map(withEvidence);
  const substitutions = onePerFrom(traits.substitutions.filter(isVoiceSubstitution))
    .slice(0, MAX_TRAIT_ENTRIES)
    .map(withEvidence);
  const applied = new Set(substitutions.map((s) => `${s.from.toLowerCase()}→${s.to.toLowerCase()}`));
  return {
    ...traits,
    substitutions,
    avoided_phrases: phrases(traits.avoided_phrases),
    preferred_phrases: phrases(traits.preferred_phrases),
    contested_substitutions: (traits.contested_substitutions ?? [])
      .filter((s) => isVoiceSubstitution(s) && !applied.has(`${s.from.toLowerCase()}→${s.to.toLowerCase()}`))
      .slice(0, MAX_TRAIT_ENTRIES)
      .map(withEvidence),
  };
}

/**
 * A stored profile's traits, bounded and with their evidence: an entry past the bounds is left out and one without
 * `samples` counts as one sample, whenever it was stored, so a workspace a runaway substitution broke writes
 * normally again (test/domain/voice-bounds.test.ts).
 */
export function parseTraits(json: string): VoiceTraits {
  return boundTraits({ ...emptyTraits(), ...(JSON.parse(json) as Partial<VoiceTraits>) });
}

/** A profile before any learning. */
export function emptyTraits(): VoiceTraits {
  return {
    substitutions: [],
    avoided_phrases: [],
    preferred_phrases: [],
    target_sentence_words: null,
    readability_target: null,
    average_edit_seconds: null,
    contested_substitutions: [],
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replacement that keeps the case shape of what it replaces (Utilize → Use, UTILIZE → USE). */
function matchCase(found: string, replacement: string): string {
  if (found === found.toUpperCase() && found.length > 1) return replacement.toUpperCase();
  if (found[0] === found[0].toUpperCase()) return replacement.charAt(0).toUpperCase() + replacement.slice(1);
  return replacement;
}

/** How far back the word before a match is looked for: a word and its blanks, not the whole text before it. */
const WORD_WINDOW = 200;

/**
 * The word just before `end` in a text, lower-cased, or "". Read from a window before `end`: an end-anchored
 * pattern over the whole text before each match made one substitution quadratic in a line's length (a 100,000-
 * character line of a model's answer took 6 s; test/domain/voice-bounds.test.ts).
 */
function wordBefore(text: string, end: number): string {
  const window = text.slice(Math.max(0, end - WORD_WINDOW), end);
  return /([\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*)[ \t]*$/u.exec(window)?.[1].toLowerCase() ?? "";
}

/** The word just after `start` in a text, lower-cased, or "". */
function wordAfter(text: string, start: number): string {
  return /^[ \t]*([\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*)/u.exec(text.slice(start))?.[1].toLowerCase() ?? "";
}

/**
 * Whether putting `to` at text[start, end) would break the sentence: a word doubled with its neighbour ("the the"),
 * or a sentence left ending on a function word ("… the log when.").
 */
function breaksSentence(text: string, start: number, end: number, to: string[]): boolean {
  if (wordBefore(text, start) === to[0] || wordAfter(text, end) === to[to.length - 1]) return true;
  return DANGLING_WORDS.has(to[to.length - 1]) && /^["”’')\]]*[.!?]/.test(text.slice(end));
}

/** "a" or "an" as the word after it sounds (by its first letter), in the case it was written. */
function article(written: string, next: string): string {
  const an = /^[aeiou]/i.test(next) && !/^(?:uni|use|eu|one)/i.test(next);
  const word = an ? "an" : "a";
  return written[0] === written[0].toUpperCase() ? word.charAt(0).toUpperCase() + word.slice(1) : word;
}

/** One substitution applied to a text: whole words, case kept, the article before it agreed, never breaking it. */
function substitute(text: string, s: LearnedSubstitution, re: RegExp): string {
  const to = tokens(s.to);
  let out = "";
  let last = 0;
  for (const m of text.matchAll(re)) {
    const start = m.index ?? 0;
    const wordStart = start + (m[1] ? m[1].length + m[2].length : 0);
    const end = start + m[0].length;
    if (breaksSentence(text, wordStart, end, to)) continue;
    const replacement = matchCase(m[3], s.to);
    out += text.slice(last, start) + (m[1] ? article(m[1], replacement) + m[2] : "") + replacement;
    last = end;
  }
  return out + text.slice(last);
}

/**
 * Applies learned substitutions (whole words, case kept): one for each `from`, only those isApplicable allows
 * ("the" → "a" changes with context, not with a writer's voice), and never where it would double a word or leave the
 * sentence ending on a function word.
 */
export function applySubstitutions(text: string, traits: VoiceTraits): string {
  let out = text;
  for (const [s, re] of compiled(traits).substitutions) out = substitute(out, s, re);
  return out;
}

/**
 * What applying a profile matches with, built once for a traits object: a draft applies it to each of its sentences,
 * and building 50 expressions per sentence cost more than the rest of a generation. Traits are not changed once
 * applied (each fold and correction makes a new object).
 */
interface Compiled {
  substitutions: [LearnedSubstitution, RegExp][];
  whole: Set<string>;
  clauses: RegExp[];
}
const COMPILED = new WeakMap<VoiceTraits, Compiled>();

/**
 * When a list holds a trait seen in MATURE_SAMPLES finalizations or more, the profile has learned from many edits, and
 * an entry of that list seen in a single one is not applied yet (it is shown, and applies once another edit shows it):
 * one edit does not outweigh many.
 */
export const MATURE_SAMPLES = 5;

/** The entries of a list with the evidence to be applied (see MATURE_SAMPLES). */
export function evidenced<T extends TraitEvidence>(list: T[]): T[] {
  const mature = list.some((e) => samplesOf(e) >= MATURE_SAMPLES);
  return mature ? list.filter((e) => samplesOf(e) >= 2) : list;
}

function compiled(traits: VoiceTraits): Compiled {
  let c = COMPILED.get(traits);
  if (c) return c;
  const avoided = evidenced(traits.avoided_phrases);
  const substitutions = evidenced(onePerFrom(traits.substitutions))
    .filter(isApplicable)
    .map((s): [LearnedSubstitution, RegExp] => [
      s,
      new RegExp(
        `(?<![\\p{L}\\p{N}'’-])(?:(an?)(\\s+))?(${escapeRegExp(s.from)})(?![\\p{L}\\p{N}]|['’-][\\p{L}\\p{N}])`,
        "giu",
      ),
    ]);
  const clauses = avoided
    .map((a) => a.phrase.trim().replace(/[\s,;:.!?]+$/u, ""))
    .filter((clause) => tokens(clause).length >= 2)
    .map((clause) => new RegExp(`^["“]?${escapeRegExp(clause)}\\s*,\\s+(.+)$`, "iu"));
  c = { substitutions, whole: new Set(avoided.map((a) => wordsOf(a.phrase))), clauses };
  COMPILED.set(traits, c);
  return c;
}

/**
 * Whether a substitution can be applied without changing a sentence's grammar: neither side only function words, and
 * a function word at an edge of one side only if at the same edge of the other ("logs when" → "log", learned before
 * learning kept to one sentence, would cut a clause's conjunction out of every later draft).
 */
export function isApplicable(s: { from: string; to: string }): boolean {
  const from = tokens(s.from);
  const to = tokens(s.to);
  if (from.length === 0 || to.length === 0) return false;
  if (from.every((w) => FUNCTION_WORDS.has(w)) || to.every((w) => FUNCTION_WORDS.has(w))) return false;
  const edges = (xs: string[]) => `${FUNCTION_WORDS.has(xs[0])}${FUNCTION_WORDS.has(xs[xs.length - 1])}`;
  return edges(from) === edges(to);
}

/** A phrase as a run of lower-case words, for comparing a sentence with it whatever its case and punctuation. */
function wordsOf(text: string): string {
  return tokens(text).join(" ");
}

/** The opening of a line kept as it is: a heading's hashes, a list number or bullet, a quote mark. */
const LINE_MARKER = /^(\s*(?:#{1,6}\s+|\d{1,3}[.)]\s+|[-*•>]\s+)?)([\s\S]*)$/;

/**
 * A sentence without an avoided opening clause ("In today's fast-paced world, teams …" → "Teams …"), or as it was when
 * none opens it or what would be left is not a sentence of at least three words.
 */
function withoutOpeningClause(sentence: string, clauses: RegExp[]): string {
  for (const clause of clauses) {
    const m = clause.exec(sentence);
    if (m && tokens(m[1]).length >= 3) return m[1].charAt(0).toUpperCase() + m[1].slice(1);
  }
  return sentence;
}

/**
 * Removes what the writers delete, only where removing it leaves whole sentences: a sentence that is an avoided
 * phrase goes whole, an avoided phrase opening a sentence before a comma goes with its comma (the rest capitalised),
 * and a phrase anywhere else stays, since cutting a run out of a clause leaves a broken one. A line's heading or list
 * marker is kept; a line of nothing but avoided sentences becomes "".
 */
export function removeAvoided(sentence: string, traits: VoiceTraits): string {
  if (traits.avoided_phrases.length === 0) return sentence;
  const { whole, clauses } = compiled(traits);
  const [, marker, body] = LINE_MARKER.exec(sentence) ?? ["", "", sentence];
  const sentences = splitSentences(body);
  const kept = sentences.filter((s) => !whole.has(wordsOf(s))).map((s) => withoutOpeningClause(s, clauses));
  if (kept.length === sentences.length && kept.every((s, i) => s === sentences[i])) return sentence;
  return kept.length ? marker + kept.join(" ") : "";
}

/** Whether a sentence is nothing but avoided phrases (so it is dropped whole). */
export function isOnlyAvoided(sentence: string, traits: VoiceTraits): boolean {
  return removeAvoided(sentence, traits).replace(/[^\p{L}\p{N}]/gu, "").length === 0;
}

/**
 * Splits a sentence that is much longer than the preferred length (over 1.6 times it) at natural joints, with the
 * splitter a voice memory's length rule uses (sentence-split.ts), so that every piece stays a sentence with a verb:
 * "The median first response time for email, which carried 64 per cent of all requests, was 9 hours" is not cut
 * at its ", which" (test/domain/learning/trait-safety.test.ts).
 */
export function fitSentenceLength(sentence: string, traits: VoiceTraits): string[] {
  const target = traits.target_sentence_words;
  if (!target) return [sentence];
  return splitToLimit(sentence, Math.ceil(target * 1.6)).sentences;
}
