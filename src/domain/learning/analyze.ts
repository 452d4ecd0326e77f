/** Learning analysis: what a writer changed between the generated text and the finalized one. */
import { diffWords } from "diff";
import { tokens } from "../generation/language.js";
import { type Readability, readability } from "../readability.js";
import { alignSentences } from "./align.js";
import { learnEdits } from "./edits.js";

/** What a learning job is given: the two texts, and the editing time in seconds (null: the caller did not say). */
export interface AnalysisInput {
  generated: string;
  finalized: string;
  edit_seconds: number | null;
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
  /** null when the editing time is unknown: no speed is made up from it (test/domain/learning.test.ts "unknown"). */
  edit_seconds: number | null;
  words_changed_per_minute: number | null;
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

/**
 * The share of the generated words an edit must keep for the sentences it deleted and added to be learned as avoided
 * and preferred phrases: a writer who rewrote most of a text did not choose its sentences one by one.
 */
export const MIN_RETAINED_FOR_PHRASES = 0.5;

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
    if (p.removed) wordsRemoved += n;
    else wordsAdded += n;
  }
  const retained = wordsKept / Math.max(before.length, 1);
  // A rewrite past MAX_EDITS teaches nothing; one that kept less than half the words teaches no whole sentences.
  const learned =
    parts.length === 0
      ? { substitutions: [], removed_phrases: [], added_phrases: [] }
      : learnEdits(alignSentences(input.generated, input.finalized), retained >= MIN_RETAINED_FOR_PHRASES);
  const readBefore = readability(input.generated);
  const readAfter = readability(input.finalized);
  const changed = wordsAdded + wordsRemoved;
  const minutes = input.edit_seconds === null ? null : Math.max(input.edit_seconds, 1) / 60;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    words_before: before.length,
    words_after: after.length,
    words_added: wordsAdded,
    words_removed: wordsRemoved,
    retained_ratio: r2(retained),
    ...learned,
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
    words_changed_per_minute: minutes === null ? null : r2(changed / minutes),
  };
}
