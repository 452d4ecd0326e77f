/** Theses: a claim about a direction, supporting points tied to reference passages, and counterpoints. */
import { ApiError } from "../errors.js";
import { splitSentences } from "../text.js";
import { extractTopic, type GenerationInput } from "./builtin.js";
import { readDirection } from "./direction.js";
import { capitalise, endSentence, terms, wordCount } from "./language.js";
import { type ChatMessage, chatComplete, type LlmConfig } from "./llm.js";
import { type Passage, rankPassages } from "./retrieval.js";

/** A point and the passage it rests on. */
export interface ThesisPoint {
  text: string;
  reference_material_id: number | null;
  passage: string | null;
}

/** What a thesis request returns (DESIGN §9). */
export interface ThesisOutput {
  thesis: string;
  supporting_points: ThesisPoint[];
  counterpoints: string[];
}

/** What a thesis is built from. */
export type ThesisInput = Pick<GenerationInput, "direction" | "memories" | "passages" | "passagesFrom"> & {
  max_points: number;
};

const CONTRAST =
  /\b(?:however|but|although|though|despite|risk|risks|fail|fails|failure|cost|costs|challenge|drawback|downside|only|limited|unless)\b/i;

function relevant(input: ThesisInput): { passages: Passage[]; query: string } {
  const query = `${input.direction} ${extractTopic(input.direction)}`;
  const ranked = rankPassages(input.passages, query);
  return { passages: ranked.some((p) => p.score > 0) ? ranked.filter((p) => p.score > 0) : ranked, query };
}

/** The builtin thesis: no model, deterministic. */
export function builtinThesis(input: ThesisInput): ThesisOutput {
  const topic = extractTopic(input.direction);
  // The topic is a noun phrase: its verb agrees with it ("decision logs deserve", "a decision log deserves").
  const deserve = readDirection(input.direction).plural ? "deserve" : "deserves";
  const { passages, query } = relevant(input);
  const q = new Set(terms(query));
  const candidates = passages.flatMap((p, rank) =>
    splitSentences(p.text)
      .filter((s) => wordCount(s) >= 5)
      .map((s, i) => ({ s: endSentence(s), p, score: terms(s).filter((t) => q.has(t)).length * 10 - rank - i / 10 })),
  );
  const supporting = candidates.filter((c) => !CONTRAST.test(c.s)).sort((a, b) => b.score - a.score);
  const contrasting = candidates.filter((c) => CONTRAST.test(c.s)).sort((a, b) => b.score - a.score);
  const points: ThesisPoint[] = [];
  const usedPassages = new Set<string>();
  // Prefer one point per passage, then fill from the rest.
  for (const pass of [true, false])
    for (const c of supporting) {
      if (points.length >= input.max_points) break;
      if (points.some((pt) => pt.text === c.s) || (pass && usedPassages.has(c.p.text))) continue;
      usedPassages.add(c.p.text);
      points.push({ text: c.s, reference_material_id: c.p.reference_material_id, passage: c.p.text });
    }
  for (const m of input.memories.filter((mm) => mm.kind === "context"))
    if (points.length < input.max_points)
      points.push({ text: endSentence(m.content), reference_material_id: null, passage: null });
  const lead = points[0]?.text.replace(/[.!?]$/, "");
  const thesis = lead
    ? `${capitalise(topic)} ${deserve} attention: ${lead.charAt(0).toLowerCase()}${lead.slice(1)}.`
    : `${capitalise(topic)} ${deserve} attention, though the case still needs evidence.`;
  const counterpoints = contrasting.slice(0, Math.max(1, Math.ceil(input.max_points / 2))).map((c) => c.s);
  if (counterpoints.length === 0)
    counterpoints.push(
      passages.length
        ? `The evidence comes from ${new Set(passages.map((p) => p.reference_material_id)).size} source(s); results elsewhere may differ.`
        : "No reference material supports this yet; treat it as a hypothesis.",
    );
  return { thesis, supporting_points: points, counterpoints };
}

/** The messages asking the on-prem model for a thesis, and the passages offered to it (on the pool: it ranks). */
export function thesisPrompt(input: ThesisInput): { messages: ChatMessage[]; chosen: Passage[] } {
  const { passages } = relevant(input);
  const chosen = passages.slice(0, 8);
  const messages: ChatMessage[] = [
    {
      role: "system",
      content:
        'Answer with JSON only: {"thesis": string, "supporting_points": [{"text": string, "source": number}], "counterpoints": [string]}. ' +
        `At most ${input.max_points} supporting points, each resting on one numbered source. Use only the sources' facts.`,
    },
    {
      role: "user",
      content: `Direction: ${input.direction}\n\nSources:\n${chosen.map((p, i) => `[${i + 1}] ${p.text}`).join("\n\n")}`,
    },
  ];
  return { messages, chosen };
}

/** The thesis from the on-prem model, asked for JSON (the prompt built by `prompt`, thesisPrompt on the pool). */
export async function llmThesis(
  cfg: LlmConfig,
  input: ThesisInput,
  prompt: (input: ThesisInput) => Promise<{ messages: ChatMessage[]; chosen: Passage[] }>,
  signal?: AbortSignal,
): Promise<ThesisOutput> {
  const { messages, chosen } = await prompt(input);
  const raw = await chatComplete(cfg, messages, signal);
  const json = withoutFence(raw);
  let parsed: { thesis?: unknown; supporting_points?: unknown; counterpoints?: unknown };
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ApiError("upstream_invalid_response", "The model server's thesis is not JSON.", { model: cfg.model });
  }
  if (typeof parsed.thesis !== "string" || !Array.isArray(parsed.supporting_points))
    throw new ApiError("upstream_invalid_response", "The model server's thesis lacks thesis or supporting_points.", {
      model: cfg.model,
    });
  const points = parsed.supporting_points
    .filter((p): p is { text: string; source?: number } => typeof p?.text === "string")
    .slice(0, input.max_points)
    .map((p) => {
      const src = typeof p.source === "number" ? chosen[p.source - 1] : undefined;
      return { text: p.text, reference_material_id: src?.reference_material_id ?? null, passage: src?.text ?? null };
    });
  const counterpoints = Array.isArray(parsed.counterpoints)
    ? parsed.counterpoints.filter((c): c is string => typeof c === "string")
    : [];
  return { thesis: parsed.thesis, supporting_points: points, counterpoints };
}

/**
 * A model's answer without the Markdown fence it may wrap its JSON in (```json … ```). By trimming rather than
 * /\s*```\s*$/, which is quadratic on a long run of blanks inside the answer.
 */
export function withoutFence(raw: string): string {
  let text = raw.trim();
  if (text.startsWith("```")) text = text.slice(text.startsWith("```json") ? 7 : 3).trimStart();
  if (text.endsWith("```")) text = text.slice(0, -3).trimEnd();
  return text;
}
