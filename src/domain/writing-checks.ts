/**
 * The defects an editor sees at once in a draft, counted the same way by the scorer, the writing benchmark
 * (bench/writing.ts) and the writer's tests: doubled words, fragments (prose sentences without a verb), sentences
 * left dangling on a function word, how much of a direction a text covers, and the sentences two texts share.
 */

import { STOP_WORDS, stem, tokens } from "./generation/language.js";
import { hasVerb, parse } from "./generation/nlp.js";
import { splitSentences } from "./text.js";

/** Lines of a layout rather than prose: headings, a subject line, a release's markers, a thread's numbering. */
const LAYOUT_LINE = /^(?:#{1,6}\s|Subject:|FOR IMMEDIATE RELEASE$|###$|\*\*[^*]+\*\*$|-{3,}$)/;

/** A sign-off line ("Best regards," "The team"): a short line without end punctuation, not a sentence. */
const SHORT_LINE = /^[^.!?]{0,40}[,]?$/;

/** The prose sentences of a text (Markdown or plain): its paragraphs', list items' and quotes' sentences. */
export function proseSentences(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw
      .trim()
      .replace(/^(?:\d+\/\d+|\d+[.)]|[-*•]|>)\s+/, "")
      .trim();
    if (!line || LAYOUT_LINE.test(line) || (SHORT_LINE.test(line) && tokens(line).length <= 6)) continue;
    out.push(...splitSentences(line));
  }
  return out.filter((s) => tokens(s).length > 0);
}

/** Words written twice in a row ("Why Why", "the the"), case ignored, as "why why". */
export function doubledWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\p{L}\p{N}'’-])([\p{L}][\p{L}'’-]*)[ \t]+\1(?![\p{L}\p{N}'’-])/giu))
    out.push(`${m[1].toLowerCase()} ${m[1].toLowerCase()}`);
  return out;
}

/** Whether a prose sentence is a fragment: it has no verb. */
export function isFragment(sentence: string): boolean {
  return !hasVerb(sentence);
}

/** Words a sentence cannot end on: it was cut short ("… decision logs when."). */
const DANGLING =
  /\b(?:a|an|the|and|or|but|of|to|for|with|from|when|if|that|which|our|their|your|its|is|are)[.!?]["”')]?$/i;

/** Whether a sentence ends on a word that leaves it unfinished. */
export function isDangling(sentence: string): boolean {
  return DANGLING.test(sentence.trim());
}

/** Words and numbers, a number kept whole with its separators ("10,000", "2.5"), lower-cased. */
function wordsAndNumbers(text: string): string[] {
  return text.toLowerCase().match(/\p{N}+(?:[.,]\p{N}+)*|\p{L}+(?:['’-]\p{L}+)*/gu) ?? [];
}

/** The content words of a direction: its nouns, verbs, adjectives and numbers, without the instruction's verb. */
export function directionWords(direction: string): string[] {
  const instruction = parse(direction).match("^#Imperative").text().toLowerCase();
  const words = wordsAndNumbers(direction).filter(
    (w) => /\p{N}/u.test(w) || (!STOP_WORDS.has(w) && w.length > 2 && w !== instruction),
  );
  return [...new Set(words)];
}

/** Share (0–1) of a direction's content words that a text uses, stems compared ("logs" counts for "log"). */
export function directionCoverage(direction: string, text: string): number {
  const wanted = directionWords(direction);
  if (wanted.length === 0) return 1;
  const have = new Set(wordsAndNumbers(text).map(stem));
  return wanted.filter((w) => have.has(stem(w))).length / wanted.length;
}

/**
 * A sentence as a template would write it: lower-case, the words of its own direction replaced by a slot, so that
 * "Here is what you need to know about logs." and "… about bottles." read as the same stock sentence.
 */
export function sentenceShape(sentence: string, direction: string): string {
  const own = new Set(tokens(direction).map(stem));
  return tokens(sentence)
    .map((w) => (own.has(stem(w)) ? "_" : w))
    .join(" ");
}

/** Share (0–1) of the prose sentences of `a` whose shape (sentenceShape) is also a sentence's shape in `b`. */
export function sharedSentences(
  a: { text: string; direction: string },
  b: { text: string; direction: string },
): number {
  const shapesOf = (t: { text: string; direction: string }) =>
    proseSentences(t.text)
      .map((s) => sentenceShape(s, t.direction))
      .filter((s) => s.split(" ").length >= 4);
  const mine = shapesOf(a);
  if (mine.length === 0) return 0;
  const theirs = new Set(shapesOf(b));
  return mine.filter((s) => theirs.has(s)).length / mine.length;
}

/** Runs of `n` or more words of `source` that appear in `text` in the same order (a pasted memory), lower-cased. */
export function pastedRuns(source: string, text: string, n = 8): string[] {
  const src = tokens(source);
  const have = ` ${tokens(text).join(" ")} `;
  const out: string[] = [];
  for (let i = 0; i + n <= src.length; i++) {
    const run = src.slice(i, i + n).join(" ");
    if (have.includes(` ${run} `)) out.push(run);
  }
  return out;
}
