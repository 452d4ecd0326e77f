/** The chat prompt for the openai-compatible engine: template, direction, memories, voice and chosen passages. */

import { splitSentences } from "../text.js";
import type { GenerationInput, GenerationOutput, Source } from "./builtin.js";
import { extractTopic } from "./builtin.js";
import { contextNotes } from "./context-notes.js";
import { wordCount } from "./language.js";
import type { ChatMessage } from "./llm.js";
import { passageBudget, rankPassages } from "./retrieval.js";
import { applySubstitutions, removeAvoided, type VoiceTraits } from "./voice.js";
import { type MemoryText, type VoiceRules, voiceRules } from "./voice-memory.js";
import { followVoiceRulesReport } from "./voice-rewrite.js";

const FORMAT_RULES: Record<string, string> = {
  article: "Markdown: a '# ' title line, then '## ' headings for the sections that have one.",
  page: "Markdown: a '# ' headline, then '## ' headings for the sections that have one.",
  release: "Start with 'FOR IMMEDIATE RELEASE', then a '# ' headline, and end with '###'.",
  email: "First line 'Subject: …', then the body as plain paragraphs.",
  thread: "Numbered posts ('1/n …'), each at most 280 characters, separated by blank lines.",
  post: "A title line, then short plain paragraphs; no Markdown headings.",
  product: "Markdown: a '# ' product name, then bold section labels.",
};

/** The learned voice profile as instructions. */
function learnedVoiceLines(voice: VoiceTraits | null): string[] {
  if (!voice) return [];
  const lines: string[] = [];
  for (const s of voice.substitutions.slice(0, 20)) lines.push(`Write "${s.to}", never "${s.from}".`);
  for (const a of voice.avoided_phrases.slice(0, 20)) lines.push(`Never use the phrase "${a.phrase}".`);
  for (const p of voice.preferred_phrases.slice(0, 10)) lines.push(`The writer likes the phrase "${p.phrase}".`);
  if (voice.target_sentence_words)
    lines.push(`Aim for sentences of about ${Math.round(voice.target_sentence_words)} words.`);
  return lines;
}

/** The voice memories' rules stated as rules ("Keep every sentence under 12 words."). */
export function ruleLines(rules: VoiceRules): string[] {
  const lines: string[] = [];
  if (rules.maxSentenceWords !== null) lines.push(`Keep every sentence under ${rules.maxSentenceWords + 1} words.`);
  for (const p of rules.prefer) lines.push(`Write "${p.to}", never "${p.from}".`);
  for (const w of rules.avoid) lines.push(`Never use the word "${w}".`);
  if (rules.person === "you") lines.push("Address the reader as 'you'.");
  if (rules.person === "we") lines.push("Write as 'we', in the first person plural.");
  if (rules.exclamations === false) lines.push("Never use exclamation marks.");
  if (rules.exclamations === true) lines.push("Exclamation marks are welcome where they fit.");
  if (rules.contractions === true) lines.push("Use contractions (don't, it's, we're).");
  if (rules.contractions === false) lines.push("Never use contractions: write do not, it is, we are.");
  if (rules.tone !== null) lines.push(`Keep the tone ${rules.tone}.`);
  if (rules.signoff !== null) lines.push(`Sign off as ${rules.signoff}.`);
  return lines;
}

/** The context memories as background: the audience and names read from them, then each memory's text. */
function contextLines(memories: GenerationInput["memories"]): string[] {
  const context = memories.filter((m) => m.kind === "context");
  if (context.length === 0) return [];
  const notes = contextNotes(context);
  const lines: string[] = [];
  if (notes.audience) lines.push(`- Audience: ${notes.audience}`);
  if (notes.names.length) lines.push(`- Names, spelled as written: ${notes.names.join(", ")}`);
  for (const m of context) lines.push(`- ${m.title}: ${m.content}`);
  return lines;
}

/** The messages and the passages offered to the model (cited as sources). */
export function buildPrompt(input: GenerationInput): { messages: ChatMessage[]; sources: Source[] } {
  const t = input.template;
  const query = `${input.direction} ${extractTopic(input.direction)}`;
  const ranked = rankPassages(input.passages, query);
  const relevant = ranked.some((p) => p.score > 0) ? ranked.filter((p) => p.score > 0) : ranked;
  const chosen = relevant.slice(0, passageBudget(t.target_words, relevant.length));
  const sections = t.sections
    .map((s, i) =>
      `${i + 1}. ${s.heading ?? `(${s.role}, no heading)`}: about ${s.words} words. ${s.instruction ?? ""}`.trim(),
    )
    .join("\n");
  const voiceLines = [...learnedVoiceLines(input.voice), ...ruleLines(voiceRules(input.memories))];
  for (const m of input.memories.filter((mm) => mm.kind === "voice"))
    voiceLines.push(`Voice note "${m.title}": ${m.content}`);
  const system = [
    `You are a careful writer producing a ${t.name} (${t.format}) in a ${t.tone} tone, about ${t.target_words} words.`,
    `Layout: ${FORMAT_RULES[t.format] ?? "plain paragraphs"}`,
    `Sections, in order:\n${sections}`,
    "Use only facts from the numbered sources and context notes; do not invent figures.",
    voiceLines.length ? `The writer's voice:\n${voiceLines.join("\n")}` : "",
    "Answer with the finished piece only.",
  ]
    .filter(Boolean)
    .join("\n\n");
  const context = contextLines(input.memories);
  const user = [
    `Direction: ${input.direction}`,
    context.length
      ? `Context notes (background facts). Use these facts; do not copy their sentences.\n${context.join("\n")}`
      : "",
    chosen.length
      ? `Sources:\n${chosen.map((p, i) => `[${i + 1}] (${p.reference_title}) ${p.text}`).join("\n\n")}`
      : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  return {
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
    sources: chosen.map((p) => ({ reference_material_id: p.reference_material_id, passage: p.text })),
  };
}

/** The title of a model's answer: its first heading or subject, else its first line. */
export function titleOf(text: string): string {
  const heading = /^(?:#\s+|Subject:\s*)(.+)$/m.exec(text);
  const line = heading?.[1] ?? text.split("\n").find((l) => l.trim()) ?? "";
  // Marks and blanks trimmed by index: /[*\s]+$/ is quadratic on a long inner run of blanks.
  let start = 0;
  while (start < line.length && /[#*\s]/.test(line[start])) start++;
  // The first 300 characters, then the marks and blanks at their end.
  const head = line.slice(start, start + 300);
  let end = head.length;
  while (end > 0 && /[*\s]/.test(head[end - 1])) end--;
  return head.slice(0, end);
}

/** Applies the learned voice to a model's answer (its substitutions and deletions are exact rules). */
function followVoice(text: string, voice: VoiceTraits | null): string {
  if (!voice) return text;
  return text
    .split("\n")
    .map((line) => applySubstitutions(removeAvoided(line, voice), voice))
    .join("\n");
}

/** Markers a line of a model's answer starts with: a heading, a list item, a subject, a quote. */
const LINE_MARK = /^(\s*(?:#{1,6}\s+|[-*•]\s+|\d+[.)/]\S*\s+|>\s*|Subject:\s*|\*\*[^*]+\*\*:?\s*)?)(.*)$/;

/**
 * A model's answer made to follow the voice memories' deterministic rules (avoided and preferred words, person,
 * contractions, exclamation marks) on every line, and their sentence length on plain prose lines only: a heading or
 * a list item split in two would no longer be one. A line whose every sentence would be dropped is kept as written.
 */
function followRules(text: string, rules: VoiceRules): string {
  return text
    .split("\n")
    .map((line) => {
      const [, mark = "", body = ""] = LINE_MARK.exec(line) ?? [];
      if (!/\p{L}/u.test(body)) return line;
      const report = followVoiceRulesReport(splitSentences(body), rules, { split: mark === "" });
      return report.sentences.length ? `${mark}${report.sentences.join(" ")}` : line;
    })
    .join("\n");
}

/** Whether rules ask anything of a text. */
function asksAnything(rules: VoiceRules): boolean {
  return (
    rules.maxSentenceWords !== null ||
    rules.avoid.length > 0 ||
    rules.prefer.length > 0 ||
    rules.person !== null ||
    rules.exclamations === false ||
    rules.contractions !== null
  );
}

/** A model's answer as the engine's output: in the workspace's voice and its voice memories' rules, titled and counted. */
export function finishAnswer(input: {
  text: string;
  voice: VoiceTraits | null;
  sources: Source[];
  memories?: MemoryText[];
}): GenerationOutput {
  let final = followVoice(input.text.trim(), input.voice);
  const rules = voiceRules(input.memories ?? []);
  if (asksAnything(rules)) final = followRules(final, rules);
  return { title: titleOf(final), text: final, sources: input.sources, word_count: wordCount(final), warnings: [] };
}
