/**
 * Stock filler: phrases an editor deletes on sight because they say nothing about the subject ("In today's
 * fast-paced world", "The practical upshot"). One list, read by the scorer (scoring's prose component), the writing
 * benchmark and the writer's tests, so that what the writer must not write and what the scorer penalises agree.
 */

/**
 * The filler phrases, lower case. "…" stands for a few words of any subject ("that is why … keeps coming up");
 * a leading "^" matches only at the start of a sentence, where a connective is padding ("Notably, …").
 */
export const FILLER_PHRASES: readonly string[] = [
  "in today's fast-paced world",
  "in today's digital age",
  "in this day and age",
  "matters more than ever",
  "has become a priority for every team",
  "is now a practical concern for most organisations",
  "is no longer optional",
  "is not on your list yet",
  "deserves a clear explanation",
  "here is what you need to know",
  "is where the excitement is",
  "is having a moment",
  "let's talk about",
  "one thing stands out",
  "deserves a closer look",
  "another part of the picture",
  "move faster with less guesswork",
  "instead of starting from scratch",
  "the practical upshot",
  "that is why … keeps coming up",
  "getting this right early saves effort",
  "tend to compound over time",
  "what good looks like",
  "treat … as a habit, not a project",
  "none of this requires",
  "keeps the approach honest",
  "is enough to see whether it works",
  "will not be perfect, and that is fine",
  "makes the next round easier",
  "prevents the same discussion from happening twice",
  "this means you can",
  "start small",
  "build on what works",
  "comes down to",
  "let me know how it goes",
  "is a week of lost ground",
  "happen together",
  "at the end of the day",
  "game-changer",
  "game changer",
  "it is worth noting",
  "it's worth noting",
  "needless to say",
  "in a nutshell",
  "when it comes to",
  "take it to the next level",
  "unlock the power of",
  "harness the power of",
  "a testament to",
  "the bottom line is",
  "move the needle",
  "best-in-class",
  "paradigm shift",
  "^what is more,",
  "^notably,",
  "^importantly,",
  "^in fact,",
  "^in short,",
];

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Space between words of one sentence: the sentences are matched together, one a line. */
const SPACE = "[^\\S\\n]+";

/** A phrase as a pattern: whole words, any apostrophe, "…" a gap of one to eight words within the sentence. */
function patternOf(phrase: string): RegExp {
  const atStart = phrase.startsWith("^");
  const body = (atStart ? phrase.slice(1) : phrase)
    .split("…")
    .map((part) => escapeRegex(part.trim()).replace(/'/g, "['’]").replace(/ /g, SPACE))
    .join(`${SPACE}(?:[^\\s.!?]+${SPACE}){0,7}?[^\\s.!?]+${SPACE}`);
  const end = /[\p{L}\p{N}]$/u.test(phrase) ? "(?![\\p{L}\\p{N}])" : "";
  return new RegExp(`${atStart ? "^[^\\S\\n]*" : "(?<![\\p{L}\\p{N}])"}${body}${end}`, "gimu");
}

const PATTERNS = FILLER_PHRASES.map((phrase) => ({ phrase, pattern: patternOf(phrase) }));

/** The filler phrases the sentences hold, with how often, in the list's order. */
export function fillerIn(sentences: readonly string[]): { phrase: string; count: number }[] {
  const out: { phrase: string; count: number }[] = [];
  // One line a sentence, so that each pattern runs once over the text and never across two sentences.
  const lines = sentences.map((s) => s.replace(/\s+/g, " ")).join("\n");
  for (const { phrase, pattern } of PATTERNS) {
    const count = lines.match(pattern)?.length ?? 0;
    if (count > 0) out.push({ phrase, count });
  }
  return out;
}
