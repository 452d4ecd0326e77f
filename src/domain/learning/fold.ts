/**
 * Folds one analysis into a workspace's voice profile, weighing each trait by its evidence: how many finalizations
 * showed it (`samples`) and how often (`count`). One sample does not outweigh many: a substitution that contradicts
 * the one applied (the same `from`, another `to`) waits among the contested ones until it has been seen in as many
 * finalizations as the applied one, and then takes its place (the newer wins a tie); a phrase both deleted and added
 * stays on the side with more samples. The same content never counts twice for one trait, and a trait a person
 * removed is not taken again from the contents that had taught it (removals.ts).
 */
import { tokens } from "../generation/language.js";
import {
  boundTraits,
  byEvidence,
  isVoicePhrase,
  isVoiceSubstitution,
  type LearnedPhrase,
  type LearnedSubstitution,
  MAX_SAMPLE_IDS,
  MAX_TRAIT_ENTRIES,
  samplesOf,
  type TraitEvidence,
  type VoiceTraits,
} from "../generation/voice.js";
import type { AnalysisResult } from "./analyze.js";
import { emptyRemovals, type Removals, removedPhrase, removedSubstitution } from "./removals.js";

/** Where an analysis came from: the content finalized, and what a person removed from the profile. */
export interface SampleOf {
  contentId?: number;
  removed?: Removals;
}

/** The longest avoided or preferred phrase learned, in words. */
export const MAX_PHRASE_WORDS = 12;

/** Moving average that gives each new sample 1/(n+1) weight up to 1/5. */
function blend(previous: number | null, sample: number, samples: number): number {
  if (previous === null) return sample;
  const w = Math.max(1 / (samples + 1), 0.2);
  return Math.round((previous * (1 - w) + sample * w) * 100) / 100;
}

/** A trait seen once more in this sample, `times` times; not again when this content already counted for it. */
function addEvidence<T extends TraitEvidence>(entry: T, times: number, contentId?: number): T {
  const ids = entry.content_ids ?? [];
  if (contentId !== undefined && ids.includes(contentId)) return entry;
  const content_ids = contentId === undefined ? ids : [...ids, contentId].slice(-MAX_SAMPLE_IDS);
  const samples = entry.count === 0 ? 1 : samplesOf(entry) + 1;
  return { ...entry, count: entry.count + times, samples, content_ids };
}

/** The applied and contested substitutions after this sample's. */
function foldSubstitutions(traits: VoiceTraits, result: AnalysisResult, sample: SampleOf) {
  const removed = sample.removed ?? emptyRemovals();
  let applied = traits.substitutions.map((s) => ({ ...s }));
  let contested = (traits.contested_substitutions ?? []).map((s) => ({ ...s }));
  for (const s of result.substitutions.filter(isVoiceSubstitution)) {
    if (removedSubstitution(removed, s, sample.contentId)) continue;
    const active = applied.find((a) => a.from === s.from);
    if (active?.to === s.to) {
      applied = applied.map((a) => (a === active ? addEvidence(a, s.count, sample.contentId) : a));
      continue;
    }
    const earlier = contested.find((c) => c.from === s.from && c.to === s.to);
    const fresh: LearnedSubstitution = { from: s.from, to: s.to, count: 0, samples: 0, content_ids: [] };
    const candidate = addEvidence(earlier ?? fresh, s.count, sample.contentId);
    contested = contested.filter((c) => c !== earlier);
    if (!active) applied.push(candidate);
    else if (samplesOf(candidate) >= samplesOf(active)) {
      applied = applied.map((a) => (a === active ? candidate : a));
      contested.push(active);
    } else contested.push(candidate);
  }
  return { applied: applied.sort(byEvidence), contested: contested.sort(byEvidence) };
}

/** A phrase list after this sample's phrases. */
function tallyPhrases(
  list: LearnedPhrase[],
  add: string[],
  removed: Removals["avoided_phrases"],
  sample: SampleOf,
): LearnedPhrase[] {
  const map = new Map(list.map((x) => [x.phrase.toLowerCase(), { ...x }]));
  for (const phrase of add) {
    if (!isVoicePhrase(phrase) || tokens(phrase).length > MAX_PHRASE_WORDS) continue;
    if (removedPhrase(removed, phrase, sample.contentId)) continue;
    const key = phrase.toLowerCase();
    const entry = map.get(key) ?? { phrase, count: 0, samples: 0, content_ids: [] };
    map.set(key, addEvidence(entry, 1, sample.contentId));
  }
  return [...map.values()].sort(byEvidence).slice(0, MAX_TRAIT_ENTRIES);
}

/**
 * The avoided and preferred lists with no phrase on both: it stays where it has more samples, and on a tie where
 * this sample put it.
 */
function settlePhrases(avoided: LearnedPhrase[], preferred: LearnedPhrase[], result: AnalysisResult) {
  const pref = new Map(preferred.map((p) => [p.phrase.toLowerCase(), p]));
  const justRemoved = new Set(result.removed_phrases.map((p) => p.toLowerCase()));
  const dropAvoided = new Set<string>();
  const dropPreferred = new Set<string>();
  for (const a of avoided) {
    const key = a.phrase.toLowerCase();
    const p = pref.get(key);
    if (!p) continue;
    const avoidedWins = samplesOf(a) > samplesOf(p) || (samplesOf(a) === samplesOf(p) && justRemoved.has(key));
    (avoidedWins ? dropPreferred : dropAvoided).add(key);
  }
  return {
    avoided: avoided.filter((a) => !dropAvoided.has(a.phrase.toLowerCase())),
    preferred: preferred.filter((p) => !dropPreferred.has(p.phrase.toLowerCase())),
  };
}

/** The new traits after one more finalized edit; `samples` is the profile's count before this one. */
export function foldAnalysis(
  traits: VoiceTraits,
  result: AnalysisResult,
  samples: number,
  sample: SampleOf = {},
): VoiceTraits {
  const removed = sample.removed ?? emptyRemovals();
  const { applied, contested } = foldSubstitutions(traits, result, sample);
  const { avoided, preferred } = settlePhrases(
    tallyPhrases(traits.avoided_phrases, result.removed_phrases, removed.avoided_phrases, sample),
    tallyPhrases(traits.preferred_phrases, result.added_phrases, removed.preferred_phrases, sample),
    result,
  );
  return boundTraits({
    substitutions: applied,
    avoided_phrases: avoided,
    preferred_phrases: preferred,
    target_sentence_words: result.sentence_length.after
      ? blend(traits.target_sentence_words, result.sentence_length.after, samples)
      : traits.target_sentence_words,
    readability_target: result.readability.after.words
      ? blend(traits.readability_target, result.readability.after.flesch_reading_ease, samples)
      : traits.readability_target,
    // An unknown editing time is no sample of it: the mean stays as it was (test/domain/learning.test.ts "unknown").
    average_edit_seconds:
      result.edit_seconds === null
        ? traits.average_edit_seconds
        : blend(traits.average_edit_seconds, result.edit_seconds, samples),
    contested_substitutions: contested,
  });
}
