/**
 * The defects an editor sees at once in a draft, counted the same way by the scorer, the writing benchmark
 * (bench/writing.ts) and the writer's tests: doubled words, fragments (prose sentences without a verb), sentences
 * left dangling on a function word, how much of a direction a text covers, the sentences two texts share, phrases
 * and directions repeated, and how varied the sentences are.
 */

import { DANGLING_WORDS, STOP_WORDS, stem, tokens } from "./generation/language.js";
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

/**
 * Forms that are verbs wherever they stand (auxiliaries, "is", "has", contractions): a sentence with one has a verb,
 * and is not parsed, which costs ~1–3 ms a sentence. "may", "must" and "might" are left out ("in May 2025").
 */
const SURE_VERBS = new Set(
  (
    "is are was were am be been being has have had does did do will would can could should shall isn't aren't " +
    "wasn't weren't don't doesn't didn't won't can't couldn't wouldn't shouldn't it's that's there's here's what's " +
    "we're you're they're we've you've they've i'm we'll you'll they'll it'll let's"
  ).split(" "),
);

/** Whether a prose sentence is a fragment: it has no verb. */
export function isFragment(sentence: string): boolean {
  if (tokens(sentence).some((t) => SURE_VERBS.has(t.replace("’", "'")))) return false;
  return !hasVerb(sentence);
}

/** A sentence's last word before its end mark (and a closing quote or bracket). */
const LAST_WORD = /(\p{L}+)[.!?]["”')]?$/u;

/** Whether a sentence ends on a word that leaves it unfinished (DANGLING_WORDS). */
export function isDangling(sentence: string): boolean {
  const last = LAST_WORD.exec(sentence.trim())?.[1];
  return last !== undefined && DANGLING_WORDS.has(last.toLowerCase());
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

/** A placeholder the person fills in ("[City]", "[Name]"): a sentence holding one is a form's, not stock prose. */
const PLACEHOLDER = /\[[\p{Lu}][^\]]{0,40}\]/u;

/**
 * Share (0–1) of the prose sentences of `a` whose shape (sentenceShape) is also a sentence's shape in `b`. A
 * sentence with a placeholder ("It was founded in [year] and is based in [City].") is the template's form, the
 * same in every piece by design, and is not counted.
 */
export function sharedSentences(
  a: { text: string; direction: string },
  b: { text: string; direction: string },
): number {
  const shapesOf = (t: { text: string; direction: string }) =>
    proseSentences(t.text)
      .filter((s) => !PLACEHOLDER.test(s))
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

/** Whether an n-gram carries a subject: at least two of its words are not function words. */
function carriesSubject(words: string[]): boolean {
  return words.filter((w) => !STOP_WORDS.has(w)).length >= 2;
}

/** The longest repeated phrase looked for: longer repetitions show as their runs of this length. */
const MAX_REPEAT_WORDS = 24;

/** The n-grams of one length: each window's n-gram id (-1 where it does not repeat), their counts and first places. */
interface Grams {
  at: number[][];
  count: number[];
  first: [number, number][];
}

/** The (n+1)-grams extending the repeated n-grams; `ids` are the sentences' word ids, `vocab` their number. */
function extend(prev: Grams, ids: number[][], n: number, vocab: number): Grams {
  const table = new Map<number, number>();
  const next: Grams = { at: [], count: [], first: [] };
  ids.forEach((ws, s) => {
    const row: number[] = [];
    for (let i = 0; i + n < ws.length; i++) {
      const p = prev.at[s][i];
      if (p < 0 || prev.at[s][i + 1] < 0) {
        row.push(-1);
        continue;
      }
      const key = p * vocab + ws[i + n];
      let id = table.get(key);
      if (id === undefined) {
        id = next.count.length;
        table.set(key, id);
        next.count.push(0);
        next.first.push([s, i]);
      }
      next.count[id] += 1;
      row.push(id);
    }
    next.at.push(row);
  });
  for (const row of next.at) for (let i = 0; i < row.length; i++) if (next.count[row[i]] < 2) row[i] = -1;
  return next;
}

/**
 * Phrases of `minWords` or more words (two of them content words) that the sentences repeat, each as long as the
 * repetition runs ("written decision logs when" is not listed beside a longer run it is part of as often), with how
 * often; most repeated words first, then alphabetically. Runs never cross a sentence boundary. Linear in the words
 * for each length looked for: n-grams are numbered from their (n-1)-gram and next word, and only repeated ones
 * extend.
 */
export function repeatedPhrases(sentences: readonly string[], minWords = 3): { phrase: string; count: number }[] {
  const words = sentences.map((s) => tokens(s));
  const vocab = new Map<string, number>();
  const idOf = (w: string) => {
    const known = vocab.get(w);
    if (known !== undefined) return known;
    vocab.set(w, vocab.size);
    return vocab.size - 1;
  };
  const ids = words.map((ws) => ws.map(idOf));
  let grams: Grams = { at: ids.map((ws) => [...ws]), count: [], first: [] };
  const unigramCount = new Array<number>(vocab.size).fill(0);
  for (const ws of ids) for (const w of ws) unigramCount[w] += 1;
  grams.count = unigramCount;
  for (const row of grams.at) for (let i = 0; i < row.length; i++) if (unigramCount[row[i]] < 2) row[i] = -1;
  const levels: Grams[] = [grams];
  for (let n = 1; n < MAX_REPEAT_WORDS; n++) {
    grams = extend(grams, ids, n, vocab.size);
    if (!grams.at.some((row) => row.some((id) => id >= 0))) break;
    levels.push(grams);
  }
  return maximalRepeats(levels, words, minWords);
}

/** The repeated n-grams of `minWords` or more that no (n+1)-gram repeated as often holds, sorted. */
function maximalRepeats(levels: Grams[], words: string[][], minWords: number): { phrase: string; count: number }[] {
  const out: { phrase: string; count: number; n: number }[] = [];
  for (let k = minWords - 1; k < levels.length; k++) {
    const level = levels[k];
    const subsumed = new Set<number>();
    const longer = levels[k + 1];
    if (longer)
      longer.at.forEach((row, s) => {
        for (let i = 0; i < row.length; i++) {
          if (row[i] < 0) continue;
          const c = longer.count[row[i]];
          if (level.count[level.at[s][i]] === c) subsumed.add(level.at[s][i]);
          if (level.count[level.at[s][i + 1]] === c) subsumed.add(level.at[s][i + 1]);
        }
      });
    level.count.forEach((count, id) => {
      if (count < 2 || subsumed.has(id)) return;
      const [s, i] = level.first[id];
      const phrase = words[s].slice(i, i + k + 1);
      if (carriesSubject(phrase)) out.push({ phrase: phrase.join(" "), count, n: k + 1 });
    });
  }
  return out
    .sort((a, b) => (b.count - 1) * b.n - (a.count - 1) * a.n || (a.phrase < b.phrase ? -1 : 1))
    .map(({ phrase, count }) => ({ phrase, count }));
}

/**
 * How often a text restates its direction: the times a run of five or more of the direction's words (all of it,
 * when shorter) appears in the text, each restatement counted once however long it runs.
 */
export function directionRepeats(direction: string, text: string): number {
  const own = tokens(direction);
  const n = Math.min(5, own.length);
  if (n < 3) return 0;
  const runs = new Set<string>();
  for (let i = 0; i + n <= own.length; i++) runs.add(own.slice(i, i + n).join(" "));
  const ws = tokens(text);
  let count = 0;
  for (let i = 0; i + n <= ws.length; i++) {
    if (!runs.has(ws.slice(i, i + n).join(" "))) continue;
    count += 1;
    i += n - 1;
  }
  return count;
}

/** How varied the sentences are: their lengths' spread (standard deviation over mean) and the most common opener. */
export interface SentenceVariety {
  sentences: number;
  average_words: number;
  /** Standard deviation of the sentences' word counts over their mean: near 0 when all are alike. */
  length_spread: number;
  /** The word most sentences start with, and the share (0–1) that do; null without sentences. */
  top_opener: { word: string; share: number } | null;
}

/** The variety of a list of sentences (proseSentences). */
export function sentenceVariety(sentences: readonly string[]): SentenceVariety {
  const lengths = sentences.map((s) => tokens(s).length).filter((n) => n > 0);
  const mean = lengths.reduce((n, x) => n + x, 0) / Math.max(1, lengths.length);
  const sd = Math.sqrt(lengths.reduce((n, x) => n + (x - mean) ** 2, 0) / Math.max(1, lengths.length));
  const openers = new Map<string, number>();
  for (const s of sentences) {
    const first = tokens(s)[0];
    if (first) openers.set(first, (openers.get(first) ?? 0) + 1);
  }
  const top = [...openers].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    sentences: lengths.length,
    average_words: round(mean),
    length_spread: mean === 0 ? 0 : round(sd / mean),
    top_opener: top ? { word: top[0], share: round(top[1] / lengths.length) } : null,
  };
}
