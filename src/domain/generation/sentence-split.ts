/**
 * Splitting a long sentence at its natural joints (";", ", and", ", but", ", which", " because ", a comma before a
 * new clause) into sentences within a word limit. A split is made only where both halves are sentences of their
 * own (each has a verb, the first is not a dependent clause); a sentence with no such joint stays whole: cutting it
 * mid-phrase would break it.
 */
import { wordCount } from "./language.js";
import { hasVerb, verbSpans as parseVerbSpans } from "./nlp.js";

/** The last sentence whose verbs were read, and its verbs: one parse serves every joint tried in it. */
let lastSpans: { sentence: string; spans: [number, number][] } | null = null;

/** A sentence's verb spans, parsed once however many joints of it are tried. */
function verbSpans(sentence: string): [number, number][] {
  if (lastSpans?.sentence !== sentence) lastSpans = { sentence, spans: parseVerbSpans(sentence) };
  return lastSpans.spans;
}

/** The words of a sentence as the length rule counts them: wordCount's ("10,000" and "A/B" are two). */
export const sentenceWords: (sentence: string) => number = wordCount;

/** A place a sentence may be split, and how the second half then starts. */
interface Joint {
  /** Where the first half ends. */
  end: number;
  /** Where the second half's own words start. */
  start: number;
  /** What the second half starts with ("But", "This"), or "" for its own first word. */
  lead: string;
  /** Whether the second half may lack a subject of its own ("…, and did B"): the first half's is then repeated. */
  shared?: boolean;
}

/** Joints and the word the second half starts with; the regexes match the joint itself. */
const JOINTS: { re: RegExp; lead: string; shared?: boolean }[] = [
  { re: /;\s+/g, lead: "" },
  { re: /:\s+(?=\p{L})/gu, lead: "" },
  { re: /\s+[—–]\s+/g, lead: "" },
  { re: /,\s+and\s+/g, lead: "", shared: true },
  { re: /\s+and\s+(?=(?:then\s+)?\p{Ll}+ed\s)/gu, lead: "", shared: true },
  { re: /,\s+but\s+/g, lead: "But " },
  { re: /,\s+so\s+/g, lead: "So " },
  { re: /,\s+yet\s+/g, lead: "Yet " },
  { re: /,\s+which\s+/g, lead: "This " },
  { re: /,?\s+so\s+that\s+/g, lead: "That way, " },
  { re: /,\s+after\s+which\s+/g, lead: "After that, " },
  { re: /,\s+meaning\s+(?:that\s+)?/g, lead: "This means " },
  { re: /\s+but\s+(?=(?:we|they|it|you|he|she|this|there|i|the|our|their)\s)/gi, lead: "But " },
  { re: /\s+because\s+/g, lead: "This is because " },
  { re: /\s+and\s+(?=(?:we|they|it|you|he|she|this|there|i)\s)/gi, lead: "" },
  {
    re: /,\s+(?=(?:we|they|it|you|he|she|this|that|these|those|the|our|their|its|there|i|most|many|some)\s)/gi,
    lead: "",
  },
];

/** Words that open a dependent clause: a half starting with one is not a sentence alone. */
const SUBORDINATE =
  /^(?:when|if|because|although|though|while|since|after|before|as|unless|once|until|whether|whereas|even|which|who|that|and|or|but)\b/i;

/** The spans of a sentence inside quotation marks or brackets, where no joint is taken. */
function protectedSpans(sentence: string): [number, number][] {
  return [...sentence.matchAll(/“[^”]*”|"[^"]*"|\([^)]*\)|\[[^\]]*\]/g)].map((m) => [
    m.index ?? 0,
    (m.index ?? 0) + m[0].length,
  ]);
}

/** Every joint of a sentence outside quotations and brackets. */
function jointsOf(sentence: string): Joint[] {
  const spans = protectedSpans(sentence);
  const inside = (i: number) => spans.some(([a, b]) => i >= a && i < b);
  const out: Joint[] = [];
  for (const { re, lead, shared } of JOINTS)
    for (const m of sentence.matchAll(re)) {
      const end = m.index ?? 0;
      if (!inside(end) && !out.some((j) => j.end === end)) out.push({ end, start: end + m[0].length, lead, shared });
    }
  return out;
}

/** Pronouns a second half may start with as they are. */
const PRONOUN = /^(?:we|i|you|they|he|she|it)$/i;

/** Words that open a phrase before a subject ("In 2025, …", "Within three months …"): no subject to repeat. */
const PREPOSITION =
  /^(?:in|on|at|by|for|from|with|within|after|before|during|since|until|over|under|across|between|of|to|as|when|if)$/i;

/**
 * The subject a second half without one takes: the first half's, when it is a pronoun or a short noun phrase that
 * starts it ("Halden Systems"), else "They" or "It" by whether its last word reads as plural.
 */
function subjectFor(first: string, verbs: [number, number][]): string {
  const verbAt = verbs.find(([a]) => a > 0)?.[0] ?? -1;
  const before = verbAt > 0 ? first.slice(0, verbAt).trim() : "";
  const words = before.split(/\s+/).filter(Boolean);
  if (words.length === 1 && PRONOUN.test(words[0])) return words[0] === "i" ? "I" : capitalFirst(words[0]);
  if (words.length > 0 && words.length <= 3 && !PREPOSITION.test(words[0]) && !/[,;:]/.test(before)) return before;
  // After a leading phrase ("In February 2025 Halden Systems"), a name that ends it is the subject.
  const name = /(?:^|\s)((?:\p{Lu}[\p{L}'’-]*\s+){0,2}\p{Lu}[\p{L}'’-]*)$/u.exec(before)?.[1];
  if (name && PREPOSITION.test(words[0]) && !before.startsWith(name)) return name;
  const last = words[words.length - 1] ?? "";
  return /[^s]s$/i.test(last) ? "They" : "It";
}

function capitalFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The second half as a sentence: its lead, or the first half's subject when it starts on a verb, or itself. */
function secondHalf(sentence: string, joint: Joint, rest: string): string | null {
  if (joint.lead) return `${joint.lead}${rest}`;
  if (joint.shared) {
    const verbs = verbSpans(sentence);
    const startsOnVerb = verbs.some(([a]) => a === joint.start || a === joint.start + (/^then\s/.test(rest) ? 5 : 0));
    if (startsOnVerb) {
      const first = sentence.slice(0, joint.end);
      // A passive's second participle keeps its auxiliary: "It was reopened", not "It reopened".
      const passive = /\b(was|were|is|are)\s+\p{L}+(?:ed|en|wn|ne)\b/iu.exec(first);
      const aux = passive && /^\p{Ll}+ed\s/u.test(rest) ? `${passive[1].toLowerCase()} ` : "";
      return `${subjectFor(first, verbs)} ${aux}${rest}`;
    }
  }
  return capitalFirst(rest);
}

/** The two sentences a joint makes, or null when either would not stand alone. */
function halves(sentence: string, joint: Joint): [string, string] | null {
  const first = `${sentence.slice(0, joint.end).replace(/[,;:\s]+$/, "")}.`;
  const rest = sentence.slice(joint.start).trim();
  const second = secondHalf(sentence, joint, rest);
  if (second === null) return null;
  if (sentenceWords(first) < 3 || sentenceWords(rest) < 3) return null;
  if (SUBORDINATE.test(first) || (!joint.lead && SUBORDINATE.test(rest))) return null;
  if (!/[.!?]["”’)]*$/.test(second)) return null;
  return withVerb(first) && withVerb(second) ? [first, second] : null;
}

/** How far from even a split leaves its halves: the longer half's words. */
function balance(sentence: string, joint: Joint): number {
  return Math.max(sentenceWords(sentence.slice(0, joint.end)), sentenceWords(sentence.slice(joint.start)));
}

/** The most joints whose halves are parsed alone: each try parses both. */
const MAX_TRIES = 3;

/** Finite forms compromise always reads as verbs: a half holding one has a verb without a parse. */
const SURE_VERB =
  /\b(?:is|are|was|were|has|had|does|did|isn['’]t|aren['’]t|wasn['’]t|weren['’]t|hasn['’]t|doesn['’]t|didn['’]t|don['’]t)\b/i;

/** Whether a sentence has a verb, parsing it only when no sure verb shows. */
function withVerb(sentence: string): boolean {
  return SURE_VERB.test(sentence) || hasVerb(sentence);
}

/**
 * A sentence split in two at its most even joint that leaves two sentences, or null. With several joints, one parse
 * of the whole sentence says which leave a verb on each side; only those halves are then checked alone.
 */
function splitOnce(sentence: string): [string, string] | null {
  let joints = jointsOf(sentence);
  if (joints.length === 0) return null;
  if (joints.length > 1) {
    const verbs = verbSpans(sentence);
    const verbIn = (from: number, to: number) => verbs.some(([a, b]) => a >= from && b <= to);
    joints = joints.filter((j) => verbIn(0, j.end) && (j.lead !== "" || verbIn(j.start, sentence.length)));
  }
  joints.sort((a, b) => balance(sentence, a) - balance(sentence, b));
  for (const joint of joints.slice(0, MAX_TRIES)) {
    const made = halves(sentence, joint);
    if (made) return made;
  }
  return null;
}

/** A name and the clause or title set off after it: "Priya Raman, who leads the group, counted …". */
const APPOSITIVE =
  /^((?:\p{Lu}[\p{L}'’-]*\s+){0,3}\p{Lu}[\p{L}'’-]*),\s+(who\s+[^,“"]+|(?:our|the|their|its|a|an)\s+[^,“"]+),\s+(\p{Ll}[\s\S]*)$/u;

/**
 * A sentence whose subject is a name with a clause or a title beside it, as two sentences that each name it: "Priya
 * Raman leads the group. Priya Raman counted …" (a pronoun would have to guess the person's).
 */
function splitAppositive(sentence: string): [string, string] | null {
  const m = APPOSITIVE.exec(sentence.trim());
  if (!m) return null;
  const [, name, aside, rest] = m;
  const about = aside.startsWith("who ") ? `${name} ${aside.slice(4)}.` : `${name} is ${aside}.`;
  const second = `${name} ${rest}`;
  if (sentenceWords(aside) < 2 || !withVerb(about) || !withVerb(second)) return null;
  return [about, second];
}

/**
 * A sentence as sentences of at most `max` words, split at natural joints; `whole` is true when every piece is
 * within the limit, false when some piece had no joint to split at (it is kept as it was).
 */
export function splitToLimit(sentence: string, max: number): { sentences: string[]; whole: boolean } {
  const words = sentenceWords(sentence);
  if (words <= max) return { sentences: [sentence], whole: true };
  // A sentence three times the limit would need three clean joints or more; it is not parsed to find they are lacking.
  if (words > max * 3) return { sentences: [sentence], whole: false };
  // A question split in two reads as a statement and a question: it stays whole.
  const made = sentence.trim().endsWith("?") ? null : (splitAppositive(sentence) ?? splitOnce(sentence));
  if (!made) return { sentences: [sentence], whole: false };
  const a = splitToLimit(made[0], max);
  const b = splitToLimit(made[1], max);
  return { sentences: [...a.sentences, ...b.sentences], whole: a.whole && b.whole };
}
