/** The learned voice of a workspace and how a text is made to follow it. */
import { STOP_WORDS } from "./language.js";

/** What learning analysis has folded into a workspace's voice profile. */
export interface VoiceTraits {
  /** Words or phrases the writer consistently replaces. */
  substitutions: { from: string; to: string; count: number }[];
  /** Phrases the writer deletes from generated text. */
  avoided_phrases: { phrase: string; count: number }[];
  /** Phrases the writer adds. */
  preferred_phrases: { phrase: string; count: number }[];
  /** Preferred average sentence length in words, or null before any sample. */
  target_sentence_words: number | null;
  /** Flesch reading ease of the finalized texts (moving average), or null. */
  readability_target: number | null;
  /** Average editing time per piece, in seconds. */
  average_edit_seconds: number | null;
}

/** The longest word or phrase a learned substitution may replace, or put in its place, in characters. */
export const MAX_SUBSTITUTION_CHARS = 60;

/** The longest avoided or preferred phrase a profile keeps, in characters. */
export const MAX_PHRASE_CHARS = 200;

/** The most entries a profile keeps in each list. */
export const MAX_TRAIT_ENTRIES = 50;

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

/** Traits with only the entries a profile keeps (those above, at most MAX_TRAIT_ENTRIES of each). */
export function boundTraits(traits: VoiceTraits): VoiceTraits {
  return {
    ...traits,
    substitutions: traits.substitutions.filter(isVoiceSubstitution).slice(0, MAX_TRAIT_ENTRIES),
    avoided_phrases: traits.avoided_phrases.filter((p) => isVoicePhrase(p.phrase)).slice(0, MAX_TRAIT_ENTRIES),
    preferred_phrases: traits.preferred_phrases.filter((p) => isVoicePhrase(p.phrase)).slice(0, MAX_TRAIT_ENTRIES),
  };
}

/**
 * A stored profile's traits, bounded: profiles learned before the bounds are read as if they had been learned with
 * them, so a workspace a runaway substitution broke writes normally again.
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

/** Applies learned substitutions (whole words, case kept). */
export function applySubstitutions(text: string, traits: VoiceTraits): string {
  let out = text;
  for (const s of traits.substitutions) {
    // Function words ("the" → "a") change with context, not with a writer's voice.
    if (STOP_WORDS.has(s.from)) continue;
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(s.from)}(?![\\p{L}\\p{N}])`, "giu");
    out = out.replace(re, (m) => matchCase(m, s.to));
  }
  return out;
}

/** Removes phrases the writer deletes; tidies the sentence left behind. */
export function removeAvoided(sentence: string, traits: VoiceTraits): string {
  let out = sentence;
  for (const a of traits.avoided_phrases) {
    const re = new RegExp(`${escapeRegExp(a.phrase)}[,;:]?\\s*`, "giu");
    out = out.replace(re, "");
  }
  out = out.replace(/\s{2,}/g, " ").trim();
  return out ? out.charAt(0).toUpperCase() + out.slice(1) : out;
}

/** Whether a sentence is nothing but an avoided phrase (so it is dropped whole). */
export function isOnlyAvoided(sentence: string, traits: VoiceTraits): boolean {
  return removeAvoided(sentence, traits).replace(/[^\p{L}\p{N}]/gu, "").length === 0;
}

/** Splits a sentence that is much longer than the preferred length at a natural joint. */
export function fitSentenceLength(sentence: string, traits: VoiceTraits): string[] {
  const target = traits.target_sentence_words;
  const words = sentence.split(/\s+/).length;
  if (!target || words <= target * 1.6) return [sentence];
  const m = /^(.{20,}?)(?:, and |; |, but |, which )(.{12,})$/.exec(sentence);
  if (!m) return [sentence];
  const first = `${m[1].replace(/[,;]$/, "")}.`;
  const second = m[2].charAt(0).toUpperCase() + m[2].slice(1);
  return [first, ...fitSentenceLength(second, traits)];
}
