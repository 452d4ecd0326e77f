/**
 * The rules a voice memory states in ordinary wording ("keep sentences below 15 words", "never say synergy", "say
 * 'use' instead of 'utilize'", "address the reader as you", "no exclamation marks", "use contractions", "a warm and
 * direct tone", "sign off as Dana from Acme"), read into a VoiceRules the writer and the on-prem model's finish
 * follow. A sentence that states none of these is ignored here; the memory's whole text still reaches the model.
 */
import { splitSentences } from "../text.js";
import { parse } from "./nlp.js";

/** What the voice memories of a generation ask of its text. */
export interface VoiceRules {
  /** The most words a sentence may have, or null when no length is asked. */
  maxSentenceWords: number | null;
  /** Words and short phrases never to write, lower-cased. */
  avoid: string[];
  /** Words to write in place of others, lower-cased. */
  prefer: { from: string; to: string }[];
  /** How the reader is addressed: as "you", or the writer speaks as "we". */
  person: "you" | "we" | null;
  /** false: no exclamation marks; true: they are welcome; null: not said. */
  exclamations: boolean | null;
  /** true: write "don't", "it's"; false: write "do not", "it is"; null: not said. */
  contractions: boolean | null;
  /** The tone asked for, in the memory's words ("warm and direct"), or null. */
  tone: string | null;
  /** The sign-off asked for ("Dana from Acme"), or null. */
  signoff: string | null;
}

/** A memory as the generation input carries it. */
export interface MemoryText {
  kind: "voice" | "context";
  content: string;
}

/** Rules that ask nothing. */
export function noVoiceRules(): VoiceRules {
  return {
    maxSentenceWords: null,
    avoid: [],
    prefer: [],
    person: null,
    exclamations: null,
    contractions: null,
    tone: null,
    signoff: null,
  };
}

/**
 * The longest instruction sentence read, in characters: a rule is said in a line, and the patterns below backtrack
 * over a sentence's length (a 20,000-character sentence took about a second of a generation thread).
 */
const MAX_INSTRUCTION_CHARS = 500;

/**
 * The instruction sentences of a memory: its lines (bullets stripped), their sentences, split again at ";", each
 * at most MAX_INSTRUCTION_CHARS.
 */
export function instructionSentences(content: string): string[] {
  return content
    .slice(0, 20_000)
    .split(/\n+/)
    .map((line) => line.replace(/^\s*(?:[-*•>]|\d+[.)])\s*/, "").trim())
    .filter(Boolean)
    .flatMap((line) => splitSentences(line))
    .flatMap((s) => s.split(/;\s+/))
    .map((s) => s.slice(0, MAX_INSTRUCTION_CHARS).trim())
    .filter(Boolean);
}

/** A word that turns an instruction into a prohibition. */
const NEGATION =
  /\b(?:never|no|not|don't|don’t|do not|avoid|avoiding|without|stop|ban|banned|refrain from|steer clear of|skip|cut|drop|nor)\b/i;

/** Quoted words ('leverage', “use”, "synergy"), apostrophes inside words ("don't") left alone. */
const QUOTED = /(?<![\p{L}\p{N}])['‘"“]([^'‘’"“”\n]{1,60}?)['’"”](?![\p{L}\p{N}])/gu;

/** The quoted words of a sentence, in order. */
function quotedIn(sentence: string): { text: string; index: number }[] {
  return [...sentence.matchAll(QUOTED)].map((m) => ({ text: m[1].trim(), index: m.index ?? 0 }));
}

/** How a bound reads against a count: "under 12" allows 11, "at most 12" allows 12. */
const LENGTH_BOUND =
  /\b(under|below|fewer than|less than|no more than|not more than|at most|maximum of|max(?:imum)?|up to|within|over|more than|longer than|not exceed(?:ing)?|to|at)\s+(?:of\s+)?(\S{1,20})\s+words?\b|\b(\S{1,20})\s+words?\s+(?:or\s+(?:fewer|less)|max(?:imum)?|at most|tops)\b|\b(\S{1,20})[- ]words?\s+(?:maximum|limit|cap)\b/i;

/** A number written in digits or, via compromise, in words ("twelve"). */
function numberOf(text: string): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  const found = parse(text).numbers().get() as unknown[];
  const n = typeof found[0] === "number" ? found[0] : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The sentence-length rule of a sentence about sentences ("under 12 words" → 11), or null. */
export function sentenceLimit(sentence: string): number | null {
  if (!/\bsentences?\b/i.test(sentence)) return null;
  const m = LENGTH_BOUND.exec(sentence);
  if (!m) return /\bshort\b[^.]*\bsentences\b|\bsentences (?:short|brief)\b/i.test(sentence) ? 20 : null;
  const bound = m[1]?.toLowerCase();
  const n = numberOf((m[2] ?? m[3] ?? m[4]).replace(/[^\p{L}\p{N}-]/gu, ""));
  if (n === null || n < 3 || n > 80) return null;
  // "over 20 words" bounds a sentence only when forbidden: "no sentence over 20 words", "never longer than 20 words".
  if (bound && /^(?:over|more than|longer than)$/.test(bound) && !NEGATION.test(sentence)) return null;
  // "to 15 words", "at 15 words" bound only after a limit verb: "limit sentences to 15 words", "cap them at 15 words".
  if ((bound === "to" || bound === "at") && !/\b(?:limit|cap|keep|hold|restrict|trim)\b/i.test(sentence)) return null;
  const strict = bound !== undefined && /^(?:under|below|fewer than|less than)$/.test(bound);
  return strict ? n - 1 : n;
}

/** Words naming a kind of word rather than a word: "avoid jargon" says what to avoid, not which word. */
const GENERIC =
  /^(?:jargon|buzzwords?|words?|phrases?|terms?|language|cliches?|clichés?|filler|slang|acronyms?|the|a|an|it|them|this|that|these|those|things?)$/i;

/** Rules read elsewhere: a sentence about these is not about words to avoid. */
const OTHER_RULE =
  /exclamation|contraction|passive|emoji|sentence|paragraph|person|tone|adverbs?\b|adjectives?\b|first name|capital/i;

/** The words listed after a trigger ("like X, Y and Z"), unquoted, at most three words each. */
function listedWords(list: string): string[] {
  return list
    .replace(/[.!?)]+$/, "")
    .split(/\s*(?:,|\band\b|\bor\b|\bnor\b|\/)\s*/i)
    .map((w) =>
      w
        .trim()
        .replace(/^(?:the|a|an)\s+(?:words?|phrases?|terms?)\s+/i, "")
        .replace(/^(?:words?|phrases?|terms?)\s+/i, ""),
    )
    .filter((w) => w && w.split(/\s+/).length <= 3 && !GENERIC.test(w) && /\p{L}/u.test(w));
}

/** Triggers of a prohibition and where its object starts. */
const AVOID_TRIGGER =
  /\b(?:avoid(?:ing)?|never (?:say|use|write)|don['’]t (?:say|use|write)|do not (?:say|use|write)|no more|ban|steer clear of|stay away from|refrain from(?: using)?|cut)\s+(.+)$/i;

/** A list of words to avoid under a label: "Banned words: X, Y", "Words to avoid: X, Y". */
const BANNED_LIST =
  /\b(?:(?:banned|forbidden|blacklisted|blocked)\s+(?:words|phrases|terms)|(?:words|phrases|terms)\s+(?:to avoid|we avoid|we never use|not to use))\s*[:\-–—]\s*(.+)$/i;

/** Words a sentence asks to avoid ("avoid the word 'leverage'", "never say synergy", "no jargon like X, Y"). */
export function avoidedWords(sentence: string): string[] {
  const labelled = BANNED_LIST.test(sentence);
  if ((!NEGATION.test(sentence) && !labelled) || OTHER_RULE.test(sentence) || preferredWords(sentence).length > 0)
    return [];
  const quoted = quotedIn(sentence).map((q) => q.text);
  if (quoted.length > 0) return quoted.map((q) => q.toLowerCase());
  const banned = BANNED_LIST.exec(sentence);
  if (banned) return listedWords(banned[1]).map((w) => w.toLowerCase());
  const examples = /\b(?:like|such as|e\.g\.,?|including|for example,?)\s+(.+)$/i.exec(sentence);
  if (examples) return listedWords(examples[1]).map((w) => w.toLowerCase());
  const named = /\bthe (?:words?|phrases?|terms?)\s+(.+)$/i.exec(sentence) ?? AVOID_TRIGGER.exec(sentence);
  if (!named) return [];
  const words = listedWords(named[1]);
  // Unquoted and unnamed objects are words only when short: "avoid long intros about the market" is advice.
  return words.filter((w) => w.split(/\s+/).length === 1 || named[0].startsWith("the")).map((w) => w.toLowerCase());
}

/** A word or two, unquoted, as a preference names them. */
const WORDS = "([\\p{L}][\\p{L}'’-]*(?:\\s[\\p{L}][\\p{L}'’-]*)?)";

/** Preference shapes with the preferred word first: "say X instead of Y", "prefer X to Y", "X, not Y". */
const TO_FIRST = new RegExp(
  `(?:say|use|write|prefer|choose|pick|call (?:them|it|us)|refer to (?:them|it|us|our \\p{L}+) as|go with)\\s+${WORDS}\\s*,?\\s+(?:instead of|rather than|over|to|and not|not|never|in place of)\\s+${WORDS}`,
  "iu",
);

/** Preference shapes with the replaced word first: "replace X with Y", "instead of X, say Y", "X → Y". */
const FROM_FIRST = new RegExp(
  `(?:replace|swap|change)\\s+${WORDS}\\s+(?:with|for|to|by)\\s+${WORDS}|(?:instead of|rather than|not)\\s+${WORDS}\\s*,\\s*(?:say|use|write)\\s+${WORDS}|${WORDS}\\s*(?:→|->|=>)\\s*${WORDS}`,
  "iu",
);

/** The words between two quoted words that make the first preferred to the second, or replaced by it. */
const PREFERENCE_JOIN = /\b(?:instead of|rather than|over|to|not|never|in place of|with|for|by)\b|→|->|=>/i;

/** Whether the words between two quotes put the preferred word second ("replace 'X' with 'Y'"). */
function replacedFirst(sentence: string, first: { index: number }): boolean {
  const before = sentence.slice(0, first.index);
  return /\b(?:replace|swap|change|instead of|rather than|not)\s*$/i.test(before) || /(?:→|->|=>)/.test(sentence);
}

/** Substitutions a sentence asks for ("say 'use' instead of 'utilize'", "prefer customers to users"). */
export function preferredWords(sentence: string): { from: string; to: string }[] {
  if (!/\b(?:instead|rather|prefer|over|not|never|replace|swap|change|in place of)\b|→|->|=>/i.test(sentence))
    return [];
  if (/\bexclamation|contraction|\bperson\b|\btone\b/i.test(sentence)) return [];
  const quoted = quotedIn(sentence);
  const pair = (from: string, to: string) => ({ from: from.toLowerCase().trim(), to: to.toLowerCase().trim() });
  if (quoted.length >= 2) {
    const [a, b] = quoted;
    // Two quoted words joined by "or", "and" or a comma are a list ("never say 'X' or 'Y'"), not a preference.
    const between = sentence.slice(a.index + a.text.length + 2, b.index);
    if (!PREFERENCE_JOIN.test(between) && !/\b(?:replace|swap|change|instead of|rather than)\b/i.test(sentence))
      return [];
    return [replacedFirst(sentence, a) ? pair(a.text, b.text) : pair(b.text, a.text)];
  }
  const plain = sentence.replace(/["“”‘’]/g, "").replace(/(?<![\p{L}])'|'(?![\p{L}])/gu, "");
  const to = TO_FIRST.exec(plain);
  if (to) return [pair(to[2], to[1])];
  const from = FROM_FIRST.exec(plain);
  if (!from) return [];
  const [f, t] = from[1] ? [from[1], from[2]] : from[3] ? [from[3], from[4]] : [from[5], from[6]];
  return [pair(f, t)];
}

/** The person a sentence asks for: "address the reader as you" → you; "write as we" → we; else null. */
export function personOf(sentence: string): "you" | "we" | null {
  const s = sentence.toLowerCase().replace(/[“”"‘’']/g, "");
  if (/\b(?:never|don't|do not|avoid)\b[^.]*\b(?:you|we)\b/.test(s) && !/\bnot\s+(?:i|they|one)\b/.test(s)) return null;
  if (
    /\b(?:use|say)\s+you\b|\bsecond[- ]person\b|\b(?:address|speak to|talk to|write to|speak directly to)\b.*\byou\b|\bas you\b/.test(
      s,
    )
  )
    return "you";
  if (
    /\b(?:address|speak to|talk to|speak directly to)\s+(?:the\s+)?(?:reader|readers|audience|customer|customers)\s+directly\b/.test(
      s,
    )
  )
    return "you";
  if (/\bfirst[- ]person plural\b|\b(?:as|use|say|write as)\s+we\b|\bwe\b[^.]*\bnot\s+i\b/.test(s)) return "we";
  return null;
}

/** What a sentence says of exclamation marks: false (never), true (welcome) or null. */
export function exclamationsOf(sentence: string): boolean | null {
  if (!/exclamation|\bbangs?\b|(?<!\w)!(?!\w)/i.test(sentence)) return null;
  if (NEGATION.test(sentence) || /\bsparingly\b|\brarely\b|\bone at most\b/i.test(sentence)) return false;
  return /\b(?:use|welcome|fine|ok|okay|allowed|feel free)\b/i.test(sentence) ? true : null;
}

/** What a sentence says of contractions: true (use them), false (write them out) or null. */
export function contractionsOf(sentence: string): boolean | null {
  if (/\bcontractions?\b|\bcontracted forms?\b/i.test(sentence))
    return !(NEGATION.test(sentence) || /\bwrite (?:them|words) out\b|\bspell out\b/i.test(sentence));
  if (/\b(?:write out|spell out|expand)\b.*\bdo not\b/i.test(sentence)) return false;
  return null;
}

/** Adjectives that name a tone when said without the word "tone" ("Be warm and direct."). */
const TONE_WORDS =
  /^(?:warm|direct|friendly|formal|informal|casual|conversational|professional|playful|serious|confident|plain|upbeat|calm|candid|honest|clear|concise|crisp|authoritative|empathetic|witty|humble|bold|energetic|relaxed|polite|respectful|technical|approachable|encouraging|optimistic|straightforward|neutral|personal|human|kind)$/i;

/** The tone a sentence asks for, in its words ("warm and direct"), or null. */
export function toneOf(sentence: string): string | null {
  const named = /\btone\b|\bsound\b|\bcome across\b|\bfeel\b|\bkeep it\b|^be\b/i.test(sentence);
  // What follows "never", "not", "but" is the tone to avoid.
  const wanted = sentence.split(/,?\s+\b(?:never|not|but not|rather than|instead of|without|avoid)\b/i)[0];
  const adjectives = (parse(wanted).adjectives().out("array") as string[])
    .map((a) => a.toLowerCase().replace(/[^\p{L}-]/gu, ""))
    .filter((a) => TONE_WORDS.test(a) || (named && /tone|sound/i.test(sentence) && a.length > 2));
  const adverbs = [
    ...wanted.matchAll(/\b(formal|casual|warm|direct|friendl|plain|professional|confident)(?:ly|ily)\b/gi),
  ].map((m) => (m[1].toLowerCase() === "friendl" ? "friendly" : m[1].toLowerCase()));
  const words = [...new Set([...adjectives, ...adverbs])].filter((w) => !/^(?:short|long|brief)$/.test(w));
  if (words.length === 0 || (!named && !words.every((w) => TONE_WORDS.test(w)))) return null;
  return words.length === 1 ? words[0] : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** The sign-off a sentence asks for ("sign off as Dana from Acme" → "Dana from Acme"), or null. */
export function signoffOf(sentence: string): string | null {
  const m =
    /\bsign(?:[- ]?off)?\s+(?:every\s+\w+\s+|emails?\s+|posts?\s+|letters?\s+)?(?:as|with|by)\s+(.+)$/i.exec(
      sentence,
    ) ??
    /\b(?:sign[- ]?off|signature)\s*(?:is|should be|:)\s*(.+)$/i.exec(sentence) ??
    /\bsign (?:every\s+\w+\s+|emails?\s+|posts?\s+)?['‘"“]([^'’"”]+)['’"”]/i.exec(sentence) ??
    /\bend (?:every|each|all|your)?\s*(?:emails?|posts?|letters?|messages?)?\s*with\s+['‘"“]([^'’"”]+)['’"”]/i.exec(
      sentence,
    );
  if (!m) return null;
  const text = m[1]
    .trim()
    .replace(/[.!]+$/, "")
    .replace(/^['‘"“]|['’"”]$/g, "")
    .trim();
  return text && text.split(/\s+/).length <= 8 ? text : null;
}

/** Adds what one instruction sentence says to the rules; the first memory to state a rule keeps it. */
function readInstruction(sentence: string, rules: VoiceRules): void {
  rules.maxSentenceWords ??= sentenceLimit(sentence);
  rules.person ??= personOf(sentence);
  rules.exclamations ??= exclamationsOf(sentence);
  rules.contractions ??= contractionsOf(sentence);
  rules.signoff ??= signoffOf(sentence);
  if (rules.tone === null && !rules.signoff?.includes(sentence)) rules.tone = toneOf(sentence);
  for (const p of preferredWords(sentence))
    if (p.from && p.to && p.from !== p.to && !rules.prefer.some((q) => q.from === p.from)) rules.prefer.push(p);
  for (const w of avoidedWords(sentence)) if (!rules.avoid.includes(w)) rules.avoid.push(w);
}

/** A sentence that may state a rule: the cheap test before any parse. */
const CUE =
  /sentence|words?\b|avoid|never|\bnot\b|\bcall\b|\bover\b|don['’]t|do not|\bno\b|say|prefer|instead|rather|replace|use|write|address|reader|person|\bwe\b|\byou\b|exclamation|!|contraction|tone|sound|\bbe\b|keep|sign|signature|banned|forbidden|refer|\bend\b|limit|\bcap\b|→|->/i;

/** Rules read from previous memories' texts: the writer reads the same memories at every generation. */
const cache = new Map<string, VoiceRules>();

/** The rules the voice memories state, in ordinary wording; sentences stating none are ignored. */
export function voiceRules(memories: MemoryText[]): VoiceRules {
  const texts = memories.filter((m) => m.kind === "voice").map((m) => m.content);
  const key = texts.join("\u0000");
  const known = cache.get(key);
  if (known) return structuredClone(known);
  const rules = noVoiceRules();
  for (const text of texts)
    for (const sentence of instructionSentences(text)) if (CUE.test(sentence)) readInstruction(sentence, rules);
  rules.avoid = rules.avoid.filter((w) => !rules.prefer.some((p) => p.to === w));
  if (cache.size >= 64) cache.delete(cache.keys().next().value as string);
  cache.set(key, rules);
  return structuredClone(rules);
}
