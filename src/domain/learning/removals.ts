/**
 * What a person removed from a voice profile, with the contents whose edits had taught it: learning does not take a
 * removed trait again from those edits (a job of one of them run again, the content finalized again), but a new
 * edit may teach it again, since that is a writer choosing it anew.
 */
import { MAX_SAMPLE_IDS, MAX_TRAIT_ENTRIES } from "../generation/voice.js";

/** One removed trait and the contents behind it. */
export type Removal<K> = K & { content_ids: number[] };

/** The traits a person removed from a profile (the profile's `removed`). */
export interface Removals {
  substitutions: Removal<{ from: string; to: string }>[];
  avoided_phrases: Removal<{ phrase: string }>[];
  preferred_phrases: Removal<{ phrase: string }>[];
}

/** A profile from which nothing was removed. */
export function emptyRemovals(): Removals {
  return { substitutions: [], avoided_phrases: [], preferred_phrases: [] };
}

/** The stored removals of a profile (JSON), any missing list empty. */
export function parseRemovals(json: string | null | undefined): Removals {
  const stored = json ? (JSON.parse(json) as Partial<Removals>) : {};
  return { ...emptyRemovals(), ...stored };
}

/** Whether a substitution was removed with `contentId` among the contents that had taught it. */
export function removedSubstitution(r: Removals, s: { from: string; to: string }, contentId?: number): boolean {
  if (contentId === undefined) return false;
  return r.substitutions.some((x) => x.from === s.from && x.to === s.to && x.content_ids.includes(contentId));
}

/** Whether a phrase of a list was removed with `contentId` among the contents that had taught it. */
export function removedPhrase(list: Removal<{ phrase: string }>[], phrase: string, contentId?: number): boolean {
  if (contentId === undefined) return false;
  const key = phrase.toLowerCase();
  return list.some((x) => x.phrase.toLowerCase() === key && x.content_ids.includes(contentId));
}

/** A list of removals with one more, merged with an earlier removal of the same trait, the newest kept. */
export function withRemoval<K>(list: Removal<K>[], entry: Removal<K>, same: (a: K, b: K) => boolean): Removal<K>[] {
  const earlier = list.find((x) => same(x, entry));
  const ids = [...new Set([...(earlier?.content_ids ?? []), ...entry.content_ids])].slice(-MAX_SAMPLE_IDS);
  const rest = list.filter((x) => x !== earlier);
  return [...rest, { ...entry, content_ids: ids }].slice(-MAX_TRAIT_ENTRIES);
}
