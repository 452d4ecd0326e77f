/** The chat prompt for the openai-compatible engine: template, direction, memories, voice and chosen passages. */
import type { GenerationInput, GenerationOutput, Source } from "./builtin.js";
import { extractTopic } from "./builtin.js";
import { wordCount } from "./language.js";
import type { ChatMessage } from "./llm.js";
import { passageBudget, rankPassages } from "./retrieval.js";
import { applySubstitutions, removeAvoided, type VoiceTraits } from "./voice.js";

const FORMAT_RULES: Record<string, string> = {
  article: "Markdown: a '# ' title line, then '## ' headings for the sections that have one.",
  page: "Markdown: a '# ' headline, then '## ' headings for the sections that have one.",
  release: "Start with 'FOR IMMEDIATE RELEASE', then a '# ' headline, and end with '###'.",
  email: "First line 'Subject: …', then the body as plain paragraphs.",
  thread: "Numbered posts ('1/n …'), each at most 280 characters, separated by blank lines.",
  post: "A title line, then short plain paragraphs; no Markdown headings.",
  product: "Markdown: a '# ' product name, then bold section labels.",
};

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
  const voice = input.voice;
  const voiceLines: string[] = [];
  if (voice) {
    for (const s of voice.substitutions.slice(0, 20)) voiceLines.push(`Write "${s.to}", never "${s.from}".`);
    for (const a of voice.avoided_phrases.slice(0, 20)) voiceLines.push(`Never use the phrase "${a.phrase}".`);
    for (const p of voice.preferred_phrases.slice(0, 10)) voiceLines.push(`The writer likes the phrase "${p.phrase}".`);
    if (voice.target_sentence_words)
      voiceLines.push(`Aim for sentences of about ${Math.round(voice.target_sentence_words)} words.`);
  }
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
  const context = input.memories.filter((m) => m.kind === "context").map((m) => `- ${m.title}: ${m.content}`);
  const user = [
    `Direction: ${input.direction}`,
    context.length ? `Context notes:\n${context.join("\n")}` : "",
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

/** A model's answer as the engine's output: in the workspace's voice, titled and counted. */
export function finishAnswer(input: { text: string; voice: VoiceTraits | null; sources: Source[] }): GenerationOutput {
  const final = followVoice(input.text.trim(), input.voice);
  return { title: titleOf(final), text: final, sources: input.sources, word_count: wordCount(final), warnings: [] };
}
