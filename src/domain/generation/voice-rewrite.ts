/**
 * A block's prose sentences rewritten to follow a voice memory's rules: preferred words in place of others (whole
 * words, case and inflection kept), avoided words replaced by a plain synonym or dropped where the sentence stands
 * without them, the reader's person, exclamation marks, contractions, and sentences split to the length asked.
 * Every sentence that comes out has a verb and no doubled word; one that cannot be made to follow a rule without
 * breaking is dropped (an avoided noun with no plain synonym) or kept whole (a long sentence with no joint), and
 * the report says which.
 */
import { conjugate, hasVerb, parse, pluralOf, singularOf } from "./nlp.js";
import { sentenceWords, splitToLimit } from "./sentence-split.js";
import type { VoiceRules } from "./voice-memory.js";
import {
  addressReader,
  contract,
  expand,
  inCaseOf,
  outsideQuotes,
  speakAsWe,
  withoutExclamations,
} from "./voice-wording.js";

/** What following the rules made of a block's sentences. */
export interface VoiceRulesReport {
  /** The sentences that follow the rules. */
  sentences: string[];
  /** Sentences still over the length limit: they had no joint to split at. */
  unsplit: string[];
  /** Sentences dropped: an avoided word in them could be neither replaced nor left out. */
  dropped: string[];
}

/** Options of followVoiceRulesReport. */
export interface FollowOptions {
  /** Whether to split long sentences (false for a model's answer, whose lines may be list items or headings). */
  split?: boolean;
}

/** Plain words for common corporate ones, base forms (their inflections follow them). */
const PLAIN: Record<string, string> = {
  leverage: "use",
  utilize: "use",
  utilise: "use",
  facilitate: "help",
  empower: "help",
  optimize: "improve",
  optimise: "improve",
  streamline: "simplify",
  revolutionize: "change",
  disrupt: "change",
  incentivize: "encourage",
  ideate: "plan",
  synergy: "cooperation",
  paradigm: "model",
  bandwidth: "time",
  deliverable: "result",
  learnings: "lessons",
  ecosystem: "network",
  verbiage: "wording",
  methodology: "method",
  utilization: "use",
  robust: "strong",
  "in order to": "to",
  "circle back": "return",
  "touch base": "talk",
  "reach out": "write",
  "deep dive": "close look",
  "low-hanging fruit": "easy wins",
  "game changer": "big change",
  "game-changer": "big change",
  "move the needle": "make a difference",
};

/** The forms of a word and of its replacement, paired: utilize → use, utilized → used, utilizes → uses. */
function inflected(from: string, to: string): [string, string][] {
  const pairs: [string, string][] = [[from, to]];
  if (/\s/.test(from) || /\s/.test(to)) return pairs;
  const add = (a: string, b: string) => {
    if (a && b && a !== from && !pairs.some(([x]) => x === a)) pairs.push([a, b]);
  };
  const [f, t] = [conjugate(from), conjugate(to)];
  for (const form of ["past", "present", "gerund", "participle"] as const) add(f[form], t[form]);
  add(pluralOf(from), pluralOf(to));
  add(singularOf(from), singularOf(to));
  return pairs;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A whole-word, case-blind pattern for a word or phrase. */
function wordPattern(phrase: string): RegExp {
  return new RegExp(
    `(?<![\\p{L}\\p{N}'’-])${escapeRegExp(phrase).replace(/\s+/g, "\\s+")}(?![\\p{L}\\p{N}'’-])`,
    "giu",
  );
}

/** Replacements compiled once per rules: each pattern with what it becomes, longest first. */
interface Compiled {
  replace: { re: RegExp; to: string }[];
  avoid: { word: string; re: RegExp }[];
}

const compiled = new WeakMap<VoiceRules, Compiled>();

function compile(rules: VoiceRules): Compiled {
  const known = compiled.get(rules);
  if (known) return known;
  const pairs: [string, string][] = [];
  for (const p of rules.prefer) pairs.push(...inflected(p.from, p.to));
  // An avoided word takes its plain synonym unless that is avoided too; then it is left out like any other.
  const plain = (w: string) => (PLAIN[w] && !rules.avoid.includes(PLAIN[w]) ? PLAIN[w] : undefined);
  for (const word of rules.avoid) {
    const synonym = plain(word);
    if (synonym) pairs.push(...inflected(word, synonym));
  }
  pairs.sort((a, b) => b[0].length - a[0].length);
  const avoid = rules.avoid
    .filter((w) => !plain(w))
    .flatMap((w) => inflected(w, w).map(([form]) => form))
    .map((word) => ({ word, re: wordPattern(word) }));
  const made = { replace: pairs.map(([from, to]) => ({ re: wordPattern(from), to })), avoid };
  compiled.set(rules, made);
  return made;
}

/** The sentence with preferred words (and plain synonyms of avoided ones) in place. */
function substitute(sentence: string, c: Compiled): string {
  return outsideQuotes(sentence, (part) => {
    let out = part;
    for (const { re, to } of c.replace) out = out.replace(re, (m) => inCaseOf(m, to));
    return out;
  });
}

/** "a" or "an" for the word after it, as it is spoken: "an hour", "a user". */
function article(next: string, upper: boolean): string {
  const an =
    /^(?:[aeio]|u(?![bcfhjkqrstn][aeiou]|ni|se|ro|ti|ka)|h(?:our|onest|onou?r|eir))/i.test(next) &&
    !/^one\b|^eu/i.test(next);
  const word = an ? "an" : "a";
  return upper ? inCaseOf("A", word) : word;
}

/** Tidies a sentence after a word was taken out: spaces, commas left empty, the article before it, the capital. */
function tidy(sentence: string): string {
  let out = sentence
    .replace(/\s{2,}/g, " ")
    .replace(/\s+([,.;:!?])/g, "$1")
    .replace(/,\s*,/g, ",")
    .replace(/^[,;:\s]+/, "")
    .replace(/,\s*([.!?])$/, "$1")
    .replace(/\b(a|an)\s+(\p{L}+)/giu, (m, a: string, next: string) =>
      /^(?:a|an)$/i.test(a) ? `${article(next, a[0] === "A")} ${next}` : m,
    )
    .trim();
  out = out.replace(/(?<![\p{L}\p{N}'’-])(\p{L}[\p{L}'’-]*)\s+\1(?![\p{L}\p{N}'’-])/giu, "$1");
  return out.charAt(0).toUpperCase() + out.slice(1);
}

/** Modifiers a sentence always reads on without: no parse is needed to know they can go. */
const MODIFIERS = new Set(
  (
    "seamless seamlessly innovative cutting-edge world-class best-in-class game-changing revolutionary disruptive " +
    "holistic very really truly basically actually literally just simply incredibly extremely super quite totally " +
    "absolutely unique amazing awesome exciting powerful"
  ).split(" "),
);

/** Phrases that frame a sentence without adding to it: they go with the comma beside them. */
const FRAMES = new Set([
  "going forward",
  "at the end of the day",
  "needless to say",
  "in today's fast-paced world",
  "in today’s fast-paced world",
  "to be honest",
  "of course",
  "as a matter of fact",
  "at this point in time",
]);

/** Whether an avoided word stands where the sentence reads on without it: a modifier or one item of a list. */
function removable(sentence: string, word: string): boolean {
  if (MODIFIERS.has(word.toLowerCase()) || FRAMES.has(word.toLowerCase())) return true;
  const w = escapeRegExp(word);
  if (new RegExp(`(?:,\\s*|\\s+(?:and|or)\\s+)${w}\\b|\\b${w}(?:,\\s*|\\s+(?:and|or)\\s+)`, "i").test(sentence))
    return true;
  const doc = parse(sentence).match(word);
  return doc.found && !doc.has("#Verb") && (doc.has("#Adjective") || doc.has("#Adverb"));
}

/** The sentence without an avoided word (and the conjunction or comma beside it), or null when it cannot go. */
function withoutWord(sentence: string, word: string): string | null {
  if (!removable(sentence, word)) return null;
  const w = escapeRegExp(word);
  const out = sentence
    .replace(new RegExp(`,\\s*${w}(?![\\p{L}])|\\s+(?:and|or)\\s+${w}(?![\\p{L}])`, "iu"), "")
    .replace(new RegExp(`(?<![\\p{L}])${w},?\\s+(?:and\\s+|or\\s+)?`, "iu"), "")
    .replace(wordPattern(word), "");
  const tidied = tidy(out);
  return tidied.split(/\s+/).length >= 3 ? tidied : null;
}

/** The sentence without its avoided words, or null when one of them cannot be left out cleanly. */
function avoidWords(sentence: string, c: Compiled): string | null {
  let out = sentence;
  for (const { word, re } of c.avoid) {
    re.lastIndex = 0;
    if (!re.test(out.replace(/“[^”]*”|"[^"]*"/g, ""))) continue;
    // An introductory phrase ("In today's fast-paced world, …") goes with its comma.
    const intro = new RegExp(`^${escapeRegExp(word)}\\s*,\\s*`, "i");
    const next = intro.test(out) ? tidy(out.replace(intro, "")) : withoutWord(out, word);
    if (next === null) return null;
    out = next;
  }
  // One parse for all the words taken out: what is left must still be a sentence.
  return out === sentence || hasVerb(out) ? out : null;
}

/** The sentence with its person, contractions and exclamation marks as the rules ask. */
function reword(sentence: string, rules: VoiceRules): string {
  return outsideQuotes(sentence, (part) => {
    let out = part;
    if (rules.person === "you")
      out = addressReader(
        out,
        (w) => parse(w).has("#Verb") || /^(?:can|will|may|might|should|must|could|would|need|get)$/i.test(w),
      );
    if (rules.person === "we") out = speakAsWe(out);
    if (rules.contractions === true) out = contract(out);
    if (rules.contractions === false) out = expand(out);
    if (rules.exclamations === false) out = withoutExclamations(out);
    return out;
  });
}

/** What following the rules makes of a block's prose sentences, with the sentences it could not split or keep. */
export function followVoiceRulesReport(
  sentences: string[],
  rules: VoiceRules,
  options: FollowOptions = {},
): VoiceRulesReport {
  const c = compile(rules);
  const report: VoiceRulesReport = { sentences: [], unsplit: [], dropped: [] };
  for (const sentence of sentences) {
    const avoided = avoidWords(substitute(sentence, c), c);
    if (avoided === null) {
      report.dropped.push(sentence);
      continue;
    }
    let out = reword(avoided, rules);
    if (out !== sentence) out = tidy(out);
    const max = rules.maxSentenceWords;
    if (max === null || options.split === false) {
      report.sentences.push(out);
      continue;
    }
    const split = splitToLimit(out, max);
    report.sentences.push(...split.sentences);
    if (!split.whole) report.unsplit.push(...split.sentences.filter((s) => sentenceWords(s) > max));
  }
  return report;
}

/** A block's prose sentences rewritten to follow the voice rules (see followVoiceRulesReport for what it could not do). */
export function followVoiceRules(sentences: string[], rules: VoiceRules): string[] {
  return followVoiceRulesReport(sentences, rules).sentences;
}
