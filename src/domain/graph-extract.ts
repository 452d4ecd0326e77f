/**
 * The extraction of the knowledge graph (DESIGN §6): a document's entities — proper-noun phrases ("Acme Corp",
 * "New York") and key phrases (frequent two- and three-word noun-like phrases) — and their co-occurrence in
 * sentences. A pure function, run on the worker pool (workers/tasks.ts); test/domain/graph.test.ts holds it.
 */

import type { ExtractedDocument } from "../db/graph.js";
import { markdownToPlain } from "./conversions/markdown-blocks.js";
import { STOP_WORDS } from "./generation/language.js";
import { splitSentences } from "./text.js";

/**
 * The longest entity id (UTF-8 bytes) the graph keeps. Words have no length of their own (a 10,000-letter token is a
 * word), and an entity search's cursor carries the id of its page's last entity: a longer one is no name or phrase.
 */
export const MAX_ENTITY_ID_BYTES = 200;

/** A word of a sentence: its text (a possessive 's dropped), where it sits, and whether it is capitalised. */
export interface Word {
  text: string;
  lower: string;
  start: number;
  end: number;
  cap: boolean;
  possessive: boolean;
}

const WORD = /[\p{L}\p{N}]+(?:['’\-&][\p{L}\p{N}]+)*/gu;

/** The words of a sentence, in order. */
export function wordsOf(sentence: string): Word[] {
  const out: Word[] = [];
  for (const m of sentence.matchAll(WORD)) {
    const possessive = /['’]s$/iu.test(m[0]);
    const text = possessive ? m[0].slice(0, -2) : m[0];
    const start = m.index ?? 0;
    out.push({
      text,
      lower: text.toLowerCase(),
      start,
      end: start + m[0].length,
      cap: /^\p{Lu}/u.test(text),
      possessive,
    });
  }
  return out;
}

const isSpace = (gap: string) => /^[ \t\n]+$/.test(gap);

/** Lower-case words that may join capitalised words into one name ("Bank of America", "Vincent van Gogh"). */
const CONNECTORS = new Set(["of", "de", "du", "da", "del", "der", "van", "von", "la", "le", "y"]);

/** Capitalised words that open sentences and clauses but name nothing. */
const NOT_NAMES = new Set(
  (
    "according although though however meanwhile moreover furthermore therefore thus hence instead today " +
    "tomorrow yesterday yes also still yet finally first second third next last many most every each several " +
    "one two three four five six seven eight nine ten since unless whether while let lets please thanks thank " +
    "dear hi hello hey"
  ).split(" "),
);

/**
 * Words that are not nouns and make poor phrase words: common verbs, adverbs, quantifiers and vague
 * nouns. Together with STOP_WORDS they keep key phrases noun-like.
 */
const NOT_PHRASE_WORDS = new Set(
  (
    "said says say told tell tells asked ask made makes get gets got getting took take takes taking went go goes " +
    "going come comes came see seen saw know knew known think thought found find gave give gives keep kept began " +
    "begin seem seems seemed became become becomes show shows showed shown like likes liked just even much many " +
    "really well often always never sometimes usually already still yet ever every almost quite rather perhaps " +
    "maybe however therefore thus hence instead including include includes included according per via among " +
    "across around within without upon toward towards along one two three four five six seven eight nine ten " +
    "first second third last next same different another several various certain whole lot lots way ways thing " +
    "things something anything everything nothing someone anyone everyone may might must shall cannot can't " +
    "don't doesn't didn't won't isn't aren't wasn't weren't it's that's there's i'm we're they're you're"
  ).split(" "),
);

/** A name of a sentence: words a..b (inclusive). */
interface Run {
  a: number;
  b: number;
  initial: boolean;
}

/** Whether word i opens a sentence or clause (after a colon, a quote or a bracket), where capitals are expected. */
function opensClause(sentence: string, words: Word[], i: number): boolean {
  if (i === 0) return true;
  return /[:;"“”‘([—–!?]\s*['"“‘]?$/.test(sentence.slice(words[i - 1].end, words[i].start));
}

/** A title or heading: mostly capitalised words and no closing punctuation. */
function isHeadingLike(sentence: string, words: Word[]): boolean {
  const significant = words.filter((w) => !CONNECTORS.has(w.lower) && !STOP_WORDS.has(w.lower));
  if (significant.length < 3 || /[.!?…]["'”’)\]]*\s*$/.test(sentence)) return false;
  return significant.filter((w) => w.cap).length / significant.length >= 0.7;
}

/** Runs of capitalised words (with connectors between them), without leading words that name nothing. */
function nameRuns(sentence: string, words: Word[]): Run[] {
  if (isHeadingLike(sentence, words)) return [];
  const runs: Run[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!words[i].cap) continue;
    let j = i;
    while (!words[j].possessive && j + 1 < words.length) {
      const gap = sentence.slice(words[j].end, words[j + 1].start);
      if (words[j + 1].cap && (isSpace(gap) || /^\s+&\s+$/.test(gap))) {
        j += 1;
        continue;
      }
      const after = words[j + 2];
      if (
        CONNECTORS.has(words[j + 1].text) &&
        isSpace(gap) &&
        after?.cap &&
        isSpace(sentence.slice(words[j + 1].end, after.start))
      ) {
        j += 2;
        continue;
      }
      break;
    }
    let a = i;
    while (a <= j && (STOP_WORDS.has(words[a].lower) || NOT_NAMES.has(words[a].lower))) a += 1;
    const b = j;
    i = j;
    if (a > b || b - a >= 6) continue;
    if (a === b && (words[a].text.length < 2 || /^\p{N}/u.test(words[a].text))) continue;
    runs.push({ a, b, initial: opensClause(sentence, words, a) });
  }
  return runs;
}

/** The singular of a lower-case English word, roughly ("reviews" → "review", "companies" → "company"). */
export function singular(word: string): string {
  if (word.length <= 3 || /(?:ss|us|is|ous|ics|'s)$/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:xes|ches|shes|sses|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

/** How a word looks in a key phrase's label: lower case unless it is an acronym ("API", "CRM"). */
function labelWord(w: Word): string {
  return /^\p{Lu}{2,}$/u.test(w.text) ? w.text : w.lower;
}

/** Whether a word may stand in a key phrase, and at its end (the head noun: not an -ly adverb nor an -ed verb). */
function phraseWord(w: Word, head: boolean): boolean {
  if (STOP_WORDS.has(w.lower) || NOT_PHRASE_WORDS.has(w.lower)) return false;
  if (!/\p{L}/u.test(w.text) || w.text.length < 2) return false;
  if (head && (w.text.length < 3 || /(?:ly|ed)$/.test(w.lower))) return false;
  return true;
}

/** A phrase found in a text: its key, the label most often seen, and the sentences of its occurrences. */
export interface PhraseCount {
  key: string;
  /** The key's words (singular, lower case). */
  parts: string[];
  label: string;
  words: number;
  count: number;
  /** The sentence of each occurrence (repeated when a sentence holds it twice). */
  sentences: number[];
}

/**
 * Counts the noun-like phrases of minWords to maxWords consecutive words in each sentence (never across
 * punctuation), with plurals folded into one key; `taken(s, i)` marks words that belong to something else
 * (a name).
 */
export function countPhrases(
  sentences: Word[][] | string[],
  options: { minWords: number; maxWords: number; taken?: (sentence: number, word: number) => boolean },
): Map<string, PhraseCount> {
  const found = new Map<string, PhraseCount & { labels: Map<string, number> }>();
  sentences.forEach((entry, s) => {
    const sentence = typeof entry === "string" ? entry : null;
    const words = sentence === null ? (entry as Word[]) : wordsOf(sentence);
    const joined = (i: number) => sentence === null || isSpace(sentence.slice(words[i].end, words[i + 1].start));
    for (let i = 0; i < words.length; i++) {
      for (let n = options.minWords; n <= options.maxWords && i + n <= words.length; n++) {
        const span = words.slice(i, i + n);
        let ok = true;
        for (let k = 0; k < n && ok; k++) {
          if (options.taken?.(s, i + k) || !phraseWord(span[k], k === n - 1)) ok = false;
          if (ok && k < n - 1 && (span[k].possessive || !joined(i + k))) ok = false;
        }
        if (!ok) continue;
        const parts = span.map((w) => singular(w.lower));
        const key = parts.join("-");
        const label = span.map(labelWord).join(" ");
        const entry = found.get(key) ?? {
          key,
          parts,
          label,
          words: n,
          count: 0,
          sentences: [] as number[],
          labels: new Map<string, number>(),
        };
        entry.count += 1;
        entry.sentences.push(s);
        entry.labels.set(label, (entry.labels.get(label) ?? 0) + 1);
        found.set(key, entry);
      }
    }
  });
  const out = new Map<string, PhraseCount>();
  for (const [key, { labels, ...rest }] of found) {
    const label = [...labels].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0][0];
    out.set(key, { ...rest, label });
  }
  return out;
}

/**
 * Drops a phrase that only ever occurs inside a longer one (same count): the longer one says it. Of two
 * phrases that are overlapping windows of one longer run ("weekly written planning", "written planning
 * review"), the later one stays: an English noun phrase ends with its head noun.
 */
export function dropSubsumed(phrases: PhraseCount[]): PhraseCount[] {
  const key = (parts: string[]) => parts.join("\u0000");
  // Phrases of one length, count and sentences, by their words: `lead` without the last word, `tail` without the
  // first. Looked up by key rather than scanned: a text of thousands of distinct phrases sharing leading words made
  // the scan quadratic (5.9 s for 615 KB).
  const where = (p: PhraseCount, words: string[]) => `${p.parts.length}|${p.count}|${p.sentences.join()}|${key(words)}`;
  // The highest count of a longer phrase containing each shorter span, and phrases by their leading words.
  const containing = new Map<string, number>();
  const byLead = new Map<string, PhraseCount[]>();
  for (const q of phrases) {
    for (let len = 1; len < q.parts.length; len++)
      for (let i = 0; i + len <= q.parts.length; i++) {
        const k = key(q.parts.slice(i, i + len));
        containing.set(k, Math.max(containing.get(k) ?? 0, q.count));
      }
    if (q.parts.length >= 2) {
      const k = where(q, q.parts.slice(0, -1));
      const same = byLead.get(k);
      if (same) same.push(q);
      else byLead.set(k, [q]);
    }
  }
  return phrases.filter((p) => {
    if ((containing.get(key(p.parts)) ?? 0) >= p.count) return false;
    if (p.parts.length < 2) return true;
    // A later window of the same run: a phrase (not p) whose leading words are p's trailing ones, same count and
    // sentences.
    const later = byLead.get(where(p, p.parts.slice(1))) ?? [];
    return !later.some((q) => q !== p);
  });
}

/** Most entities kept per document, of each type. */
export const DOCUMENT_LIMITS = { properNouns: 300, keyPhrases: 200, entitiesPerSentence: 20 } as const;

/** What an extraction task is given: a reference's plain text, or a content's Markdown. */
export interface ExtractionInput {
  text: string;
  format: "plain" | "markdown";
}

/**
 * Finds a document's entities and their co-occurrences. Proper nouns: runs of capitalised words (a
 * sentence-initial single word only when the document also capitalises it mid-sentence, or opens several
 * sentences with it and never writes it in lower case; headings skipped).
 * Key phrases: two- or three-word noun-like phrases occurring at least twice, outside names. Pairs: two
 * entities in one sentence, weighted by the number of such sentences.
 */
export function extractGraph(input: ExtractionInput): ExtractedDocument {
  const text = input.format === "markdown" ? markdownToPlain(input.text) : input.text;
  const sentences = splitSentences(text);
  const words = sentences.map(wordsOf);

  // Names.
  const runs = sentences.map((s, i) => nameRuns(s, words[i]));
  const keyOf = (ws: Word[], r: Run) =>
    ws
      .slice(r.a, r.b + 1)
      .map((w) => w.lower)
      .join("-");
  // A single capitalised word opening a sentence is a name when the text also capitalises it mid-sentence,
  // or opens sentences with it at least twice and never writes it in lower case ("Initech moved …").
  const midSentence = new Set<string>();
  const openings = new Map<string, number>();
  runs.forEach((rs, s) => {
    for (const r of rs) {
      const key = keyOf(words[s], r);
      if (!r.initial) midSentence.add(key);
      else if (r.a === r.b) openings.set(key, (openings.get(key) ?? 0) + 1);
    }
  });
  const lowerCase = new Set(words.flatMap((ws) => ws.filter((w) => !w.cap).map((w) => w.lower)));
  const isName = (key: string) => midSentence.has(key) || ((openings.get(key) ?? 0) >= 2 && !lowerCase.has(key));
  const names = new Map<string, { labels: Map<string, number>; sentences: number[] }>();
  const taken = sentences.map(() => new Set<number>());
  runs.forEach((rs, s) => {
    const ws = words[s];
    for (const r of rs) {
      const key = keyOf(ws, r);
      if (r.initial && r.a === r.b && !isName(key)) continue;
      const label = `${sentences[s].slice(ws[r.a].start, ws[r.b].start)}${ws[r.b].text}`.replace(/\s+/g, " ");
      const entry = names.get(key) ?? { labels: new Map<string, number>(), sentences: [] as number[] };
      entry.labels.set(label, (entry.labels.get(label) ?? 0) + 1);
      entry.sentences.push(s);
      names.set(key, entry);
      for (let i = r.a; i <= r.b; i++) taken[s].add(i);
    }
  });
  const properNouns = [...names]
    .filter(([id]) => Buffer.byteLength(id) <= MAX_ENTITY_ID_BYTES)
    .map(([id, e]) => ({
      id,
      label: [...e.labels].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0][0],
      type: "proper_noun" as const,
      mentions: e.sentences.length,
      sentences: e.sentences,
    }))
    .sort((x, y) => y.mentions - x.mentions || (x.id < y.id ? -1 : 1))
    .slice(0, DOCUMENT_LIMITS.properNouns);

  // Key phrases, outside names.
  const counted = countPhrases(words, { minWords: 2, maxWords: 3, taken: (s, i) => taken[s].has(i) });
  const nameIds = new Set(properNouns.map((p) => p.id));
  const frequent = [...counted.values()].filter(
    (p) => p.count >= 2 && !nameIds.has(p.key) && Buffer.byteLength(p.key) <= MAX_ENTITY_ID_BYTES,
  );
  const keyPhrases = dropSubsumed(frequent)
    .sort((x, y) => y.count - x.count || y.words - x.words || (x.key < y.key ? -1 : 1))
    .slice(0, DOCUMENT_LIMITS.keyPhrases)
    .map((p) => ({
      id: p.key,
      label: p.label,
      type: "key_phrase" as const,
      mentions: p.count,
      sentences: p.sentences,
    }));

  // Co-occurrence in sentences.
  const inSentence = sentences.map(() => new Set<string>());
  for (const e of [...properNouns, ...keyPhrases])
    for (const s of e.sentences) if (inSentence[s].size < DOCUMENT_LIMITS.entitiesPerSentence) inSentence[s].add(e.id);
  const pairs = new Map<string, { source: string; target: string; weight: number }>();
  for (const set of inSentence) {
    const ids = [...set].sort();
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++) {
        const key = `${ids[i]}\u0000${ids[j]}`;
        const pair = pairs.get(key) ?? { source: ids[i], target: ids[j], weight: 0 };
        pair.weight += 1;
        pairs.set(key, pair);
      }
  }
  return {
    entities: [...properNouns, ...keyPhrases].map(({ id, label, type, mentions }) => ({ id, label, type, mentions })),
    pairs: [...pairs.values()],
  };
}
