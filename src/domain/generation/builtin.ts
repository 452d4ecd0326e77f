/**
 * The builtin engine: writes a piece from a template's sections, a direction, memories, the reference passages
 * most relevant to the direction and the workspace's voice profile, with no model. The direction is read whole
 * (direction.ts); the body is the passages' sentences, attributed to their sources, between frames that fit the
 * direction's angle; a piece the passages cannot fill is shorter and says so. Same input and seed, same text.
 */
import { readDirection } from "./direction.js";
import { titleOf } from "./headline.js";
import { wordCount } from "./language.js";
import { polishBlocks, polishTitle, renderFormat } from "./layout.js";
import { contextNotes, voiceRules } from "./memory-rules.js";
import type { PassageSource } from "./passages.js";
import { type Piece, type Source, startPiece } from "./piece.js";
import type { Passage } from "./retrieval.js";
import { type SectionBlock, type SectionSpec, writeSection } from "./sections.js";
import type { VoiceTraits } from "./voice.js";

export type { Source } from "./piece.js";
export type { SectionSpec } from "./sections.js";

/** Everything a generation draws on. */
export interface GenerationInput {
  template: {
    id: number;
    name: string;
    format: string;
    tone: string;
    target_words: number;
    sections: SectionSpec[];
  };
  direction: string;
  memories: { id: number; kind: "voice" | "context"; title: string; content: string }[];
  passages: Passage[];
  /** On a server: the materials whose passages the pool thread reads itself (passages.ts); `passages` is then []. */
  passagesFrom?: PassageSource;
  voice: VoiceTraits | null;
  seed: number;
}

/** What the engine returns. */
export interface GenerationOutput {
  title: string;
  text: string;
  sources: Source[];
  word_count: number;
  /** What the writer could not do as asked (a text shorter than the template's target, and why). */
  warnings: string[];
}

/** The subject of a direction, as a noun phrase ("Write about X for Y" → "X"). */
export function extractTopic(direction: string): string {
  return readDirection(direction).subject || "this topic";
}

/**
 * Writes one piece: each section in the template's order (a headline or subject section gives the title), each
 * within its share of the target, then the voice's polish and the format's layout. The PRNG is drawn from in one
 * fixed order, so the same input and seed give the same text.
 */
export function generateBuiltin(input: GenerationInput): GenerationOutput {
  const t = input.template;
  const piece = startPiece({
    templateId: t.id,
    format: t.format,
    targetWords: t.target_words,
    direction: input.direction,
    passages: input.passages,
    memories: input.memories,
    seed: input.seed,
    notes: contextNotes(input.memories.filter((m) => m.kind === "context")),
    rules: voiceRules(input.memories.filter((m) => m.kind === "voice")),
  });
  const budgets = sectionBudgets(t.sections, t.target_words, t.format);
  let title = "";
  let planned = 0;
  let written = 0;
  const blocks: SectionBlock[] = [];
  t.sections.forEach((section, i) => {
    planned += budgets[i];
    if (section.role === "headline" || section.role === "subject") {
      title = titleOf(piece.direction, section.role, piece.rng);
      written += wordCount(title);
      return;
    }
    // What earlier sections wrote short of their share goes to the next: the piece, not each section, hits the target.
    const block = writeSection(piece, section, planned - written);
    written += blockWords(block);
    blocks.push(block);
  });
  if (!title) title = titleOf(piece.direction, t.format === "email" ? "subject" : "headline", piece.rng);
  return finishPiece(input, piece, title, blocks);
}

/** About how many words a section of a set form writes, whatever its budget in the template. */
function setFormWords(role: string, format: string): number | undefined {
  if (role === "headline" || role === "subject") return 10;
  if (role === "quote") return 30;
  if (role === "cta") return 15;
  if (role === "signoff") return format === "release" ? 20 : 4;
  return undefined;
}

/**
 * Each section's share of the target: the set forms (title, quotation, call to action, sign-off) what they write,
 * the sections of facts the rest, in proportion to the template's word budgets.
 */
function sectionBudgets(sections: SectionSpec[], target: number, format: string): number[] {
  const set = sections.map((s) => setFormWords(s.role, format));
  const fixed = set.reduce<number>((n, w) => n + (w ?? 0), 0);
  const flexible = sections.reduce((n, s, i) => n + (set[i] === undefined ? s.words : 0), 0) || 1;
  const scale = Math.max(0, target - fixed) / flexible;
  return sections.map((s, i) => set[i] ?? s.words * scale);
}

/** Words in a block as written. */
function blockWords(block: SectionBlock): number {
  const body = Array.isArray(block.body) ? block.body.join(" ") : block.body;
  return wordCount(`${block.heading ?? ""} ${block.prefix ?? ""} ${body}`);
}

/** Polishes and lays out the piece, counts it and says when it falls short of the template's target. */
function finishPiece(input: GenerationInput, piece: Piece, title: string, blocks: SectionBlock[]): GenerationOutput {
  const finalTitle = polishTitle(title, input.voice);
  const cut = { count: 0 };
  const text = renderFormat(input.template.format, finalTitle, polishBlocks(blocks, input.voice, piece.rules, cut));
  const words = wordCount(text);
  const leftOut = piece.leftOut + cut.count;
  const warnings = lengthWarnings(words, input.template.target_words, piece.referenceWords, leftOut > 0);
  const limit = limitWarning(leftOut, piece.rules.maxSentenceWords);
  if (warnings.length > 0 && limit) warnings.push(limit);
  return { title: finalTitle, text, sources: [...piece.used.values()], word_count: words, warnings };
}

/** Why a text under a voice memory's sentence limit is short: the sentences it left out, or null when none. */
function limitWarning(leftOut: number, max: number | null): string | null {
  if (max === null || leftOut === 0) return null;
  const one = leftOut === 1;
  return (
    `${leftOut} reference sentence${one ? " was" : "s were"} left out: ${one ? "it runs" : "they run"} past ` +
    `the voice memory's limit of ${max} words and could not be split.`
  );
}

/**
 * A warning when the text is more than 15% short of the target: the material did not hold enough, or (`leftOut`,
 * references as long as the target) the voice memory's sentence limit left too much of it out.
 */
function lengthWarnings(words: number, target: number, referenceWords: number, leftOut: boolean): string[] {
  if (words >= target * 0.85) return [];
  const n = (x: number) => x.toLocaleString("en-US");
  const short = `the text is ${n(words)} words of the ${n(target)} the template asks for`;
  if (leftOut && referenceWords >= target)
    return [
      `The references hold ${n(referenceWords)} words, but too few of their sentences fit the voice memory's ` +
        `sentence limit: ${short}. A looser limit, or references in shorter sentences, give a fuller draft.`,
    ];
  const material =
    referenceWords === 0 ? "No reference material was given" : `The references hold ${n(referenceWords)} words`;
  return [`${material}; ${short}. Add reference material for a fuller draft.`];
}
