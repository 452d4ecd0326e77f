/**
 * What context memories tell the writer: who reads (audience), what the product and company are called (names), and
 * what is true of them (facts), restated rather than pasted. The rule the text keeps is that no run of 8 or more of a
 * memory's words appears in it unless quoted: a fact is the memory's sentence cut to its core claim (brackets,
 * asides and relative clauses out; a sentence of two claims split in two, the subject repeated), kept only if it
 * then holds no run of 8 of the memory's words; a claim that cannot be cut so is offered as a quotation instead.
 */
import { pastedRuns } from "../writing-checks.js";
import { type Doc, hasVerb, isLexiconWord, parse } from "./nlp.js";
import { instructionSentences, type MemoryText } from "./voice-memory.js";

/** What the context memories of a generation say. */
export interface ContextNotes {
  /** Who the text is for, in the memory's words ("engineering managers at mid-sized SaaS companies"), or null. */
  audience: string | null;
  /** Product, company and other proper names, as written ("Acme Cloud", "Northwind"). */
  names: string[];
  /** Short factual statements, none holding 8 consecutive words of its memory. */
  facts: string[];
  /** Claims that could not be restated shortly: to be used only as quotations, with their memory's title. */
  quotedFacts: { quote: string; source: string }[];
}

/** A context memory, with the title a quotation of it is attributed to. */
export interface ContextMemory extends MemoryText {
  title?: string;
}

/** The most sentences of one memory read for facts and names: each is parsed, and memories run to 20,000 characters. */
const MAX_SENTENCES = 60;

/** The most facts kept from all memories. */
const MAX_FACTS = 30;

/** The longest run of a memory's words a restated fact may hold. */
const RUN = 8;

/** Sentences that say who reads, the audience in the first group. */
const AUDIENCE = [
  /\b(?:our|the|my)\s+(?:target\s+)?(?:readers?|audience|customers|users|buyers|subscribers|clients|listeners)\s+(?:are|is|include|consists? of|tend to be)\s+(.+)$/i,
  /\b(?:we|you)\s+(?:write|are writing|speak)\s+(?:for|to)\s+(.+)$/i,
  /\b(?:written|aimed|targeted)\s+(?:for|at)\s+(.+)$/i,
  /^(?:target\s+)?audience\s*[:\-–—]\s*(.+)$/i,
];

/** The audience a sentence names, without its closing clause and leading hedge ("mostly"), or null. */
export function audienceOf(sentence: string): string | null {
  for (const re of AUDIENCE) {
    const m = re.exec(sentence);
    if (!m) continue;
    const who = m[1]
      .replace(/[.!?]+$/, "")
      .split(/,\s*(?:who|which|that|and they|but)\b|;|\s+[—–]\s+/)[0]
      .replace(/^(?:mostly|mainly|primarily|largely|usually|typically|often|generally)\s+/i, "")
      .trim();
    const core = coreAudience(who);
    if (core) return core;
  }
  return null;
}

/** Words that begin a modifier of an audience ("… at companies of 50 to 500 people", "… in Europe"). */
const AUDIENCE_MODIFIER = /\s+(?:at|in|across|from|with|within|working|based|who|whose)\s+/i;

/**
 * The head of an audience, short enough to name in a sentence without pasting the memory (fewer than RUN words):
 * "heads of engineering and operations at companies of 50 to 500 people in Europe" → "heads of engineering and
 * operations". Null when even the head is as long as a pasted run.
 */
function coreAudience(who: string): string | null {
  let core = who;
  while (core.split(/\s+/).length >= RUN) {
    const cut = core.search(AUDIENCE_MODIFIER);
    if (cut <= 0) return null;
    core = core.slice(0, cut);
  }
  return core || null;
}

/** Capitalised words that start sentences, not names. */
const COMMON =
  /^(?:the|a|an|our|we|it|this|that|these|those|they|their|its|in|on|at|for|with|from|by|and|but|or|if|when|most|many|some|all|every|each|there|here|i|you|your|my|he|she|his|her|as|to|of|no|not|one|since|after|before|today|now)$/i;

/**
 * Whether a lone capitalised word opening a sentence is a name: compromise reads it as one, or it is no word of its
 * lexicon and not a plural ("Northwind resells …", not "Teams ship …").
 */
function isNameAtStart(parsed: Doc, word: string): boolean {
  const doc = parsed.match(word);
  if (doc.has("(#ProperNoun|#Organization|#Place|#Person)")) return true;
  return !isLexiconWord(word) && !doc.has("(#Plural|#Verb|#Adjective|#Adverb)");
}

/** The proper names of one sentence: runs of capitalised words, and quoted words that are capitalised. */
function namesIn(sentence: string, doc: Doc): string[] {
  const out: string[] = [];
  for (const m of sentence.matchAll(
    /(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}&'’.-]*(?:\s+(?:\p{Lu}[\p{L}\p{N}&'’.-]*|&))*/gu,
  )) {
    let words = m[0]
      .replace(/['’]s$/, "")
      .replace(/[.]$/, "")
      .split(/\s+/);
    while (words.length > 0 && COMMON.test(words[0])) words = words.slice(1);
    if (words.length === 0) continue;
    const name = words.join(" ");
    // A lone capitalised word at the start of a sentence is a name only if compromise reads it as one.
    if (m.index === 0 && words.length === 1 && !isNameAtStart(doc, name)) continue;
    out.push(name);
  }
  for (const m of sentence.matchAll(/[“"]([^”"]{2,40})[”"]/g)) if (/^\p{Lu}/u.test(m[1])) out.push(m[1]);
  return out;
}

/** A sentence cut to its core claim: without brackets, asides between commas, or a closing relative clause. */
function coreClaim(sentence: string): string {
  return sentence
    .replace(/\s*\([^)]*\)/g, "")
    .replace(/,\s+(?:which|who|whose)\s+[^,]+,/g, "")
    .replace(/,\s+(?:which|who|whose)\s+[^,]+([.!?])$/, "$1")
    .replace(/^(?:in fact|basically|essentially|of course|as you know|simply put),\s*/i, "")
    .replace(/\s{2,}/g, " ")
    .trim();
}

/** A sentence of two claims ("Acme was founded in 2012 and now employs 300 people") as two, the subject repeated. */
function splitClaims(claim: string, doc: Doc): string[] {
  const verb = (doc.verbs().out("array") as string[])[0]?.replace(/[.,!?]+$/, "");
  const at = verb ? claim.indexOf(verb) : -1;
  if (at <= 0) return [claim];
  const subject = claim.slice(0, at).trim();
  for (const join of claim.matchAll(/,?\s+and\s+/g)) {
    if ((join.index ?? 0) <= at) continue;
    const first = `${claim.slice(0, join.index).trim()}.`;
    const rest = claim.slice((join.index ?? 0) + join[0].length).trim();
    const second = /^(?:it|they|we|he|she|the|its|their|our)\b/i.test(rest)
      ? rest.charAt(0).toUpperCase() + rest.slice(1)
      : `${subject} ${rest}`;
    if (hasVerb(first) && hasVerb(second)) return [first, second];
  }
  return [claim];
}

/** Words that open a closing phrase a restatement may put first ("… in 30 countries" → "In 30 countries, …"). */
const CLOSING_PHRASE =
  /^(.{12,}?)\s+((?:in|across|at|on|for|since|during|from|over|by|within|throughout)\s+[^,;:]{2,40}?)([.!?])$/;

/** A claim restated with its closing phrase put first, which breaks its run of the memory's words; or null. */
function frontedClaim(claim: string, doc: Doc): string | null {
  const m = CLOSING_PHRASE.exec(claim);
  if (!m) return null;
  // The first word keeps its capital only if it is a name ("Acme Cloud has …", not "the product has …").
  const first = /^[\p{L}\p{N}'’&.-]+/u.exec(m[1])?.[0] ?? "";
  const name = /^(?:[A-Z]{2}|\p{Lu}\p{Ll}*\p{Lu})/u.test(first) || (first !== "" && isNameAtStart(doc, first));
  const body = name ? m[1] : m[1].charAt(0).toLowerCase() + m[1].slice(1);
  return `${m[2].charAt(0).toUpperCase()}${m[2].slice(1)}, ${body}${m[3]}`;
}

/** A claim as it may be written: itself if short enough, else fronted, else null. */
function restated(claim: string, doc: Doc, memory: string): string | null {
  if (pastedRuns(memory, claim, RUN).length === 0) return claim;
  const fronted = frontedClaim(claim, doc);
  return fronted && pastedRuns(memory, fronted, RUN).length === 0 ? fronted : null;
}

/** The facts a sentence gives, restated, or the sentence as a quotation when it cannot be restated shortly. */
function factsOf(sentence: string, doc: Doc, memory: string): { facts: string[]; quote: string | null } {
  const claims = splitClaims(coreClaim(sentence), doc).map((c) => (/[.!?]$/.test(c) ? c : `${c}.`));
  const short = claims.map((c) => restated(c, doc, memory)).filter((c): c is string => c !== null);
  if (short.length === claims.length) return { facts: short, quote: null };
  return { facts: short, quote: sentence.replace(/[.!?]+$/, "") };
}

/** Whether a sentence states something: a fact has a verb and is not an instruction or a question. */
function isStatement(sentence: string, doc: Doc): boolean {
  if (/\?$|^please\b/i.test(sentence) || sentence.split(/\s+/).length < 3 || sentence.split(/\s+/).length > 40)
    return false;
  return doc.has("#Verb") && !doc.has("^#Imperative");
}

/** Notes read from previous memories' texts: the writer reads the same memories at every generation. */
const cache = new Map<string, ContextNotes>();

/** Adds one memory's audience, names and facts to the notes. */
function readMemory(memory: ContextMemory, notes: ContextNotes): void {
  for (const sentence of instructionSentences(memory.content).slice(0, MAX_SENTENCES)) {
    // One parse a sentence serves its names, whether it states something, and its claims.
    const doc = parse(sentence);
    const audience = audienceOf(sentence);
    notes.audience ??= audience;
    for (const name of namesIn(sentence, doc)) if (!notes.names.includes(name)) notes.names.push(name);
    if (audience || notes.facts.length >= MAX_FACTS || !isStatement(sentence, doc)) continue;
    const { facts, quote } = factsOf(sentence, doc, memory.content);
    notes.facts.push(...facts.filter((f) => !notes.facts.includes(f)));
    if (quote) notes.quotedFacts.push({ quote, source: memory.title ?? "our notes" });
  }
}

/** The audience, names and facts the context memories give, restated so that none of them is pasted. */
export function contextNotes(memories: ContextMemory[]): ContextNotes {
  const context = memories.filter((m) => m.kind === "context");
  const key = context.map((m) => `${m.title ?? ""}\u0001${m.content}`).join("\u0000");
  const known = cache.get(key);
  if (known) return structuredClone(known);
  const notes: ContextNotes = { audience: null, names: [], facts: [], quotedFacts: [] };
  for (const memory of context) readMemory(memory, notes);
  notes.facts = notes.facts.slice(0, MAX_FACTS);
  if (cache.size >= 64) cache.delete(cache.keys().next().value as string);
  cache.set(key, notes);
  return structuredClone(notes);
}
