/**
 * Voice profiles are account-level (spec §5): an account reads its own, in any workspace, whatever a key's binding;
 * another account's is answered as one that does not exist. A person corrects one (removes or edits what was
 * learned, sets a target) or resets it; these writes run on the writer thread, in turn with the learning jobs'.
 */
import type { VoiceProfileRow } from "../db/learning.js";
import type { Store } from "../db/store.js";
import { ApiError, invalidInput } from "./errors.js";
import {
  emptyTraits,
  isVoiceSubstitution,
  type LearnedPhrase,
  type LearnedSubstitution,
  parseTraits,
  type VoiceTraits,
} from "./generation/voice.js";
import { parseRemovals, type Removals, withRemoval } from "./learning/removals.js";

/** A voice profile of the account by id: 404 voice_profile_not_found otherwise. */
export function findVoiceProfile(store: Pick<Store, "learning">, accountId: number, id: string): VoiceProfileRow {
  const p = store.learning.profile(id);
  if (!p || p.account_id !== accountId)
    throw new ApiError("voice_profile_not_found", `No voice profile ${id}.`, { voice_profile_id: id });
  return p;
}

/** What a person changes in a profile (PATCH /voice-profiles/{id}); every part may be left out. */
export interface ProfileCorrection {
  /** Traits to remove: learning does not take them again from the edits that taught them. */
  remove?: {
    substitutions?: { from: string; to: string }[];
    avoided_phrases?: string[];
    preferred_phrases?: string[];
  };
  /** Learned substitutions whose replacement changes: `from` now becomes `to`, with the evidence it had. */
  edit?: { substitutions?: { from: string; to: string }[] };
  /** Targets to set; null forgets one (it is learned again from the next edit). */
  set?: { target_sentence_words?: number | null; readability_target?: number | null };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const samePair = (a: { from: string; to: string }, b: { from: string; to: string }) =>
  same(a.from, b.from) && same(a.to, b.to);

/** The substitutions removed from traits and recorded, with the contents that had taught them. */
function removeSubstitutions(traits: VoiceTraits, removed: Removals, pairs: { from: string; to: string }[]): void {
  for (const pair of pairs) {
    const all = [...traits.substitutions, ...(traits.contested_substitutions ?? [])].filter((s) => samePair(s, pair));
    // One the profile does not hold changes nothing: recording it would push real removals out of the bounded list.
    if (all.length === 0) continue;
    const content_ids = all.flatMap((s) => s.content_ids ?? []);
    const entry = { from: pair.from.toLowerCase(), to: pair.to.toLowerCase(), content_ids };
    removed.substitutions = withRemoval(removed.substitutions, entry, samePair);
    traits.substitutions = traits.substitutions.filter((s) => !samePair(s, pair));
    traits.contested_substitutions = (traits.contested_substitutions ?? []).filter((s) => !samePair(s, pair));
  }
}

/** Phrases removed from one list and recorded. */
function removePhrases(list: LearnedPhrase[], removed: Removals["avoided_phrases"], phrases: string[]) {
  let kept = list;
  let record = removed;
  for (const phrase of phrases) {
    const held = kept.filter((p) => same(p.phrase, phrase));
    if (held.length === 0) continue;
    const content_ids = held.flatMap((p) => p.content_ids ?? []);
    record = withRemoval(record, { phrase, content_ids }, (a, b) => same(a.phrase, b.phrase));
    kept = kept.filter((p) => !same(p.phrase, phrase));
  }
  return { kept, record };
}

/**
 * Learned substitutions with new replacements: the old pair is recorded as removed (its edits do not teach it
 * again), the new one keeps the evidence. A `from` the profile has not learned is 400 validation_failed.
 */
function editSubstitutions(traits: VoiceTraits, removed: Removals, edits: { from: string; to: string }[]): void {
  edits.forEach((edit, i) => {
    const old = traits.substitutions.find((s) => same(s.from, edit.from));
    if (!old)
      throw invalidInput(`body.edit.substitutions[${i}].from`, `the profile has no substitution of "${edit.from}"`);
    // Checked as stored: lower-casing can lengthen a string ("İ" is two code units lower-cased).
    const to = edit.to.toLowerCase();
    if (!isVoiceSubstitution({ from: old.from, to }))
      throw invalidInput(`body.edit.substitutions[${i}].to`, "is too long for a replacement of that word");
    if (same(old.to, to)) return;
    const entry = { from: old.from, to: old.to, content_ids: old.content_ids ?? [] };
    removed.substitutions = withRemoval(removed.substitutions, entry, samePair);
    const edited: LearnedSubstitution = { ...old, to };
    traits.substitutions = traits.substitutions.map((s) => (s === old ? edited : s));
    traits.contested_substitutions = (traits.contested_substitutions ?? []).filter((s) => !samePair(s, edited));
  });
}

/** A profile's traits and removals after a correction. */
export function correctTraits(
  traits: VoiceTraits,
  removed: Removals,
  c: ProfileCorrection,
): { traits: VoiceTraits; removed: Removals } {
  const t: VoiceTraits = { ...traits };
  const r: Removals = { ...removed };
  editSubstitutions(t, r, c.edit?.substitutions ?? []);
  removeSubstitutions(t, r, c.remove?.substitutions ?? []);
  const avoided = removePhrases(t.avoided_phrases, r.avoided_phrases, c.remove?.avoided_phrases ?? []);
  const preferred = removePhrases(t.preferred_phrases, r.preferred_phrases, c.remove?.preferred_phrases ?? []);
  t.avoided_phrases = avoided.kept;
  r.avoided_phrases = avoided.record;
  t.preferred_phrases = preferred.kept;
  r.preferred_phrases = preferred.record;
  if (c.set?.target_sentence_words !== undefined) t.target_sentence_words = c.set.target_sentence_words;
  if (c.set?.readability_target !== undefined) t.readability_target = c.set.readability_target;
  return { traits: t, removed: r };
}

/** Corrects a profile (the writer's operation): the profile as it now is, or null when it is gone. */
export function correctVoiceProfile(
  store: Store,
  i: { id: string; correction: ProfileCorrection; now: string },
): VoiceProfileRow | null {
  return store.transaction(() => {
    const p = store.learning.profile(i.id);
    if (!p) return null;
    const { traits, removed } = correctTraits(parseTraits(p.traits), parseRemovals(p.removed), i.correction);
    return store.learning.saveProfile({
      id: p.id,
      accountId: p.account_id,
      workspaceId: p.workspace_id,
      traits,
      sampleCount: p.sample_count,
      removed,
      now: i.now,
    });
  });
}

/**
 * Empties a profile (the writer's operation): no traits and no samples, as before any learning; what a person
 * removed stays removed. The profile as it now is, or null when it is gone.
 */
export function resetVoiceProfile(store: Store, i: { id: string; now: string }): VoiceProfileRow | null {
  return store.transaction(() => {
    const p = store.learning.profile(i.id);
    if (!p) return null;
    return store.learning.saveProfile({
      id: p.id,
      accountId: p.account_id,
      workspaceId: p.workspace_id,
      traits: emptyTraits(),
      sampleCount: 0,
      now: i.now,
    });
  });
}
