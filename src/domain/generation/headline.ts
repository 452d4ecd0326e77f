/**
 * A piece's title from its direction: a headline in Title Case (an article, a page, a release) or a subject line
 * in sentence case (an email). It restates the direction whole, in the form its angle takes ("Why …", "How to …",
 * "Introducing …", "What … Taught Us"), never a template slot around a cut-off part of it.
 */
import type { Direction } from "./direction.js";
import { capitalise, type Rng } from "./language.js";

/** Words a headline keeps lower-case inside it. */
const SMALL = new Set("a an and as at but by for from in into nor of on or per the to vs via with".split(" "));

/** Title Case: every word capitalised but small words inside; words with capitals or digits kept as written. */
export function headlineCase(text: string): string {
  const words = text.split(/\s+/);
  return words
    .map((w, i) => {
      const afterColon = i > 0 && /[:—–]$/.test(words[i - 1]);
      if (i > 0 && !afterColon && i < words.length - 1 && SMALL.has(w.toLowerCase())) return w.toLowerCase();
      if (/\p{Lu}|\p{N}/u.test(w)) return w;
      // The first letter, after any opening quotation mark or bracket.
      return w
        .split("-")
        .map((part) => part.replace(/^(\P{L}*)(\p{L})/u, (_, lead: string, c: string) => lead + c.toUpperCase()))
        .join("-");
    })
    .join(" ");
}

/** The headline's words, before casing, by the direction's angle. */
function headlinePhrase(d: Direction, rng: Rng): string {
  switch (d.kind) {
    case "why":
    case "how":
    case "what":
      return d.claim ? `${d.kind} ${d.claim}` : d.text;
    case "howto":
      return `how to ${d.action}`;
    case "lesson":
      return rng.next() < 0.5 ? `what ${d.subject} taught us` : `lessons from ${d.subject}`;
    case "announce": {
      const lead = rng.next() < 0.5 ? "introducing" : "announcing";
      if (d.claim?.startsWith(`${d.subject} `))
        return `${lead} ${d.subject} that ${d.claim.slice(d.subject.length + 1)}`;
      return d.details ? `${lead} ${d.subject}: ${d.details}` : `${lead} ${d.subject}`;
    }
    default:
      // A question ("What is RAG") is its own headline.
      if (/^(?:why|how|what|when|where|who|which)\b/i.test(d.text)) return d.text;
      return d.details ? `${d.subject}: ${d.details}` : d.subject;
  }
}

/** The title of a piece: a headline, or an email's subject line (sentence case, no end punctuation). */
export function titleOf(d: Direction, role: "headline" | "subject", rng: Rng): string {
  const phrase = headlinePhrase(d, rng).replace(/[.!?]+$/, "");
  if (role === "subject") return capitalise(phrase);
  return headlineCase(phrase);
}
