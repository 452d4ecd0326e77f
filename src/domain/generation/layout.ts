/**
 * The finish of a builtin piece: the voice profile's polish and the voice memories' rules over each block's
 * sentences (a list's lines one by one), then the layout the template's format expects.
 */
import { sliceWhole } from "../../runtime/chars.js";
import { splitSentences } from "../text.js";
import { followVoiceRules, type VoiceRules } from "./memory-rules.js";
import { PARAGRAPH } from "./piece.js";
import type { SectionBlock } from "./sections.js";
import { sentenceWords } from "./sentence-split.js";
import { applySubstitutions, fitSentenceLength, isOnlyAvoided, removeAvoided, type VoiceTraits } from "./voice.js";

/** A block as laid out: its heading, role and text. */
interface Rendered {
  heading: string | null;
  role: string;
  body: string;
}

/** The voice profile's polish of a block's sentences. */
function polish(sentences: string[], traits: VoiceTraits | null): string[] {
  if (!traits) return sentences;
  return sentences
    .filter((s) => !isOnlyAvoided(s, traits))
    .map((s) => removeAvoided(s, traits))
    .flatMap((s) => fitSentenceLength(s, traits))
    .map((s) => applySubstitutions(s, traits));
}

/**
 * The sentences within the voice memory's limit, the others left out and counted in `cut`: a sentence no joint
 * could split is not kept past a limit a person set. `lead` words stand before the first sentence kept (a dateline,
 * a bullet's label) and count with it.
 */
function withinLimit(sentences: string[], rules: VoiceRules, cut: { count: number }, lead = 0): string[] {
  const max = rules.maxSentenceWords;
  if (max === null) return sentences;
  const out: string[] = [];
  for (const s of sentences) {
    if (s === PARAGRAPH || sentenceWords(s) + (out.length === 0 ? lead : 0) <= max) out.push(s);
    else cut.count++;
  }
  return out;
}

/**
 * A layout line's text after its marker ("1. ", "- ", "> "), polished and made to follow the rules; null when the
 * line goes: it was nothing but avoided sentences, or every sentence ran past the voice's limit.
 */
function polishLine(
  line: string,
  traits: VoiceTraits | null,
  rules: VoiceRules,
  cut: { count: number },
): string | null {
  const m = /^((?:\d+\.|-|>)\s+(?:\*\*[^*]+\*\*:\s+)?)?(.*)$/s.exec(line);
  const marker = m?.[1] ?? "";
  const text = m?.[2] ?? line;
  if (!text.trim()) return line;
  const polished = traits ? applySubstitutions(removeAvoided(text, traits), traits) : text;
  if (!polished.trim()) return null;
  // A bullet's bold label reads as the start of its first sentence.
  const label = sentenceWords(marker.replace(/^(?:\d+\.|-|>)\s+/, ""));
  if (rules.maxSentenceWords === null) return marker + followVoiceRules([polished], rules).join(" ");
  const kept = withinLimit(followVoiceRules(splitSentences(polished), rules), rules, cut, label);
  return kept.length > 0 ? marker + kept.join(" ") : null;
}

/** A numbered list's items numbered 1, 2, 3 … in order, after items were left out. */
function renumber(text: string): string {
  let n = 0;
  return text.replace(/^\d+\. /gm, () => `${++n}. `);
}

/** A block's sentences cut into paragraphs at the PARAGRAPH marks, empty ones left out. */
function paragraphs(sentences: string[]): string[][] {
  const out: string[][] = [[]];
  for (const s of sentences) {
    if (s === PARAGRAPH) out.push([]);
    else if (s) out[out.length - 1].push(s);
  }
  return out.filter((para) => para.length > 0);
}

/**
 * The blocks polished by the voice profile and the voice memories' rules; `cut` counts the sentences left out
 * because they ran past the voice memory's sentence limit.
 */
export function polishBlocks(
  blocks: SectionBlock[],
  traits: VoiceTraits | null,
  rules: VoiceRules,
  cut: { count: number } = { count: 0 },
): Rendered[] {
  return blocks.map((b) => {
    // A sign-off and a release's About lines are names and placeholders, not the voice's sentences.
    if (b.role === "signoff") return { heading: b.heading, role: b.role, body: [b.body].flat().join("\n") };
    // A dateline runs into the first sentence and counts with it.
    const lead = b.prefix && !b.prefix.endsWith(",") ? sentenceWords(b.prefix) : 0;
    const body = Array.isArray(b.body)
      ? paragraphs(b.body)
          .map((sentences, i) =>
            withinLimit(followVoiceRules(polish(sentences, traits), rules), rules, cut, i === 0 ? lead : 0).join(" "),
          )
          .filter(Boolean)
          .join("\n\n")
      : renumber(
          b.body
            .split("\n")
            .map((line) => polishLine(line, traits, rules, cut))
            .filter((line) => line !== null)
            .join("\n"),
        );
    // A greeting ("Hi [Name],") is a line of its own; a dateline runs into the paragraph it dates.
    const joined = b.prefix && body ? `${b.prefix}${b.prefix.endsWith(",") ? "\n\n" : " "}${body}` : body;
    return { heading: b.heading, role: b.role, body: joined };
  });
}

/** The title polished as a line (substitutions and avoided phrases only). */
export function polishTitle(title: string, traits: VoiceTraits | null): string {
  return traits ? applySubstitutions(removeAvoided(title, traits), traits) : title;
}

/** A block under its heading, the heading marked as the format marks it. */
function withHeading(b: Rendered, mark: (heading: string) => string): string {
  return b.heading ? `${mark(b.heading)}\n\n${b.body}` : b.body;
}

/** Lays the sections out as the template's format expects. */
export function renderFormat(format: string, title: string, blocks: Rendered[]): string {
  const body = blocks.filter((b) => b.body.trim());
  const md = (h: string) => `## ${h}`;
  const bold = (h: string) => `**${h}**`;
  switch (format) {
    case "article":
    case "page":
      return [`# ${title}`, ...body.map((b) => withHeading(b, md))].join("\n\n");
    case "email":
      return [`Subject: ${title}`, ...body.map((b) => withHeading(b, bold))].join("\n\n");
    case "thread": {
      const posts = body.flatMap((b) => splitPost(b.body));
      return posts.map((p, i) => `${i + 1}/${posts.length} ${p}`).join("\n\n");
    }
    case "release":
      return ["FOR IMMEDIATE RELEASE", `# ${title}`, ...body.map((b) => withHeading(b, md)), "###"].join("\n\n");
    case "product":
      return [`# ${title}`, ...body.map((b) => withHeading(b, bold))].join("\n\n");
    case "post":
      // A post opens on its hook line: a social network shows no title.
      return body.map((b) => b.body).join("\n\n");
    default:
      return [title, ...body.map((b) => b.body)].join("\n\n");
  }
}

/** Splits text into posts of at most 270 characters at sentence boundaries (room for the "n/m " prefix). */
function splitPost(text: string): string[] {
  const posts: string[] = [];
  let current = "";
  for (const s of splitSentences(text.replace(/\n+/g, " "))) {
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
