/**
 * The word-level rewrites a voice memory asks for, each keeping a sentence grammatical: contractions made or
 * written out, exclamation marks made full stops, the reader addressed as "you" or the writer speaking as "we".
 * Each works on the text outside quotations only: a quoted passage keeps its exact words.
 */

/** Applies `rewrite` to the parts of a sentence outside quotation marks (“…”, "…"). */
export function outsideQuotes(sentence: string, rewrite: (part: string) => string): string {
  const parts = sentence.split(/(“[^”]*”|"[^"]*")/);
  return parts.map((part, i) => (i % 2 === 1 ? part : rewrite(part))).join("");
}

/** The replacement in the case of what it replaces (Do not → Don't, DO NOT → DON'T). */
export function inCaseOf(found: string, replacement: string): string {
  if (found.length > 1 && found === found.toUpperCase() && /\p{L}{2}/u.test(found)) return replacement.toUpperCase();
  if (found[0] !== found[0].toLowerCase()) return replacement.charAt(0).toUpperCase() + replacement.slice(1);
  return replacement;
}

const A = "['’]";

/** Negations and their contractions. */
const NEGATIONS: [string, string][] = [
  ["do not", "don't"],
  ["does not", "doesn't"],
  ["did not", "didn't"],
  ["is not", "isn't"],
  ["are not", "aren't"],
  ["was not", "wasn't"],
  ["were not", "weren't"],
  ["have not", "haven't"],
  ["has not", "hasn't"],
  ["had not", "hadn't"],
  ["will not", "won't"],
  ["would not", "wouldn't"],
  ["should not", "shouldn't"],
  ["could not", "couldn't"],
  ["must not", "mustn't"],
  ["cannot", "can't"],
  ["can not", "can't"],
];

/** A pronoun and its verb, contracted only before another word: "it is" ends no clause as "it's". */
const PRONOUN_VERBS: [string, string][] = [
  ["it is", "it's"],
  ["that is", "that's"],
  ["there is", "there's"],
  ["here is", "here's"],
  ["what is", "what's"],
  ["we are", "we're"],
  ["you are", "you're"],
  ["they are", "they're"],
  ["we will", "we'll"],
  ["you will", "you'll"],
  ["they will", "they'll"],
  ["i am", "I'm"],
  ["i will", "I'll"],
];

/** The text with its negations and pronoun-verb pairs contracted ("do not" → "don't", "it is" → "it's"). */
export function contract(text: string): string {
  let out = text;
  for (const [long, short] of NEGATIONS)
    out = out.replace(new RegExp(`\\b${long.replace(" ", "\\s+")}\\b`, "gi"), (m) => inCaseOf(m, short));
  for (const [long, short] of PRONOUN_VERBS)
    out = out.replace(new RegExp(`\\b${long.replace(" ", "\\s+")}(?=\\s+[\\p{L}\\p{N}])`, "giu"), (m) =>
      inCaseOf(m, short),
    );
  return out;
}

/** Contractions whose long form is one fixed phrase. */
const FIXED_EXPANSIONS: [RegExp, string][] = [
  [new RegExp(`\\bwon${A}t\\b`, "gi"), "will not"],
  [new RegExp(`\\bcan${A}t\\b`, "gi"), "cannot"],
  [new RegExp(`\\bshan${A}t\\b`, "gi"), "shall not"],
  [new RegExp(`\\blet${A}s\\b`, "gi"), "let us"],
  [new RegExp(`\\bi${A}m\\b`, "gi"), "I am"],
];

/** Words after which "'s" and "'d" stand for "has" and "had", not "is" and "would". */
const PERFECT = /^(?:been|got|gotten|had|done|made|seen|taken|given|become|gone|[a-z]+ed)$/i;

/** The text with its contractions written out ("don't" → "do not", "it's been" → "it has been"). */
export function expand(text: string): string {
  let out = text;
  for (const [re, long] of FIXED_EXPANSIONS) out = out.replace(re, (m) => inCaseOf(m, long));
  out = out.replace(new RegExp(`\\b(\\p{L}+)n${A}t\\b`, "giu"), (_m, verb: string) => `${verb} not`);
  out = out.replace(new RegExp(`\\b(\\p{L}+)${A}(re|ll|ve)\\b`, "giu"), (_m, word: string, end: string) => {
    const long = { re: "are", ll: "will", ve: "have" }[end.toLowerCase() as "re" | "ll" | "ve"];
    return `${word} ${word === word.toUpperCase() && word.length > 1 ? long.toUpperCase() : long}`;
  });
  const pronounS = new RegExp(`\\b(it|that|there|here|what|who|he|she|where|how)${A}([sd])\\b(\\s+(\\p{L}+))?`, "giu");
  out = out.replace(pronounS, (_m, word: string, end: string, rest = "", next = "") => {
    const perfect = PERFECT.test(next);
    const long = end.toLowerCase() === "s" ? (perfect ? "has" : "is") : perfect ? "had" : "would";
    return `${word} ${long}${rest}`;
  });
  return out.replace(
    new RegExp(`\\b(we|you|they|i)${A}d\\b(\\s+(\\p{L}+))?`, "giu"),
    (_m, w, rest = "", next = "") => `${w === "i" ? "I" : w} ${PERFECT.test(next) ? "had" : "would"}${rest}`,
  );
}

/** The text without exclamation marks: one that ends a sentence becomes a full stop, "?!" a question mark. */
export function withoutExclamations(text: string): string {
  return text
    .replace(/\?!+|!+\?/g, "?")
    .replace(/!+(?=\s+\p{Ll})/gu, ",")
    .replace(/!+/g, ".");
}

/** Agreement after "you" ("you is" → "you are"), whatever wrote the "you". */
export function youAgreement(text: string): string {
  const fixes: Record<string, string> = {
    is: "are",
    was: "were",
    has: "have",
    does: "do",
    "isn't": "aren't",
    "wasn't": "weren't",
    "hasn't": "haven't",
    "doesn't": "don't",
  };
  return text.replace(/\b(you)\s+(is|was|has|does|isn['’]t|wasn['’]t|hasn['’]t|doesn['’]t)\b/gi, (_m, you, verb) => {
    const fixed = fixes[verb.toLowerCase().replace("’", "'")];
    return `${you} ${inCaseOf(verb, fixed)}`;
  });
}

/** The plural nouns a text addresses its readers by. */
const READERS = "(?:users|readers|customers|visitors|subscribers|buyers|clients|members)";

/** Words after which a reader noun is the object of a verb or preposition: "you" takes its place as is. */
const OBJECT_OF = "(?:lets|let|helps|help|gives|give|shows|show|tells|tell|asks|ask|invites|invite|for|to|with)";

/**
 * The text addressing its readers as "you" where that is safe: a plural reader noun that starts a clause and is
 * followed by a verb ("Users can export" → "You can export": a plural verb agrees with "you"), unless a "they" or
 * "them" in the sentence may point back at it; one that is the object of a verb or preposition ("helps users" →
 * "helps you") unless a phrase qualifies it ("to users who …"); and a plural possessive ("customers' data" → "your
 * data"). A number before the noun ("10,000 users") makes it a fact, left whole; "their" then follows the "you".
 */
export function addressReader(text: string, isVerb: (word: string) => boolean): string {
  // "They" or "them" in the sentence may point back at the readers: "you" then would leave it pointing nowhere.
  const pointsBack = /\b(?:they|them|themselves)\b|\bthey['’]/i.test(text);
  let out = pointsBack
    ? text
    : text.replace(
        new RegExp(
          `(^|[,;:]\\s+|\\b(?:that|so|when|if|because|and|but|where|while)\\s+)(?:(?:the|all)\\s+)?${READERS}\\b(?![’'])(\\s+)(\\p{L}+)`,
          "giu",
        ),
        (m, lead: string, gap: string, next: string) => {
          if (!isVerb(next)) return m;
          const you = lead === "" ? "You" : "you";
          return `${lead}${you}${gap}${next}`;
        },
      );
  out = out.replace(
    new RegExp(
      `\\b${OBJECT_OF}\\s+(?:(?:the|our|your)\\s+)?${READERS}\\b(?![’'])(?!\\s+(?:who|that|of|in|at|with|from|on|across|like|such)\\b)`,
      "giu",
    ),
    (m) => m.replace(new RegExp(`\\s+(?:(?:the|our|your)\\s+)?${READERS}$`, "iu"), " you"),
  );
  out = out.replace(new RegExp(`\\b(?:(?:the|our)\\s+)?${READERS}['’](?=\\s)`, "giu"), (m) => inCaseOf(m, "your"));
  if (/\byou\b/i.test(out) && !/\byou\b/i.test(text))
    out = out.replace(/\btheir\b/gi, (m) => inCaseOf(m, "your")).replace(/\bthemselves\b/gi, "yourselves");
  return youAgreement(out);
}

/** First person singular and its plural. */
const WE: [RegExp, string][] = [
  [/\bI am\b/g, "we are"],
  [/\bI was\b/g, "we were"],
  [/\bI['’]m\b/g, "we're"],
  [/\bI['’]ve\b/g, "we've"],
  [/\bI['’]ll\b/g, "we'll"],
  [/\bI['’]d\b/g, "we'd"],
  [/\bI\b/g, "we"],
  [/\bmy\b/gi, "our"],
  [/\bmine\b/gi, "ours"],
  [/\bmyself\b/gi, "ourselves"],
  [/\bme\b/gi, "us"],
];

/** The text with the writer speaking as "we" ("I think my team" → "we think our team"), verbs agreeing. */
export function speakAsWe(text: string): string {
  let out = text;
  for (const [re, plural] of WE)
    out = out.replace(re, (m: string, offset: number) => {
      if (offset === 0 || /[.!?]\s+$/.test(out.slice(0, offset))) return inCaseOf("W", plural);
      return m.startsWith("I") ? plural : inCaseOf(m, plural);
    });
  return out;
}
