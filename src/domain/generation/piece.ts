/**
 * What writing one piece draws on and has used so far: the direction read whole, its frame slots, the PRNG, the
 * reference passages' sentences (the facts, most relevant passage first, each passage's sentences in its order),
 * and the sources cited. Passages are never parsed with the language library: only the direction is.
 */
import { splitSentences } from "../text.js";
import { type Direction, readDirection } from "./direction.js";
import { type FrameGroup, type Frames, groupOf, pickFrame, type Slots, slotsOf } from "./frames.js";
import { endSentence, hash32, Rng, STOP_WORDS, stem, wordCount } from "./language.js";
import { type ContextNotes, sentenceWords, type VoiceRules } from "./memory-rules.js";
import { ATTRIBUTIONS } from "./phrases-close.js";
import type { Passage } from "./retrieval.js";
import { type RankedPassage, rankPassages } from "./retrieval.js";
import { splitToLimit } from "./sentence-split.js";
import { contract } from "./voice-wording.js";

/** A sentence of a reference passage, with the passage it is from. */
export interface Fact {
  sentence: string;
  words: number;
  source: Passage;
}

/** A cited passage. */
export interface Source {
  reference_material_id: number;
  passage: string;
}

/** The state of one piece being written. */
export interface Piece {
  direction: Direction;
  group: FrameGroup;
  slots: Slots;
  rng: Rng;
  format: string;
  templateId: number;
  facts: Fact[];
  factIndex: number;
  /** The passage the last fact taken came from (its next sentences need no new attribution). */
  lastSource: Passage | null;
  /** Whether no fact has been taken in the current section yet. */
  sectionStart: boolean;
  /** Whether the piece has opened (a hook, or the first prose section written as one). */
  opened: boolean;
  usedFrames: Set<string>;
  used: Map<string, Source>;
  /** The inputs' texts, searched for a word written lower-case (lowerFirstWord). */
  inputText: string;
  /** The stems asked about so far, and whether the inputs write them lower-case. */
  lowerCase: Map<string, boolean>;
  notes: ContextNotes;
  rules: VoiceRules;
  /** Words in every passage given. */
  referenceWords: number;
  /** Reference sentences left out: longer than the voice memory's limit, and no joint brought them within it. */
  leftOut: number;
  /** Whether the passage now being drawn from still owes its attribution (it would have run past the limit). */
  owesAttribution: boolean;
  /** The content words of the direction and the reference sentences, read once when a context fact is weighed. */
  pieceTerms?: Set<string>;
}

/** What a piece starts from. */
export interface PieceInput {
  templateId: number;
  format: string;
  targetWords: number;
  direction: string;
  passages: Passage[];
  memories: { content: string }[];
  seed: number;
  notes: ContextNotes;
  rules: VoiceRules;
}

/** Reads the direction and picks the passages; the PRNG is seeded by the seed, template and direction. */
export function startPiece(input: PieceInput): Piece {
  const direction = readDirection(input.direction);
  const audience = input.notes.audience ?? direction.audience;
  const inputText = [
    input.direction,
    ...input.passages.map((p) => p.text),
    ...input.memories.map((m) => m.content),
  ].join("\n");
  return {
    direction,
    group: groupOf(direction.kind),
    slots: slotsOf(direction, audience),
    rng: new Rng(hash32(`${input.seed}|${input.templateId}|${input.direction}`)),
    format: input.format,
    templateId: input.templateId,
    ...gatherFacts(input.passages, input.direction, input.targetWords, input.rules.maxSentenceWords),
    factIndex: 0,
    owesAttribution: false,
    lastSource: null,
    sectionStart: true,
    opened: false,
    usedFrames: new Set(),
    used: new Map(),
    inputText,
    lowerCase: new Map(),
    notes: input.notes,
    rules: input.rules,
    referenceWords: input.passages.reduce((n, p) => n + wordCount(p.text), 0),
  };
}

/** Whether a passage's sentence can stand in a piece: a whole sentence (not a heading) of 5 to 60 words. */
function isFactSentence(sentence: string, words: number): boolean {
  return (
    words >= 5 &&
    words <= 60 &&
    /[.!?]["”')\]]?$/.test(sentence) &&
    !/^[#>*-]/.test(sentence) &&
    !SELF_REFERENCE.test(sentence)
  );
}

/** A sentence about the reference itself ("This document describes …"): true of the reference, not of the piece. */
const SELF_REFERENCE =
  /^(?:this|the present)\s+(?:document|brief|report|retrospective|article|page|guide|post|paper|note|sheet|account|case study|study|section)\b/i;

/**
 * The most long reference sentences a piece tries to split: each try may parse (~0.3 ms), and references run to
 * thousands of words. Those past it are left out like any other that cannot be split.
 */
const MAX_SPLITS = 40;

/** A passage's sentences that can stand in a piece, each within `max` words (split, or left out and counted). */
function factsOf(p: Passage, max: number | null, tries: { left: number }): { facts: Fact[]; leftOut: number } {
  const facts: Fact[] = [];
  let leftOut = 0;
  for (const s of splitSentences(p.text)) {
    const n = wordCount(s);
    if (!isFactSentence(s, n)) continue;
    if (max === null || sentenceWords(s) <= max) {
      facts.push({ sentence: s, words: n, source: p });
      continue;
    }
    // Split only what is long: the rest of the passage is never parsed.
    const split = tries.left-- > 0 ? splitToLimit(s, max) : { sentences: [s], whole: false };
    if (split.whole)
      for (const part of split.sentences) facts.push({ sentence: part, words: wordCount(part), source: p });
    else leftOut++;
  }
  return { facts, leftOut };
}

/**
 * The sentences of the passages most relevant to the direction, enough of them for the target (with a margin for
 * the sections' own rounding): a passage's sentences stay together and in order, so they read as it wrote them.
 * With a sentence limit, only sentences within it count towards the target, so more passages are drawn on.
 */
function gatherFacts(
  passages: Passage[],
  direction: string,
  targetWords: number,
  max: number | null,
): { facts: Fact[]; leftOut: number } {
  const ranked = rankPassages(passages, direction);
  const relevant = ranked.some((p) => p.score > 0) ? ranked.filter((p) => p.score > 0) : ranked;
  // Passages that share nothing with the direction come after the relevant ones, not never.
  const order = [...relevant, ...ranked.filter((p) => p.score <= 0 && relevant.length < ranked.length)];
  const chosen: { p: RankedPassage; facts: Fact[] }[] = [];
  let words = 0;
  let leftOut = 0;
  const tries = { left: MAX_SPLITS };
  for (const p of order) {
    if (words >= targetWords * 1.3) break;
    const made = factsOf(p, max, tries);
    chosen.push({ p, facts: made.facts });
    leftOut += made.leftOut;
    words += max === null ? wordCount(p.text) : made.facts.reduce((n, f) => n + f.words, 0);
  }
  // The chosen passages in the references' own order, so the piece follows their story.
  chosen.sort((a, b) => a.p.index - b.p.index);
  return { facts: chosen.flatMap((c) => c.facts), leftOut };
}

/** Whether a fact is left. */
export function hasFact(p: Piece): boolean {
  return p.factIndex < p.facts.length;
}

/** The next fact's word count, or 0. */
export function nextFactWords(p: Piece): number {
  return p.facts[p.factIndex]?.words ?? 0;
}

/** Lower-cases a sentence's first word after a lead unless it looks like a name (never seen lower-case). */
export function lowerFirstWord(sentence: string, p: Piece): string {
  const m = /^(\p{Lu}[\p{Ll}'-]*)(.*)$/su.exec(sentence);
  if (!m) return sentence;
  const word = m[1].toLowerCase();
  return STOP_WORDS.has(word) || writesLowerCase(p, stem(word)) ? word + m[2] : sentence;
}

/**
 * Whether the inputs write a word of this stem lower-case, other than first in a sentence. Asked of a few words a
 * piece, so the inputs are searched for each (about 0.05 ms) rather than all their words stemmed (about 2 ms).
 */
function writesLowerCase(p: Piece, wordStem: string): boolean {
  const known = p.lowerCase.get(wordStem);
  if (known !== undefined) return known;
  // The stem less its last letter also finds "studies" for "study".
  const prefix = wordStem.length > 3 ? wordStem.slice(0, -1) : wordStem;
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  let found = false;
  for (const m of p.inputText.matchAll(new RegExp(`(?<![.!?]\\s)(?<![\\p{L}'-])${escaped}[\\p{L}'-]*`, "gu")))
    if (stem(m[0]) === wordStem) {
      found = true;
      break;
    }
  p.lowerCase.set(wordStem, found);
  return found;
}

/**
 * The next fact as a sentence of the piece, cited: the first from a passage attributed to its source ("According
 * to …, …"), the next ones as the passage wrote them. Undefined when none is left.
 */
export function takeFact(p: Piece, attribute = false): string | undefined {
  const f = p.facts[p.factIndex++];
  if (!f) return undefined;
  p.used.set(f.source.text, { reference_material_id: f.source.reference_material_id, passage: f.source.text });
  const last = p.lastSource;
  const sectionStart = p.sectionStart;
  p.lastSource = f.source;
  p.sectionStart = false;
  const sentence = endSentence(f.sentence);
  // Attributed where a new material starts, and at a section's first passage now and then: cited, not on every line.
  const newMaterial = last?.reference_material_id !== f.source.reference_material_id;
  const newPassage = last !== f.source && sectionStart && p.rng.next() < 0.5;
  if (attribute || newMaterial || newPassage || p.owesAttribution) {
    const title = f.source.reference_title;
    // A title ending on a plural ("Field notes") takes a plural verb; "… Report", "… study" a singular one.
    const plural = /[^su]s$/i.test(title.trim());
    const lead = p.rng
      .pick(ATTRIBUTIONS)
      .replace("{source}", title)
      .replace("{s}", plural ? "" : "s");
    const attributed = lead.charAt(0).toUpperCase() + lead.slice(1) + lowerFirstWord(sentence, p);
    // Past the voice memory's limit, the passage's next sentence that has room carries the attribution.
    const max = p.rules.maxSentenceWords;
    p.owesAttribution = max !== null && sentenceWords(attributed) > max;
    if (!p.owesAttribution) return attributed;
  }
  // No connective is added: "What is more" before a sentence that contrasts would change what the passage says.
  return sentence;
}

/** The fact taken out of order: the next one (within a few) that holds a number, else the next one. */
export function takeFigure(p: Piece): string | undefined {
  const ahead = p.facts.slice(p.factIndex, p.factIndex + 6).findIndex((f) => /\p{N}/u.test(f.sentence));
  if (ahead > 0) {
    const [f] = p.facts.splice(p.factIndex + ahead, 1);
    p.facts.splice(p.factIndex, 0, f);
  }
  return takeFact(p, true);
}

/** A frame of the piece's group, filled with its slots, used at most once a piece; one within the voice's limit. */
export function frame(p: Piece, frames: Frames): string | undefined {
  return pickFrame(frames, p.group, p.slots, p.rng, p.usedFrames, suitsVoice(p.rules));
}

/** Whether a sentence the writer makes keeps the voice memory's sentence limit once contracted, when it sets one. */
export function suitsVoice(rules: VoiceRules): ((sentence: string) => boolean) | undefined {
  const max = rules.maxSentenceWords;
  if (max === null) return undefined;
  return (sentence) => sentenceWords(rules.contractions === true ? contract(sentence) : sentence) <= max;
}

/** Sentences from `first`, then facts while the section stays under its budget (a fact counts half past it). */
export function fillWithFacts(first: (string | undefined)[], budget: number, p: Piece): string[] {
  const out = first.filter((s): s is string => s !== undefined);
  let words = wordCount(out.join(" "));
  let run = out.length;
  while (hasFact(p) && words + nextFactWords(p) / 2 < budget) {
    // A new paragraph where the next passage starts, or after five sentences, once this one has two or more.
    const nextSource = p.facts[p.factIndex].source;
    if (run >= 2 && (nextSource !== p.lastSource || run >= 5)) {
      out.push(PARAGRAPH);
      run = 0;
    }
    const s = takeFact(p);
    if (!s) break;
    out.push(s);
    run++;
    words += wordCount(s);
  }
  return out;
}

/** The mark between two paragraphs of a section's sentences. */
export const PARAGRAPH = "\n";
