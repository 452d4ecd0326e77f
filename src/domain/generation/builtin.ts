/**
 * The builtin engine: writes a piece from a template's sections, a direction, memories, the reference passages
 * most relevant to the direction and the workspace's voice profile, with no model. Same input and seed, same text.
 */
import { sliceWhole } from "../../runtime/chars.js";
import { splitSentences } from "../text.js";
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

/** Openers by tone; "In today's fast-paced world" is the kind of stock phrase writers delete, and learning notices. */
const OPENERS: Record<string, string[]> = {
  conversational: ["In today's fast-paced world, {topic} matters more than ever.", "Let's talk about {topic}."],
  professional: [
    "In today's fast-paced world, {topic} has become a priority for every team.",
    "{Topic} is now a practical concern for most organisations.",
  ],
  persuasive: [
    "In today's fast-paced world, {topic} is no longer optional.",
    "If {topic} is not on your list yet, it should be.",
  ],
  informative: [
    "In today's fast-paced world, {topic} deserves a clear explanation.",
    "Here is what you need to know about {topic}.",
  ],
  enthusiastic: [
    "In today's fast-paced world, {topic} is where the excitement is!",
    "{Topic} is having a moment, and for good reason.",
  ],
};

const POINT_LEADS = [
  "One thing stands out about {kw}.",
  "Consider {kw}.",
  "{Kw} deserves a closer look.",
  "Then there is {kw}.",
  "Another part of the picture is {kw}.",
];

const ELABORATIONS = [
  "Teams can utilize this to move faster with less guesswork.",
  "This means you can utilize what you already have instead of starting from scratch.",
  "The practical upshot is fewer surprises and better decisions about {topic}.",
  "That is why {kw} keeps coming up in conversations about {topic}.",
  "Getting this right early saves effort later.",
  "Small changes here tend to compound over time.",
  "It is worth writing down what good looks like before changing anything.",
  "The teams that do this well treat {kw} as a habit, not a project.",
  "None of this requires new tools; it requires a clear decision about priorities.",
  "A short review every few weeks keeps the approach honest.",
  "Measuring one or two outcomes is enough to see whether it works.",
  "The first attempt will not be perfect, and that is fine.",
  "Sharing what you learn makes the next round easier for everyone.",
  "Clarity here prevents the same discussion from happening twice.",
];

const STEP_LEADS = [
  "Start with {kw}",
  "Then look at {kw}",
  "Next, review {kw}",
  "After that, revisit {kw}",
  "Finally, check {kw}",
];
const STEP_FALLBACKS = [
  "Decide what success with {topic} looks like and write it down.",
  "Pick one place to try it and agree on a date to review the results.",
  "Share the results and adjust before rolling it out further.",
  "Make the new approach the default, then revisit it next quarter.",
];

const CONNECTIVES = ["", "", "In fact, ", "Notably, ", "What is more, ", "Importantly, "];

const CTAS: Record<string, string[]> = {
  conversational: ["Give it a try and let me know how it goes.", "Why not start with {topic} this week?"],
  professional: [
    "Contact our team to discuss how {topic} fits your plans.",
    "Start with one pilot project on {topic} and measure the results.",
  ],
  persuasive: [
    "Start today: every week without {topic} is a week of lost ground.",
    "Don't wait. Make {topic} part of your plan now.",
  ],
  informative: [
    "Use these points as a checklist the next time {topic} comes up.",
    "Read the sources above to go deeper into {topic}.",
  ],
  enthusiastic: ["Jump in and see what {topic} can do for you!", "Let's make {topic} happen together!"],
};

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

/** Writes one piece. */
export function generateBuiltin(input: GenerationInput): GenerationOutput {
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
  const totalWords = input.template.sections.reduce((n, sct) => n + sct.words, 0) || 1;
  const hints = voiceHints(input);
  const used = new Map<string, Source>();
  let factIndex = 0;
  let keyIndex = 0;
  const vars = () => ({ topic, kw: keys[keyIndex % keys.length] ?? topic, audience: audience ?? "readers" });

  let quota = Number.POSITIVE_INFINITY;
  const takeFact = (): string | undefined => {
    if (quota <= 0) return undefined;
    quota--;
    const f = facts[factIndex++];
    if (!f) return undefined;
    if (f.source)
      used.set(f.source.text, { reference_material_id: f.source.reference_material_id, passage: f.source.text });
    return f.sentence;
  };
  // Each elaboration at most once per piece: a thin reference set gives a shorter piece, not a repetitive one.
  const elaborations = shuffle(ELABORATIONS, rng);
  const elaborate = () => {
    const next = elaborations.pop();
    return next === undefined ? undefined : fill(next, vars());
  };
  const fillTo = (sentences: (string | undefined)[], budget: number, extra: () => string | undefined): string[] => {
    const out = sentences.filter((x): x is string => x !== undefined);
    let guard = 0;
    while (wordCount(out.join(" ")) < budget && guard++ < 40) {
      const next = extra();
      if (!next) break;
      out.push(next);
    }
    return out;
  };
  const factOrElaboration = () => {
    const f = takeFact();
    if (!f) return elaborate();
    const connective = rng.pick(CONNECTIVES);
    return connective ? connective + lowerFirstWord(f, lowerStems) : f;
  };

  let title = "";
  const blocks: { heading: string | null; role: string; body: string[] | string }[] = [];
  for (const section of input.template.sections) {
    const budget = Math.max(section.words, 8);
    // A section takes facts in proportion to its share of the piece, so later sections are not left bare.
    quota = Math.max(1, Math.ceil((facts.length * section.words) / totalWords));
    switch (section.role) {
      case "headline":
      case "subject": {
        const patterns =
          section.role === "subject"
            ? ["{Topic}: what you need to know", "A quick note on {topic}", "{Topic}, explained"]
            : [
                "{Topic}: A Practical Guide",
                "Why {Topic} Matters Now",
                "What {Topic} Means for {Audience}",
                "Getting {Topic} Right",
              ];
        title = titleCase(fill(rng.pick(patterns), vars()));
        break;
      }
      case "hook": {
        const s: (string | undefined)[] = [fill(rng.pick(OPENERS[tone]), vars())];
        if (audience) s.push(`If you work with ${audience}, this is for you.`);
        blocks.push({ heading: section.heading, role: section.role, body: fillTo(s, budget, factOrElaboration) });
        break;
      }
      case "steps": {
        const steps: string[] = [];
        const count = Math.min(5, Math.max(3, Math.round(budget / 25)));
        for (let i = 0; i < count; i++) {
          const f = takeFact();
          keyIndex++;
          const lead = fill(STEP_LEADS[Math.min(i, STEP_LEADS.length - 1)], vars());
          steps.push(
            f ? `${lead}: ${lowerFirstWord(f, lowerStems)}` : fill(STEP_FALLBACKS[i % STEP_FALLBACKS.length], vars()),
          );
        }
        blocks.push({
          heading: section.heading,
          role: section.role,
          body: steps.map((s, i) => `${i + 1}. ${s}`).join("\n"),
        });
        break;
      }
      case "quote": {
        const f = takeFact() ?? fill("{Topic} is worth the effort.", vars());
        blocks.push({ heading: section.heading, role: section.role, body: `> ${f}` });
        break;
      }
      case "evidence":
      case "example": {
        const f = facts[factIndex];
        const lead =
          section.role === "example" ? "For example, " : f?.source ? `According to ${f.source.reference_title}, ` : "";
        const first = takeFact();
        const s: (string | undefined)[] = first
          ? [lead ? lead + lowerFirstWord(first, lowerStems) : first]
          : [elaborate()];
        blocks.push({ heading: section.heading, role: section.role, body: fillTo(s, budget, factOrElaboration) });
        break;
      }
      case "cta": {
        blocks.push({ heading: section.heading, role: section.role, body: [fill(rng.pick(CTAS[tone]), vars())] });
        break;
      }
      case "summary": {
        const recap = keys.slice(0, 3).join(", ");
        const s: (string | undefined)[] = [
          `In short, ${topic} comes down to ${recap}.`,
          "Start small, measure what changes, and build on what works.",
        ];
        blocks.push({ heading: section.heading, role: section.role, body: fillTo(s, budget, elaborate) });
        break;
      }
      case "signoff": {
        const name = hints.signoff ?? (hints.we ? "The team" : "Best regards");
        blocks.push({
          heading: null,
          role: section.role,
          body: name === "Best regards" ? "Best regards" : `Best regards,\n${name}`,
        });
        break;
      }
      default: {
        // point, context and any role the engine does not know: a lead, facts, an implication.
        keyIndex++;
        const lead = section.role === "context" ? [] : [fill(rng.pick(POINT_LEADS), vars())];
        const s = fillTo(lead, budget - 12, factOrElaboration);
        const closing = elaborate();
        if (closing) s.push(closing);
        blocks.push({ heading: section.heading, role: section.role, body: s });
      }
    }
  }
  if (!title) title = titleCase(topic);

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
