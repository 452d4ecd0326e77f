/** Small language tools the builtin engine and learning analysis share: terms, stop words, a seeded PRNG. */

/** English function words that carry no topic. */
export const STOP_WORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between " +
    "both but by can could did do does doing down during each few for from further had has have having he her here " +
    "hers herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of " +
    "off on once only or other our ours ourselves out over own please same she should so some such than that the " +
    "their theirs them themselves then there these they this those through to too under until up very was we were " +
    "what when where which while who whom why will with would you your yours yourself yourselves write writing " +
    "create draft make produce generate post article piece blog content short long give need want using use"
  ).split(" "),
);

/** Lower-case word tokens (letters, digits, inner apostrophes and hyphens). */
export function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** A crude stem so that "teams" matches "team" and "planning" matches "plan". */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  return word.replace(/(?:ing|ed|ies|es|s|ly)$/, (m) => (m === "ies" ? "y" : "")).replace(/(.)\1$/, "$1");
}

/** Content terms of a text: stemmed tokens without stop words. */
export function terms(text: string): string[] {
  return tokens(text)
    .filter((t) => !STOP_WORDS.has(t) && t.length > 1)
    .map(stem);
}

/** 32-bit FNV-1a hash of a string, for seeds. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A deterministic PRNG (mulberry32) with helpers. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

/** Upper-cases the first letter. */
export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Title Case for headlines (short function words stay lower-case inside). */
export function titleCase(text: string): string {
  const small = new Set([
    "a",
    "an",
    "and",
    "as",
    "at",
    "but",
    "by",
    "for",
    "in",
    "of",
    "on",
    "or",
    "the",
    "to",
    "with",
  ]);
  return text
    .split(/\s+/)
    .map((w, i) => (i > 0 && small.has(w.toLowerCase()) ? w.toLowerCase() : /^[a-z]/.test(w) ? capitalise(w) : w))
    .join(" ");
}

/** Ensures a sentence ends with terminal punctuation. */
export function endSentence(text: string): string {
  const t = text.trim();
  return /[.!?:]["')\]]?$/.test(t) ? t : `${t}.`;
}

/**
 * Words a sentence cannot end on: one ending so was cut short ("… decision logs when."). writing-checks.ts counts
 * such sentences, and a learned substitution is not applied where it would leave one (voice.ts).
 */
export const DANGLING_WORDS: ReadonlySet<string> = new Set(
  "a an the and or but of to for with from when if that which our their your its is are".split(" "),
);

/** Words in a text. */
export function wordCount(text: string): number {
  return tokens(text).length;
}
