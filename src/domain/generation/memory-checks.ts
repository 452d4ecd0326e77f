/**
 * Whether a text did what its memories say, counted the same way by the writer's tests and the writing benchmark:
 * the voice rules it breaks, and the runs of a context memory's words pasted into it outside quotations.
 */
import { pastedRuns } from "../writing-checks.js";
import { sentenceWords } from "./sentence-split.js";
import type { VoiceRules } from "./voice-memory.js";

/** One way a text breaks a voice rule, with the sentence that breaks it. */
export interface VoiceBreach {
  rule: "length" | "avoid" | "prefer" | "exclamations" | "contractions";
  sentence: string;
  detail: string;
}

/** A sentence without its quotations: a quoted passage keeps its own words and is no breach. */
function unquoted(sentence: string): string {
  return sentence.replace(/“[^”]*”|"[^"]*"/g, " ");
}

function hasWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+");
  return new RegExp(`(?<![\\p{L}\\p{N}'’-])${escaped}(?![\\p{L}\\p{N}'’-])`, "iu").test(text);
}

/** Contractions, and the long forms a text that uses contractions would have contracted. */
const CONTRACTED = /\b\p{L}+n['’]t\b|\b(?:it|that|there|here|what|we|you|they|i)['’](?:s|re|ll|m|ve|d)\b/iu;
const LONG_FORM = /\b(?:do|does|did|is|are|was|were) not\b/i;

/** The voice rules a text's prose sentences break (see VoiceBreach); [] when it follows them all. */
export function voiceBreaches(sentences: string[], rules: VoiceRules): VoiceBreach[] {
  const out: VoiceBreach[] = [];
  for (const sentence of sentences) {
    const own = unquoted(sentence);
    const words = sentenceWords(sentence);
    if (rules.maxSentenceWords !== null && words > rules.maxSentenceWords)
      out.push({ rule: "length", sentence, detail: `${words} words` });
    for (const w of rules.avoid) if (hasWord(own, w)) out.push({ rule: "avoid", sentence, detail: w });
    for (const p of rules.prefer) if (hasWord(own, p.from)) out.push({ rule: "prefer", sentence, detail: p.from });
    if (rules.exclamations === false && own.includes("!")) out.push({ rule: "exclamations", sentence, detail: "!" });
    const contraction = rules.contractions === false ? CONTRACTED.exec(own) : null;
    const long = rules.contractions === true ? LONG_FORM.exec(own) : null;
    if (contraction ?? long) out.push({ rule: "contractions", sentence, detail: (contraction ?? long)?.[0] ?? "" });
  }
  return out;
}

/** Runs of `n` or more of a context memory's words that a text holds outside its quotations (a pasted memory). */
export function pastedOutsideQuotes(memory: string, text: string, n = 8): string[] {
  return pastedRuns(memory, unquoted(text), n);
}
