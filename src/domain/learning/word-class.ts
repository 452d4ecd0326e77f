/**
 * The part of speech of a changed word in its sentence, through the language library (generation/nlp.ts): a
 * replacement that turns a noun into a verb or a conjunction is the change of a clause, not of a word choice. It runs
 * in the background analysis, on a few words around the change, never on the generation path.
 */
import { parse } from "../generation/nlp.js";

/** The classes compared: a replacement keeps its class. */
export type WordClass = "noun" | "verb" | "adjective" | "adverb" | "other";

interface Term {
  text: string;
  tags: string[];
}

function classOf(tags: string[]): WordClass {
  if (tags.includes("Verb")) return "verb";
  if (tags.includes("Noun")) return "noun";
  if (tags.includes("Adjective")) return "adjective";
  if (tags.includes("Adverb")) return "adverb";
  return "other";
}

/** The class of each word of a short text (words as align.ts cuts them: "fast-paced" and "let's" are one each). */
export function wordClasses(text: string): WordClass[] {
  const json = parse(text).json({ terms: { tags: true } }) as { terms: Term[] }[];
  const terms = json.flatMap((s) => s.terms).filter((t) => t.text !== "");
  const words = text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  const out: WordClass[] = [];
  let t = 0;
  for (const w of words) {
    const target = w.toLowerCase().replace(/['’-]/g, "");
    let seen = "";
    const tags: string[] = [];
    while (t < terms.length && seen.length < target.length) {
      seen += terms[t].text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
      tags.push(...terms[t].tags);
      t++;
    }
    out.push(classOf(tags));
  }
  return out;
}
