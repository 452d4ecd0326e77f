/**
 * A title made up from a text's first words, for a record sent without one: a memory (DESIGN §10, the defaults a
 * newcomer can leave out).
 */
import { charLength } from "../runtime/chars.js";

/** The most words and characters such a title holds (the "…" that marks a cut aside). */
export const FIRST_WORDS = { words: 8, chars: 80 } as const;

/**
 * The text's first words, whitespace collapsed: at most FIRST_WORDS.words words and FIRST_WORDS.chars characters,
 * cut between words (a first word longer than that is cut inside it), and when cut, without the punctuation before
 * the cut and with "…" after it. A name the reader recognizes the note by, never longer than a title may be
 * (test/routes/memories.test.ts "titles a memory sent without one").
 */
export function firstWords(text: string): string {
  const words = text.split(/\s+/).filter((w) => w !== "");
  let title = "";
  let taken = 0;
  for (const word of words) {
    const next = taken === 0 ? word : `${title} ${word}`;
    if (taken === FIRST_WORDS.words || charLength(next) > FIRST_WORDS.chars) break;
    title = next;
    taken++;
  }
  if (taken === words.length) return title;
  // By code points: a cut through an emoji would leave half of it.
  const cut = taken === 0 ? [...words[0]].slice(0, FIRST_WORDS.chars).join("") : title;
  return `${cut.replace(/[,;:.!?-]+$/, "") || cut}…`;
}
