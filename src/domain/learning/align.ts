/**
 * The two texts of an edit aligned sentence by sentence: each cut into lines and sentences (headings and layout lines
 * apart), the unchanged sentences matched, and in between each changed sentence paired with the one, two or three
 * sentences the writer made of it (or made one of), by the words they share. What is left over on either side was
 * deleted or added whole.
 */
import { diffArrays } from "diff";
import { splitSentences } from "../text.js";

/** One word of a sentence: as written, lower-cased, where it is, and whether a comma follows it. */
export interface Word {
  text: string;
  lower: string;
  start: number;
  end: number;
  commaAfter: boolean;
}

/** A sentence of prose, a heading (a title, a subject line) or a layout line, with its words. */
export interface Unit {
  kind: "prose" | "heading" | "layout";
  text: string;
  words: Word[];
  key: string;
}

/** What the alignment finds: sentences paired with what the writer made of them, and those deleted or added whole. */
export interface Alignment {
  pairs: { before: Unit[]; after: Unit[] }[];
  removed: Unit[];
  added: Unit[];
}

/** Lines of a layout rather than prose: a release's markers, rules, bold section titles. */
const LAYOUT_LINE = /^(?:FOR IMMEDIATE RELEASE$|#{3}$|-{3,}$|\*{3,}$)/;
const HEADING_LINE = /^(?:#{1,6}\s+|Subject:\s*)/i;
const BOLD_LINE = /^\*\*([^*]+)\*\*$/;
const LIST_MARKER = /^(?:\d+\/\d+|\d{1,3}[.)]|[-*•+]|>)\s+/;
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** The words of a sentence with their places. */
function wordsOf(text: string): Word[] {
  return [...text.matchAll(WORD)].map((m) => {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    return { text: m[0], lower: m[0].toLowerCase(), start, end, commaAfter: /^\s*,/.test(text.slice(end)) };
  });
}

function unit(kind: Unit["kind"], text: string): Unit {
  const words = wordsOf(text);
  return { kind, text, words, key: `${kind}:${words.map((w) => w.lower).join(" ")}` };
}

/** A text's units in order: a heading or layout line is one, a paragraph or list item gives one per sentence. */
export function unitsOf(text: string): Unit[] {
  const out: Unit[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (LAYOUT_LINE.test(line)) out.push(unit("layout", line));
    else if (HEADING_LINE.test(line)) out.push(unit("heading", line.replace(HEADING_LINE, "")));
    else if (BOLD_LINE.test(line)) out.push(unit("heading", line.replace(BOLD_LINE, "$1")));
    else
      for (const s of splitSentences(line.replace(LIST_MARKER, "")))
        if (wordsOf(s).length > 0) out.push(unit("prose", s));
  }
  return out.filter((u) => u.words.length > 0 || u.kind === "layout");
}

/** How many words two lists share, ignoring order (each word counted as often as both hold it). */
export function sharedCount(a: Word[], b: Word[]): number {
  const counts = new Map<string, number>();
  for (const w of a) counts.set(w.lower, (counts.get(w.lower) ?? 0) + 1);
  let shared = 0;
  for (const w of b) {
    const n = counts.get(w.lower) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(w.lower, n - 1);
    }
  }
  return shared;
}

/** The groups a changed sentence may be paired with: one for one, a split into two or three, a merge of two or three. */
const GROUPS: [number, number][] = [
  [1, 1],
  [1, 2],
  [1, 3],
  [2, 1],
  [3, 1],
];

/**
 * How well two groups of sentences pair (their shared words over the longer side's), or null when they are not the
 * same sentence: under 60% of the shorter side's words shared, fewer than two words shared (one for a sentence of one
 * or two words), or of different kinds (a heading pairs only with a heading, and only one for one).
 */
function pairScore(before: Unit[], after: Unit[]): number | null {
  const kind = before[0].kind;
  if (kind === "layout" || [...before, ...after].some((u) => u.kind !== kind)) return null;
  if (kind === "heading" && (before.length > 1 || after.length > 1)) return null;
  const a = before.flatMap((u) => u.words);
  const b = after.flatMap((u) => u.words);
  const shared = sharedCount(a, b);
  const shorter = Math.min(a.length, b.length);
  if (shared < Math.min(2, shorter) || shared === 0 || shared / shorter < 0.6) return null;
  return shared / Math.max(a.length, b.length);
}

/** The best pairing of the sentences at `i` and `j`, or null when none pairs. */
function bestGroup(ra: Unit[], rb: Unit[], i: number, j: number): [number, number] | null {
  let best: { score: number; group: [number, number] } | null = null;
  for (const [na, nb] of GROUPS) {
    if (i + na > ra.length || j + nb > rb.length) continue;
    const score = pairScore(ra.slice(i, i + na), rb.slice(j, j + nb));
    if (score !== null && (!best || score > best.score)) best = { score, group: [na, nb] };
  }
  return best?.group ?? null;
}

/** Pairs the changed sentences of one region in order; a sentence that pairs with none was deleted or added whole. */
function pairRegion(ra: Unit[], rb: Unit[], out: Alignment): void {
  let i = 0;
  let j = 0;
  while (i < ra.length && j < rb.length) {
    const group = bestGroup(ra, rb, i, j);
    if (group) {
      out.pairs.push({ before: ra.slice(i, i + group[0]), after: rb.slice(j, j + group[1]) });
      i += group[0];
      j += group[1];
      continue;
    }
    // Nothing pairs here: a sentence the writer added comes before the one that pairs, or this one was deleted.
    const later = [1, 2, 3].some((k) => j + k < rb.length && pairScore([ra[i]], [rb[j + k]]) !== null);
    if (later) out.added.push(rb[j++]);
    else out.removed.push(ra[i++]);
  }
  out.removed.push(...ra.slice(i));
  out.added.push(...rb.slice(j));
}

/** The most units a changed region may hold for its sentences to be paired: past it the region was rewritten. */
export const MAX_REGION_UNITS = 400;

/** Aligns the texts before and after an edit sentence by sentence. */
export function alignSentences(generated: string, finalized: string): Alignment {
  const a = unitsOf(generated);
  const b = unitsOf(finalized);
  const out: Alignment = { pairs: [], removed: [], added: [] };
  const parts = diffArrays(a, b, { comparator: (x, y) => x.key === y.key });
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p];
    if (!part.added && !part.removed) continue;
    const removed = part.removed ? part.value : [];
    let added = part.added ? part.value : [];
    if (part.removed && parts[p + 1]?.added) added = parts[++p].value;
    if (removed.length + added.length > MAX_REGION_UNITS) continue;
    pairRegion(removed, added, out);
  }
  return out;
}
