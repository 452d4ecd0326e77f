/** Folds one analysis into a workspace's voice profile. */
import { tokens } from "../generation/language.js";
import {
  boundTraits,
  isVoicePhrase,
  isVoiceSubstitution,
  MAX_TRAIT_ENTRIES,
  type VoiceTraits,
} from "../generation/voice.js";
import type { AnalysisResult } from "./analyze.js";

/** Moving average that gives each new sample 1/(n+1) weight up to 1/5. */
function blend(previous: number | null, sample: number, samples: number): number {
  if (previous === null) return sample;
  const w = Math.max(1 / (samples + 1), 0.2);
  return Math.round((previous * (1 - w) + sample * w) * 100) / 100;
}

/** The new traits after one more finalized edit; `samples` is the count before this one. */
export function foldAnalysis(traits: VoiceTraits, result: AnalysisResult, samples: number): VoiceTraits {
  const subs = new Map(traits.substitutions.map((s) => [`${s.from}→${s.to}`, { ...s }]));
  for (const s of result.substitutions.filter(isVoiceSubstitution)) {
    // A newer, contrary substitution of the same word replaces the older one.
    for (const [key, old] of subs) if (old.from === s.from && old.to !== s.to) subs.delete(key);
    const key = `${s.from}→${s.to}`;
    const entry = subs.get(key) ?? { from: s.from, to: s.to, count: 0 };
    entry.count += s.count;
    subs.set(key, entry);
  }
  const tally = (list: { phrase: string; count: number }[], add: string[]) => {
    const map = new Map(list.map((x) => [x.phrase.toLowerCase(), { ...x }]));
    for (const phrase of add) {
      if (!isVoicePhrase(phrase) || tokens(phrase).length > 12) continue;
      const key = phrase.toLowerCase();
      const entry = map.get(key) ?? { phrase, count: 0 };
      entry.count++;
      map.set(key, entry);
    }
    return [...map.values()].sort((a, b) => b.count - a.count).slice(0, MAX_TRAIT_ENTRIES);
  };
  const avoided = tally(traits.avoided_phrases, result.removed_phrases);
  const preferred = tally(traits.preferred_phrases, result.added_phrases);
  // A phrase the writer has since added back is no longer avoided.
  const preferredKeys = new Set(preferred.map((p) => p.phrase.toLowerCase()));
  return boundTraits({
    substitutions: [...subs.values()].sort((a, b) => b.count - a.count),
    avoided_phrases: avoided.filter((a) => !preferredKeys.has(a.phrase.toLowerCase())),
    preferred_phrases: preferred,
    target_sentence_words: result.sentence_length.after
      ? blend(traits.target_sentence_words, result.sentence_length.after, samples)
      : traits.target_sentence_words,
    readability_target: result.readability.after.words
      ? blend(traits.readability_target, result.readability.after.flesch_reading_ease, samples)
      : traits.readability_target,
    average_edit_seconds: blend(traits.average_edit_seconds, result.edit_seconds, samples),
  });
}
