/**
 * The builtin engine: writes a piece from a template's sections, a direction, memories, the reference passages
 * most relevant to the direction and the workspace's voice profile, with no model. Same input and seed, same text.
 */
import { sliceWhole } from "../../runtime/chars.js";
import { splitSentences } from "../text.js";
import {
  CONNECTIVES,
  CTAS,
  ELABORATIONS,
  OPENERS,
  POINT_LEADS,
  STEP_FALLBACKS,
  STEP_LEADS,
} from "./builtin-phrases.js";
import {
  capitalise,
  endSentence,
  hash32,
  Rng,
  STOP_WORDS,
  stem,
  terms,
  titleCase,
  tokens,
  wordCount,
} from "./language.js";
import type { PassageSource } from "./passages.js";
import { type Passage, passageBudget, rankPassages } from "./retrieval.js";
import { applySubstitutions, fitSentenceLength, isOnlyAvoided, removeAvoided, type VoiceTraits } from "./voice.js";

/** A section of a template, as the engine reads it. */
export interface SectionSpec {
  key: string;
  heading: string | null;
  role: string;
  words: number;
  instruction?: string;
}

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

/** A cited passage. */
export interface Source {
  reference_material_id: number;
  passage: string;
}

/** What the engine returns. */
export interface GenerationOutput {
  title: string;
  text: string;
  sources: Source[];
  word_count: number;
}

interface Fact {
  sentence: string;
  source?: Passage;
}

/** Fisher–Yates shuffle with the piece's PRNG. */
function shuffle<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Lower-cases a sentence's first word after a connective unless it looks like a name (never seen lower-case). */
function lowerFirstWord(sentence: string, lowerStems: Set<string>): string {
  const m = /^(\p{Lu}[\p{Ll}'-]*)(.*)$/su.exec(sentence);
  if (!m) return sentence;
  const word = m[1].toLowerCase();
  return STOP_WORDS.has(word) || lowerStems.has(stem(word)) ? word + m[2] : sentence;
}

/** Pulls the topic out of a direction ("Write a blog post about X for Y" → "X"). */
export function extractTopic(direction: string): string {
  const text = direction.replace(/\s+/g, " ").trim();
  const about =
    /\b(?:about|on|covering|explaining|announcing|introducing|describing|regarding|for launching)\s+(.+)/i.exec(text);
  let topic = about ? about[1] : text;
  topic = topic.split(/[.!?;:]|\s[-–—]\s|,\s(?:and\s)?(?:with|using|in|focus|keep|mention|include|make|aimed)\b/i)[0];
  topic = topic.replace(
    /\s+(?:for|to|aimed at|targeting)\s+(?:our|my|the|a|an)?\s*[\w\s-]*(?:audience|readers|customers|users|team|teams|developers|managers|leaders)\b.*$/i,
    "",
  );
  topic = topic.replace(/^(?:the|a|an|our|my)\s+/i, "").trim();
  const words = topic.split(" ");
  if (words.length > 9) topic = words.slice(0, 9).join(" ");
  if (!topic) topic = "this topic";
  return topic.replace(/[,\s]+$/, "");
}

/** The audience named in a direction, if any ("… for small business owners"). */
function extractAudience(direction: string): string | undefined {
  const m =
    /\bfor\s+((?:our|small|busy|new|busy|senior|junior|[a-z-]+)\s+[a-z\s-]{2,40}?)(?:[.,;]|$| who| that| to )/i.exec(
      direction,
    );
  return m ? m[1].trim() : undefined;
}

/** Words that name the kind of piece, not its subject. */
const GENERIC = new Set([
  "blog",
  "post",
  "article",
  "newsletter",
  "email",
  "thread",
  "linkedin",
  "page",
  "landing",
  "press",
  "release",
  "description",
  "piece",
  "copy",
  "announcement",
]);

/** Key phrases: runs of content words in the topic and direction ("remote engineering teams"), then single words. */
function keyPhrases(direction: string, topic: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (phrase: string) => {
    const key = phrase.toLowerCase();
    if (!phrase || seen.has(key)) return;
    seen.add(key);
    out.push(phrase);
  };
  for (const text of [topic, direction]) {
    let run: string[] = [];
    const flush = () => {
      if (run.length >= 2 && run.length <= 3) add(run.join(" "));
      run = [];
    };
    for (const t of tokens(text)) {
      if (STOP_WORDS.has(t) || GENERIC.has(t) || t.length < 3) flush();
      else run.push(t);
    }
    flush();
  }
  for (const t of tokens(`${topic} ${direction}`)) if (!STOP_WORDS.has(t) && !GENERIC.has(t) && t.length >= 4) add(t);
  return out.length ? out : [topic];
}

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const lower = name.toLowerCase();
    const value = vars[lower] ?? name;
    return name[0] === name[0].toUpperCase() ? capitalise(value) : value;
  });
}

/** The facts of the selected passages and context memories, most relevant first. */
function gatherFacts(input: GenerationInput, query: string): { facts: Fact[]; ranked: Passage[] } {
  const all = rankPassages(input.passages, query);
  // Passages that share nothing with the direction stay out when any passage is relevant.
  const ranked = all.some((p) => p.score > 0) ? all.filter((p) => p.score > 0) : all;
  const chosen = ranked.slice(0, passageBudget(input.template.target_words, ranked.length));
  const q = new Set(terms(query));
  const facts: Fact[] = [];
  for (const p of chosen)
    for (const s of splitSentences(p.text)) {
      const words = wordCount(s);
      if (words >= 5 && words <= 60) facts.push({ sentence: endSentence(s), source: p });
    }
  for (const m of input.memories.filter((mm) => mm.kind === "context"))
    for (const s of splitSentences(m.content)) if (wordCount(s) >= 4) facts.push({ sentence: endSentence(s) });
  const overlap = (f: Fact) => terms(f.sentence).filter((t) => q.has(t)).length;
  // Stable sort: relevance to the direction first, then the passages' own order.
  const scored = facts.map((f, i) => ({ f, i, s: overlap(f) }));
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return { facts: scored.map((x) => x.f), ranked: chosen };
}

/** Voice memories: a sign-off name and a preference for "we". */
function voiceHints(input: GenerationInput): { signoff?: string; we: boolean } {
  const voice = input.memories.filter((m) => m.kind === "voice").map((m) => m.content);
  const all = voice.join("\n");
  const sign = /sign(?:\s|-)?off (?:as|with)\s+["“]?([^"”\n.]+)["”]?/i.exec(all);
  return { signoff: sign?.[1]?.trim(), we: /\b(?:we|our team|first person plural)\b/i.test(all) };
}

/** A section's text as written, before the voice profile polishes it: sentences, or lines laid out as they are. */
interface SectionBlock {
  heading: string | null;
  role: string;
  body: string[] | string;
}

/** What writing one piece draws on and has used so far: its phrases, facts, PRNG, and the sources it cited. */
interface Piece {
  tone: string;
  rng: Rng;
  topic: string;
  audience: string | undefined;
  keys: string[];
  facts: Fact[];
  /** Stems of the words the inputs write lower-case (lowerFirstWord). */
  lowerStems: Set<string>;
  /** The passages cited, by their text. */
  used: Map<string, Source>;
  factIndex: number;
  keyIndex: number;
  /** The facts the current section may still take. */
  quota: number;
  /** The elaborations not yet used, taken from the end. */
  elaborations: string[];
}

/**
 * Writes one piece: each section in the template's order (a headline or subject section gives the title), then the
 * voice profile's polish and the format's layout. The PRNG is drawn from in one fixed order, so the same input and
 * seed give the same text (test/domain/writer.test.ts).
 */
export function generateBuiltin(input: GenerationInput): GenerationOutput {
  const piece = startPiece(input);
  const totalWords = input.template.sections.reduce((n, sct) => n + sct.words, 0) || 1;
  const hints = voiceHints(input);
  let title = "";
  const blocks: SectionBlock[] = [];
  for (const section of input.template.sections) {
    // A section takes facts in proportion to its share of the piece, so later sections are not left bare.
    piece.quota = Math.max(1, Math.ceil((piece.facts.length * section.words) / totalWords));
    if (section.role === "headline" || section.role === "subject") title = writeTitle(piece, section.role);
    else blocks.push(writeSection(piece, section, hints));
  }
  if (!title) title = titleCase(piece.topic);
  return finishPiece(input, title, blocks, piece.used);
}

/**
 * Reads what a piece draws on from its input: tone, topic, audience, key phrases, facts, and a shuffled set of
 * elaborations.
 */
function startPiece(input: GenerationInput): Piece {
  const tone = OPENERS[input.template.tone] ? input.template.tone : "professional";
  const rng = new Rng(hash32(`${input.seed}|${input.template.id}|${input.direction}`));
  const topic = extractTopic(input.direction);
  const audience = extractAudience(input.direction);
  const keys = keyPhrases(input.direction, topic);
  const query = `${input.direction} ${topic}`;
  const { facts } = gatherFacts(input, query);
  const lowerStems = new Set(
    [input.direction, ...input.passages.map((p) => p.text), ...input.memories.map((m) => m.content)].flatMap((t) =>
      (t.match(/(?<![.!?]\s)\b\p{Ll}[\p{L}'-]*/gu) ?? []).map((w) => stem(w)),
    ),
  );
  return {
    tone,
    rng,
    topic,
    audience,
    keys,
    facts,
    lowerStems,
    used: new Map(),
    factIndex: 0,
    keyIndex: 0,
    quota: Number.POSITIVE_INFINITY,
    // Each elaboration at most once per piece: a thin reference set gives a shorter piece, not a repetitive one.
    elaborations: shuffle(ELABORATIONS, rng),
  };
}

/** The words a template's placeholders stand for: the topic, the current key phrase and the audience. */
function vars(p: Piece): Record<string, string> {
  return { topic: p.topic, kw: p.keys[p.keyIndex % p.keys.length] ?? p.topic, audience: p.audience ?? "readers" };
}

/** The next fact, within the section's quota, citing its passage; undefined when none is left. */
function takeFact(p: Piece): string | undefined {
  if (p.quota <= 0) return undefined;
  p.quota--;
  const f = p.facts[p.factIndex++];
  if (!f) return undefined;
  if (f.source)
    p.used.set(f.source.text, { reference_material_id: f.source.reference_material_id, passage: f.source.text });
  return f.sentence;
}

/** The next unused elaboration, filled in; undefined when all are used. */
function elaborate(p: Piece): string | undefined {
  const next = p.elaborations.pop();
  return next === undefined ? undefined : fill(next, vars(p));
}

/** A fact after a connective, or an elaboration when no fact is left. */
function factOrElaboration(p: Piece): string | undefined {
  const f = takeFact(p);
  if (!f) return elaborate(p);
  const connective = p.rng.pick(CONNECTIVES);
  return connective ? connective + lowerFirstWord(f, p.lowerStems) : f;
}

/** The sentences given, then more from `extra` until they reach `budget` words (at most 40 more). */
function fillTo(sentences: (string | undefined)[], budget: number, extra: () => string | undefined): string[] {
  const out = sentences.filter((x): x is string => x !== undefined);
  let guard = 0;
  while (wordCount(out.join(" ")) < budget && guard++ < 40) {
    const next = extra();
    if (!next) break;
    out.push(next);
  }
  return out;
}

/** The piece's title from a headline or an email subject section. */
function writeTitle(p: Piece, role: "headline" | "subject"): string {
  const patterns =
    role === "subject"
      ? ["{Topic}: what you need to know", "A quick note on {topic}", "{Topic}, explained"]
      : [
          "{Topic}: A Practical Guide",
          "Why {Topic} Matters Now",
          "What {Topic} Means for {Audience}",
          "Getting {Topic} Right",
        ];
  return titleCase(fill(p.rng.pick(patterns), vars(p)));
}

/** Writes a section other than the title by its role; a role the engine does not know is written as a point. */
function writeSection(p: Piece, section: SectionSpec, hints: { signoff?: string; we: boolean }): SectionBlock {
  const budget = Math.max(section.words, 8);
  const block = (body: string[] | string): SectionBlock => ({ heading: section.heading, role: section.role, body });
  const more = () => factOrElaboration(p);
  switch (section.role) {
    case "hook": {
      const s: (string | undefined)[] = [fill(p.rng.pick(OPENERS[p.tone]), vars(p))];
      if (p.audience) s.push(`If you work with ${p.audience}, this is for you.`);
      return block(fillTo(s, budget, more));
    }
    case "steps":
      return block(writeSteps(p, budget));
    case "quote":
      return block(`> ${takeFact(p) ?? fill("{Topic} is worth the effort.", vars(p))}`);
    case "evidence":
    case "example":
      return block(writeEvidence(p, section.role, budget));
    case "cta":
      return block([fill(p.rng.pick(CTAS[p.tone]), vars(p))]);
    case "summary": {
      const recap = p.keys.slice(0, 3).join(", ");
      const s: (string | undefined)[] = [
        `In short, ${p.topic} comes down to ${recap}.`,
        "Start small, measure what changes, and build on what works.",
      ];
      return block(fillTo(s, budget, () => elaborate(p)));
    }
    case "signoff": {
      const name = hints.signoff ?? (hints.we ? "The team" : "Best regards");
      return {
        heading: null,
        role: section.role,
        body: name === "Best regards" ? "Best regards" : `Best regards,\n${name}`,
      };
    }
    default: {
      // point, context and any role the engine does not know: a lead, facts, an implication.
      p.keyIndex++;
      const lead = section.role === "context" ? [] : [fill(p.rng.pick(POINT_LEADS), vars(p))];
      const s = fillTo(lead, budget - 12, more);
      const closing = elaborate(p);
      if (closing) s.push(closing);
      return block(s);
    }
  }
}

/** A numbered list of three to five steps, each a fact behind a lead, or a stock step when the facts run out. */
function writeSteps(p: Piece, budget: number): string {
  const steps: string[] = [];
  const count = Math.min(5, Math.max(3, Math.round(budget / 25)));
  for (let i = 0; i < count; i++) {
    const f = takeFact(p);
    p.keyIndex++;
    const lead = fill(STEP_LEADS[Math.min(i, STEP_LEADS.length - 1)], vars(p));
    steps.push(
      f ? `${lead}: ${lowerFirstWord(f, p.lowerStems)}` : fill(STEP_FALLBACKS[i % STEP_FALLBACKS.length], vars(p)),
    );
  }
  return steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
}

/** An evidence or example section: its first fact behind a lead naming its source (or "For example, "), then more. */
function writeEvidence(p: Piece, role: "evidence" | "example", budget: number): string[] {
  const f = p.facts[p.factIndex];
  const lead = role === "example" ? "For example, " : f?.source ? `According to ${f.source.reference_title}, ` : "";
  const first = takeFact(p);
  const s: (string | undefined)[] = first
    ? [lead ? lead + lowerFirstWord(first, p.lowerStems) : first]
    : [elaborate(p)];
  return fillTo(s, budget, () => factOrElaboration(p));
}

/** Polishes the sections and the title by the voice profile, if any, and lays them out in the template's format. */
function finishPiece(
  input: GenerationInput,
  title: string,
  blocks: SectionBlock[],
  used: Map<string, Source>,
): GenerationOutput {
  const traits = input.voice;
  const polish = (sentences: string[]): string[] => {
    if (!traits) return sentences;
    return sentences
      .filter((s) => !isOnlyAvoided(s, traits))
      .map((s) => removeAvoided(s, traits))
      .flatMap((s) => fitSentenceLength(s, traits))
      .map((s) => applySubstitutions(s, traits));
  };
  const polishLine = (line: string) => (traits ? applySubstitutions(removeAvoided(line, traits), traits) : line);
  const rendered = blocks.map((b) => ({
    ...b,
    body: Array.isArray(b.body) ? polish(b.body).join(" ") : b.body.split("\n").map(polishLine).join("\n"),
  }));
  const finalTitle = traits ? polishLine(title) : title;
  const text = renderFormat(input.template.format, finalTitle, rendered);
  return { title: finalTitle, text, sources: [...used.values()], word_count: wordCount(text) };
}

/** Lays the sections out as the template's format expects. */
function renderFormat(
  format: string,
  title: string,
  blocks: { heading: string | null; role: string; body: string }[],
): string {
  const body = blocks.filter((b) => b.body.trim());
  switch (format) {
    case "article":
    case "page":
      return [`# ${title}`, ...body.map((b) => (b.heading ? `## ${b.heading}\n\n${b.body}` : b.body))].join("\n\n");
    case "email":
      return [`Subject: ${title}`, ...body.map((b) => (b.heading ? `**${b.heading}**\n\n${b.body}` : b.body))].join(
        "\n\n",
      );
    case "thread": {
      const posts = body.flatMap((b) => splitPost(b.body));
      return posts.map((p, i) => `${i + 1}/${posts.length} ${p}`).join("\n\n");
    }
    case "release":
      return [
        "FOR IMMEDIATE RELEASE",
        `# ${title}`,
        ...body.map((b) => (b.heading ? `## ${b.heading}\n\n${b.body}` : b.body)),
        "###",
      ].join("\n\n");
    case "product":
      return [`# ${title}`, ...body.map((b) => (b.heading ? `**${b.heading}**\n\n${b.body}` : b.body))].join("\n\n");
    default:
      return [title, ...body.map((b) => b.body)].join("\n\n");
  }
}

/** Splits text into posts of at most 270 characters at sentence boundaries (room for the "n/m " prefix). */
function splitPost(text: string): string[] {
  const posts: string[] = [];
  let current = "";
  for (const s of splitSentences(text)) {
    const next = current ? `${current} ${s}` : s;
    if (next.length <= 270) current = next;
    else {
      if (current) posts.push(current);
      current = s.length <= 270 ? s : `${sliceWhole(s, 266)}…`;
    }
  }
  if (current) posts.push(current);
  return posts;
}
