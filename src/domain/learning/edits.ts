/**
 * What an edit teaches, from its sentence alignment (align.ts): substitutions from a replacement of a few words inside
 * one sentence whose words around it stayed, opening clauses deleted or added before a comma, and sentences deleted or
 * added whole. Nothing else: a run cut out of the middle of a clause, a deletion beside an unrelated insertion, a
 * change across sentences or a rewritten sentence teaches nothing, since applying it to a later draft would break it.
 */
import { diffArrays } from "diff";
import { stem } from "../generation/language.js";
import { isApplicable } from "../generation/voice.js";
import type { Alignment, Unit, Word } from "./align.js";
import { wordClasses } from "./word-class.js";

/** What one analysis learned: substitutions with their occurrences, and phrases deleted and added. */
export interface LearnedEdits {
  substitutions: { from: string; to: string; count: number }[];
  removed_phrases: string[];
  added_phrases: string[];
}

/** The most words a substitution replaces, or puts in place. */
export const MAX_SUBSTITUTION_WORDS = 3;

/** The most words an opening clause may have to be learned as one. */
export const MAX_CLAUSE_WORDS = 8;

/** The most edits a paired group's word diff looks for before it gives up (analyze.ts MAX_EDITS, for one pair). */
export const MAX_PAIR_EDITS = 2_000;

/**
 * The most replacements of one analysis whose parts of speech are compared (two parses of a few words each, about
 * a millisecond): past them an edit is a rewrite, and its further replacements are not learned.
 */
export const MAX_TAGGED_REPLACEMENTS = 200;

/** A word of a paired group: where it sits and whether a sentence starts at it or ends after it. */
interface Placed extends Word {
  unit: Unit;
  index: number;
  opens: boolean;
  closes: boolean;
}

/** One run of changes between unchanged words, with the words it removed and added and their places. */
interface Hunk {
  removed: Placed[];
  added: Placed[];
  /** The unchanged words just before and after, on the finalized side (those on the generated side are the same). */
  left: Placed[];
  right: Placed[];
}

function placed(units: Unit[]): Placed[] {
  return units.flatMap((unit) =>
    unit.words.map((w, i) => ({ ...w, unit, index: i, opens: i === 0, closes: i === unit.words.length - 1 })),
  );
}

/** The runs of changes of a paired group, each with the unchanged runs around it. */
function hunksOf(before: Placed[], after: Placed[]): { hunks: Hunk[]; kept: number } {
  // A pair rewritten past MAX_EDITS (one long line of a text) has no replacements worth learning.
  const parts =
    diffArrays(before, after, { comparator: (x, y) => x.lower === y.lower, maxEditLength: MAX_PAIR_EDITS }) ?? [];
  const hunks: Hunk[] = [];
  let a = 0;
  let b = 0;
  let kept = 0;
  let current: Hunk | null = null;
  let lastEqual: Placed[] = [];
  for (const part of parts) {
    const n = part.value.length;
    if (part.removed || part.added) {
      current ??= { removed: [], added: [], left: lastEqual, right: [] };
      if (part.removed) {
        current.removed.push(...before.slice(a, a + n));
        a += n;
      } else {
        current.added.push(...after.slice(b, b + n));
        b += n;
      }
      continue;
    }
    lastEqual = after.slice(b, b + n);
    kept += n;
    a += n;
    b += n;
    if (current) {
      current.right = lastEqual;
      hunks.push(current);
      current = null;
    }
  }
  if (current) hunks.push(current);
  return { hunks, kept };
}

/**
 * Whether the words on one side of a change stayed: two unchanged words, or fewer up to the start or end of a
 * sentence (of either text).
 */
function steadyLeft(h: Hunk): boolean {
  if (h.removed[0]?.opens && h.added[0]?.opens) return true;
  const run = h.left.slice(-2);
  return run.length === 2 || (run.length > 0 && run[0].opens);
}

/** The same on the other side of a change. */
function steadyRight(h: Hunk): boolean {
  if (h.removed.at(-1)?.closes && h.added.at(-1)?.closes) return true;
  const run = h.right.slice(0, 2);
  return run.length === 2 || (run.length > 0 && run[run.length - 1].closes);
}

/** Whether two words are one word in another form ("logs" and "log", "adopt" and "adopting"): grammar, not voice. */
function sameWord(a: string, b: string): boolean {
  if (stem(a) === stem(b)) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long.startsWith(short.replace(/e$/, "")) && long.length - short.length <= 3;
}

/** Whether a replacement is one a writer's voice makes, not a grammar fix, a function word or a rewrite. */
function isSubstitution(from: string[], to: string[]): boolean {
  if (from.length === 0 || to.length === 0) return false;
  if (from.length > MAX_SUBSTITUTION_WORDS || to.length > MAX_SUBSTITUTION_WORDS) return false;
  // Function words alone, or at the edge of one side only, are the change of a clause ("logs when" → "log").
  if (!isApplicable({ from: from.join(" "), to: to.join(" ") })) return false;
  if (from.length === to.length && from.every((w, i) => sameWord(w, to[i]))) return false;
  return true;
}

/** The words of a sentence around a run (four on each side) to tag it in: the run's last word is the head. */
function headClass(run: Placed[]): string {
  const { unit } = run[0];
  const last = run[run.length - 1];
  const lo = Math.max(0, run[0].index - 4);
  const hi = Math.min(unit.words.length - 1, last.index + 4);
  const classes = wordClasses(unit.text.slice(unit.words[lo].start, unit.words[hi].end));
  return classes[last.index - lo] ?? "other";
}

/**
 * Whether a replacement keeps the grammar of its sentence: both runs in one sentence each, their last words of one
 * part of speech ("utilize" → "use", verb for verb; not "logs when" → "log").
 */
function keepsGrammar(h: Hunk): boolean {
  if (h.removed.some((w) => w.unit !== h.removed[0].unit) || h.added.some((w) => w.unit !== h.added[0].unit))
    return false;
  return headClass(h.removed) === headClass(h.added);
}

/** The text a run of words spans in its sentence (its words with what is between them). */
function spanText(words: Placed[]): string {
  return words[0].unit.text.slice(words[0].start, words[words.length - 1].end);
}

/** An opening clause deleted or added: the run opens a sentence, ends before a comma, and the sentence goes on. */
function openingClause(run: Placed[]): string | null {
  if (run.length < 2 || run.length > MAX_CLAUSE_WORDS) return null;
  const last = run[run.length - 1];
  if (!run[0].opens || !last.commaAfter || last.closes || run.some((w) => w.unit !== run[0].unit)) return null;
  return spanText(run);
}

/** What one paired group teaches, added to the lists. */
function learnFromPair(
  pair: Alignment["pairs"][number],
  out: LearnedEdits,
  subs: Map<string, number>,
  budget: { tags: number },
): void {
  const before = placed(pair.before);
  const { hunks, kept } = hunksOf(before, placed(pair.after));
  let clauseWords = 0;
  const replacements: Hunk[] = [];
  for (const h of hunks) {
    const removedClause = h.added.length === 0 ? openingClause(h.removed) : null;
    const addedClause = h.removed.length === 0 ? openingClause(h.added) : null;
    if (removedClause) out.removed_phrases.push(removedClause);
    if (addedClause) out.added_phrases.push(addedClause);
    if (removedClause) clauseWords += h.removed.length;
    if (h.removed.length > 0 && h.added.length > 0) replacements.push(h);
  }
  // A sentence the writer rewrote more than kept (an opening clause deleted aside) teaches no substitution: its
  // changes are not word for word.
  if (kept * 2 < before.length - clauseWords) return;
  for (const h of replacements) {
    const from = h.removed.map((w) => w.lower);
    const to = h.added.map((w) => w.lower);
    if (!steadyLeft(h) || !steadyRight(h) || !isSubstitution(from, to)) continue;
    const key = `${from.join(" ")}→${to.join(" ")}`;
    // A replacement already found whole in this edit is not tagged again: its words keep their class.
    if (!subs.has(key) && (budget.tags-- <= 0 || !keepsGrammar(h))) continue;
    subs.set(key, (subs.get(key) ?? 0) + 1);
  }
}

/** A whole sentence as a phrase: its text without its closing punctuation. */
function sentencePhrase(u: Unit): string {
  return u.text.trim().replace(/[\s.!?…]+$/u, "");
}

/**
 * What an aligned edit teaches. With `phrases` false (an edit that rewrote most of the text) the sentences deleted
 * and added whole teach nothing: they were not chosen one by one.
 */
export function learnEdits(alignment: Alignment, phrases: boolean): LearnedEdits {
  const out: LearnedEdits = { substitutions: [], removed_phrases: [], added_phrases: [] };
  const subs = new Map<string, number>();
  const budget = { tags: MAX_TAGGED_REPLACEMENTS };
  for (const pair of alignment.pairs) learnFromPair(pair, out, subs, budget);
  if (phrases) {
    for (const u of alignment.removed) if (u.kind === "prose") out.removed_phrases.push(sentencePhrase(u));
    for (const u of alignment.added) if (u.kind === "prose") out.added_phrases.push(sentencePhrase(u));
  }
  out.substitutions = [...subs].map(([key, count]) => {
    const [from, to] = key.split("→");
    return { from, to, count };
  });
  out.removed_phrases = [...new Set(out.removed_phrases)];
  out.added_phrases = [...new Set(out.added_phrases)];
  return out;
}
