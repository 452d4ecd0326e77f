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
  });
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

/** Compares the two texts word by word. */
export function analyzeEdit(input: AnalysisInput): AnalysisResult {
  const parts = diffWords(input.generated, input.finalized);
  const subs = new Map<string, { from: string; to: string; count: number }>();
  const removed: string[] = [];
  const added: string[] = [];
  let wordsAdded = 0;
  let wordsRemoved = 0;
  let wordsKept = 0;
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
  const before = readability(input.generated);
  const after = readability(input.finalized);
  const changed = wordsAdded + wordsRemoved;
  const minutes = Math.max(input.edit_seconds, 1) / 60;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    words_before: tokens(input.generated).length,
    words_after: tokens(input.finalized).length,
    words_added: wordsAdded,
    words_removed: wordsRemoved,
    retained_ratio: r2(wordsKept / Math.max(tokens(input.generated).length, 1)),
    substitutions: [...subs.values()],
    removed_phrases: [...new Set(removed)],
    added_phrases: [...new Set(added)],
    sentence_length: {
      before: before.average_sentence_words,
      after: after.average_sentence_words,
      change: r2(after.average_sentence_words - before.average_sentence_words),
    },
    readability: { before, after, change: r2(after.flesch_reading_ease - before.flesch_reading_ease) },
    edit_seconds: input.edit_seconds,
    words_changed_per_minute: r2(changed / minutes),
  };
}
