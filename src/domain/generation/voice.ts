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
