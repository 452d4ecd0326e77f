/** Readability figures: Flesch reading ease and Flesch–Kincaid grade from sentence, word and syllable counts. */
import { tokens } from "./generation/language.js";
import { splitSentences } from "./text.js";

/** Syllables of an English word, by vowel groups with the usual corrections (silent e, -le, -ed). */
export function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, "");
  if (w.length === 0) return 0;
  if (w.length <= 3) return 1;
  const trimmed = w.replace(/(?:[^laeiouy]es|[^laeiouy]ed|[^laeiouy]e)$/, "").replace(/^y/, "");
  const groups = trimmed.match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups ? groups.length : 1);
}

/** The counts and scores of a text. */
export interface Readability {
  sentences: number;
  words: number;
  syllables: number;
  average_sentence_words: number;
  flesch_reading_ease: number;
  flesch_kincaid_grade: number;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Computes the readability of a text; an empty text scores zeros. */
export function readability(text: string): Readability {
  const sentences = splitSentences(text).filter((s) => tokens(s).length > 0);
  const words = tokens(text);
  const syl = words.reduce((sum, w) => sum + syllables(w), 0);
  if (words.length === 0 || sentences.length === 0)
    return {
      sentences: 0,
      words: 0,
      syllables: 0,
      average_sentence_words: 0,
      flesch_reading_ease: 0,
      flesch_kincaid_grade: 0,
    };
  const wps = words.length / sentences.length;
  const spw = syl / words.length;
  return {
    sentences: sentences.length,
    words: words.length,
    syllables: syl,
    average_sentence_words: round(wps),
    flesch_reading_ease: round(206.835 - 1.015 * wps - 84.6 * spw),
    flesch_kincaid_grade: round(0.39 * wps + 11.8 * spw - 15.59),
  };
}
