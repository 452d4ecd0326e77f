/** Learning analysis: what a writer changed between the generated text and the finalized one. */
import { diffArrays, diffWords } from "diff";
import { tokens } from "../generation/language.js";
import { type Readability, readability } from "../readability.js";

/** What a learning job is given. */
export interface AnalysisInput {
  generated: string;
  finalized: string;
  edit_seconds: number;
}

/** What it finds. */
export interface AnalysisResult {
  words_before: number;
  words_after: number;
  words_added: number;
  words_removed: number;
  /** Share of the generated words that survived unchanged (0–1). */
  retained_ratio: number;
  substitutions: { from: string; to: string; count: number }[];
  removed_phrases: string[];
  added_phrases: string[];
  sentence_length: { before: number; after: number; change: number };
  readability: { before: Readability; after: Readability; change: number };
  edit_seconds: number;
  words_changed_per_minute: number;
}

/**
 * The most edits a word diff may find before it gives up. The diff's work grows with the length times the number of
 * edits: a lightly edited 5,000-word text takes ~10 ms, a fully rewritten one took seconds of the background thread
 * (and anyone may finalize a rewritten text). Past this bound (about a thousand words changed: the diff counts the
 * spaces between words too) the analysis counts words instead of aligning them: no substitutions or phrases, since a
 * rewrite has none worth learning. A text that more than MAX_EDITS words of either side must change (certainEdits)
 * is counted without trying the diff.
 */
export const MAX_EDITS = 2_000;

/** How many words two texts share, ignoring order and case (a count, linear in the lengths). */
function sharedWords(a: string[], b: string[]): number {
  const counts = new Map<string, number>();
  for (const w of a) counts.set(w.toLowerCase(), (counts.get(w.toLowerCase()) ?? 0) + 1);
  let shared = 0;
  for (const w of b) {
    const n = counts.get(w.toLowerCase()) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(w.toLowerCase(), n - 1);
    }
  }
  return shared;
}

/** Words with their original case and inner punctuation ("today's", "fast-paced"). */
function surfaceWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Sorts the changed runs of one region into substitutions and removed/added phrases. */
function classify(
  removedText: string,
  addedText: string,
  subs: Map<string, { from: string; to: string; count: number }>,
  removed: string[],
  added: string[],
): void {
  // Align the two sides word by word, ignoring case, so that "and we utilize" → "we use" yields utilize → use.
  const parts = diffArrays(surfaceWords(removedText), surfaceWords(addedText), {
    comparator: (a, b) => a.toLowerCase() === b.toLowerCase(),
    maxEditLength: MAX_EDITS,
  });
  // A region rewritten past the bound: nothing to pair.
  if (!parts) return;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!p.added && !p.removed) continue;
    const next = parts[i + 1];
    if (p.removed && next?.added) {
      i++;
      if (p.value.length <= 3 && next.value.length <= 3) {
        const from = p.value.join(" ").toLowerCase();
        const to = next.value.join(" ").toLowerCase();
        const key = `${from}→${to}`;
        const entry = subs.get(key) ?? { from, to, count: 0 };
        entry.count++;
        subs.set(key, entry);
      } else {
        if (p.value.length >= 2) removed.push(p.value.join(" "));
        if (next.value.length >= 2) added.push(next.value.join(" "));
      }
      continue;
    }
    if (p.value.length >= 2) (p.removed ? removed : added).push(p.value.join(" "));
  }
}

/**
 * Words any alignment of the two texts must remove or add: those of either that the other does not hold (counted,
 * ignoring order). A lower bound of a word diff's edits, found in linear time.
 */
export function certainEdits(before: string[], after: string[]): number {
  return before.length + after.length - 2 * sharedWords(before, after);
}

/** Compares the two texts word by word. */
export function analyzeEdit(input: AnalysisInput): AnalysisResult {
  const before = tokens(input.generated);
  const after = tokens(input.finalized);
  // A rewrite known by counting to lie past MAX_EDITS is not handed to the diff, which would only give up after work
  // growing with its length times MAX_EDITS (a 5,000-word rewrite: ~0.3-0.6 s of the background thread, for nothing).
  const certain = certainEdits(before, after);
  const parts =
    certain > MAX_EDITS ? [] : (diffWords(input.generated, input.finalized, { maxEditLength: MAX_EDITS }) ?? []);
  const subs = new Map<string, { from: string; to: string; count: number }>();
  const removed: string[] = [];
  const added: string[] = [];
  let wordsAdded = 0;
  let wordsRemoved = 0;
  let wordsKept = 0;
  if (parts.length === 0 && (input.generated !== "" || input.finalized !== "")) {
    // Rewritten past MAX_EDITS: the words both texts hold count as kept, the rest as removed and added (the shared
    // words, from the count certainEdits made).
    wordsKept = (before.length + after.length - certain) / 2;
    wordsRemoved = before.length - wordsKept;
    wordsAdded = after.length - wordsKept;
  }
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const n = tokens(p.value).length;
    if (!p.added && !p.removed) {
      wordsKept += n;
      continue;
    }
    if (p.removed && parts[i + 1]?.added) {
      const next = parts[++i];
      wordsRemoved += n;
      wordsAdded += tokens(next.value).length;
      classify(p.value, next.value, subs, removed, added);
    } else if (p.removed) {
      wordsRemoved += n;
      classify(p.value, "", subs, removed, added);
    } else {
      wordsAdded += n;
      classify("", p.value, subs, removed, added);
    }
  }
  const readBefore = readability(input.generated);
  const readAfter = readability(input.finalized);
  const changed = wordsAdded + wordsRemoved;
  const minutes = Math.max(input.edit_seconds, 1) / 60;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    words_before: before.length,
    words_after: after.length,
    words_added: wordsAdded,
    words_removed: wordsRemoved,
    retained_ratio: r2(wordsKept / Math.max(before.length, 1)),
    substitutions: [...subs.values()],
    removed_phrases: [...new Set(removed)],
    added_phrases: [...new Set(added)],
    sentence_length: {
      before: readBefore.average_sentence_words,
      after: readAfter.average_sentence_words,
      change: r2(readAfter.average_sentence_words - readBefore.average_sentence_words),
    },
    readability: {
      before: readBefore,
      after: readAfter,
      change: r2(readAfter.flesch_reading_ease - readBefore.flesch_reading_ease),
    },
    edit_seconds: input.edit_seconds,
    words_changed_per_minute: r2(changed / minutes),
  };
}
