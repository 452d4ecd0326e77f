/**
 * Splitting a long sentence at its natural joints (";", ", and", ", but", ", which", " because ", a comma before a
 * new clause) into sentences within a word limit. A split is made only where both halves are sentences of their
 * own (each has a verb, the first is not a dependent clause); a sentence with no such joint stays whole: cutting it
 * mid-phrase would break it.
 */
import { hasVerb, verbSpans } from "./nlp.js";

/** The words of a sentence as a reader counts them: what stands between spaces and holds a letter or digit. */
export function sentenceWords(sentence: string): number {
  return sentence.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/** A place a sentence may be split, and how the second half then starts. */
interface Joint {
  /** Where the first half ends. */
  end: number;
  /** Where the second half's own words start. */
  start: number;
  /** What the second half starts with ("But", "This"), or "" for its own first word. */
  lead: string;
}

/** Joints and the word the second half starts with; the regexes match the joint itself. */
const JOINTS: { re: RegExp; lead: string }[] = [
  { re: /;\s+/g, lead: "" },
  { re: /:\s+(?=\p{L})/gu, lead: "" },
  { re: /\s+[—–]\s+/g, lead: "" },
  { re: /,\s+and\s+/g, lead: "" },
  { re: /,\s+but\s+/g, lead: "But " },
  { re: /,\s+so\s+/g, lead: "So " },
  { re: /,\s+yet\s+/g, lead: "Yet " },
  { re: /,\s+which\s+/g, lead: "This " },
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
  for (const { re, lead } of JOINTS)
    for (const m of sentence.matchAll(re)) {
      const end = m.index ?? 0;
      if (!inside(end) && !out.some((j) => j.end === end)) out.push({ end, start: end + m[0].length, lead });
    }
  return out;
}

/** The two sentences a joint makes, or null when either would not stand alone. */
function halves(sentence: string, joint: Joint): [string, string] | null {
  const first = `${sentence.slice(0, joint.end).replace(/[,;:\s]+$/, "")}.`;
  const rest = sentence.slice(joint.start).trim();
  const second = joint.lead ? `${joint.lead}${rest}` : rest.charAt(0).toUpperCase() + rest.slice(1);
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

/**
 * A sentence as sentences of at most `max` words, split at natural joints; `whole` is true when every piece is
 * within the limit, false when some piece had no joint to split at (it is kept as it was).
 */
export function splitToLimit(sentence: string, max: number): { sentences: string[]; whole: boolean } {
  if (sentenceWords(sentence) <= max) return { sentences: [sentence], whole: true };
  // A question split in two reads as a statement and a question: it stays whole.
  const made = sentence.trim().endsWith("?") ? null : splitOnce(sentence);
  if (!made) return { sentences: [sentence], whole: false };
  const a = splitToLimit(made[0], max);
  const b = splitToLimit(made[1], max);
  return { sentences: [...a.sentences, ...b.sentences], whole: a.whole && b.whole };
}
