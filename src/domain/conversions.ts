/**
 * Conversions of a content's text (Markdown, or plain text, which reads as Markdown) into other formats
 * (DESIGN §6): HTML, normalised Markdown, plain text, a numbered social thread and an email. Pure functions,
 * run on the worker pool.
 */

import type { Token } from "markdown-it";
import MarkdownIt from "markdown-it";
import type { TargetFormat } from "../db/conversions.js";
import { htmlToText, splitSentences } from "./text.js";

/** The longest post of a social thread, numbering included (X, Threads and Bluesky allow 280 or more). */
export const POST_LIMIT = 280;

/** The HTML renderer: raw HTML in the text is escaped, never passed through (a `<script>` comes out as text). */
const htmlRenderer = new MarkdownIt("default", { html: false, linkify: true, typographer: false });

/** The parser behind the text formats: raw HTML is recognised so that it can be dropped or reduced to its text. */
const blockParser = new MarkdownIt("default", { html: true, linkify: true, typographer: false });

/** One block of a Markdown document as plain text. */
export interface Block {
  kind: "heading" | "paragraph" | "item" | "code" | "row";
  text: string;
  /** Heading level, 1–6. */
  level?: number;
  /** A list item's marker ("-" or "3.") and nesting depth (0 for a top-level list). */
  marker?: string;
  depth?: number;
  /** Items of one list (nested lists included) and rows of one table share a group, so they stay together. */
  group?: number;
}

/** Elements whose inline content is not prose (`<script>…</script>` inside a paragraph). */
const SKIPPED_INLINE = /^<(script|style|noscript|template|textarea)\b[^>]*>$/i;

/** Whether a link's text already shows its address (autolinks, e-mail addresses). */
function showsAddress(text: string, href: string): boolean {
  const bare = (s: string) =>
    s
      .trim()
      .toLowerCase()
      .replace(/^(?:https?:\/\/|mailto:)/, "")
      .replace(/\/$/, "");
  return bare(text) === bare(href);
}

/**
 * The link addresses a document's plain text has written, and how many characters of addresses written again it may
 * still write (as many as the document has). A reference definition used k times wrote its address k times: a
 * 28 KB text of "[a] " under one long definition came out as 49 MB. An ordinary text never runs out.
 */
interface Addresses {
  shown: Set<string>;
  repeats: number;
}

/**
 * Plain text of an inline token run: marks dropped, links as "text (address)" (see Addresses for a repeated one),
 * images as their alt text. The text is kept in pieces and joined once: a link's text is read from its own pieces
 * (slicing the text built so far copied all of it at every link, quadratic in the number of links).
 */
function inlineText(children: Token[], breaks: boolean, addresses: Addresses): string {
  const out: string[] = [];
  let skipping: string | null = null;
  const links: { href: string; at: number }[] = [];
  for (const t of children) {
    if (skipping !== null) {
      if (t.type === "html_inline" && new RegExp(`^</${skipping}\\s*>$`, "i").test(t.content)) skipping = null;
      continue;
    }
    switch (t.type) {
      case "text":
      case "code_inline":
        out.push(t.content);
        break;
      case "softbreak":
        out.push(breaks ? "\n" : " ");
        break;
      case "hardbreak":
        out.push("\n");
        break;
      case "image":
        out.push(t.content);
        break;
      case "html_inline": {
        const m = SKIPPED_INLINE.exec(t.content);
        if (m) skipping = m[1];
        else if (/^<br\s*\/?>$/i.test(t.content)) out.push("\n");
        break;
      }
      case "link_open":
        links.push({ href: t.attrGet("href") ?? "", at: out.length });
        break;
      case "link_close": {
        const link = links.pop();
        if (!link?.href || showsAddress(out.slice(link.at).join(""), link.href)) break;
        if (addresses.shown.has(link.href)) {
          if (addresses.repeats < link.href.length) break;
          addresses.repeats -= link.href.length;
        } else addresses.shown.add(link.href);
        out.push(` (${link.href})`);
        break;
      }
    }
  }
  return out.join("");
}

/** The text without its trailing line breaks, counted from the end (/\n+$/ is quadratic on a long inner run). */
function withoutTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(0, end);
}

/**
 * The blocks of a Markdown document as plain text, in order: headings, paragraphs, list items, code and
 * table rows. Raw HTML is reduced to its visible text; with `breaks`, a single line break stays a line break
 * (emails), otherwise it is a space as Markdown renders it.
 */
export function markdownBlocks(markdown: string, options: { breaks?: boolean } = {}): Block[] {
  const breaks = options.breaks ?? false;
  const tokens = blockParser.parse(markdown, {});
  const blocks: Block[] = [];
  const lists: { ordered: boolean; next: number; group: number; pending: string | null }[] = [];
  let heading = 0;
  let row: string[] | null = null;
  let group = 0;
  let tableGroup = 0;
  const addresses: Addresses = { shown: new Set(), repeats: markdown.length };
  /** An item whose first content is not a paragraph still shows its marker. */
  const flushPending = () => {
    const list = lists.at(-1);
    if (list?.pending) {
      blocks.push({ kind: "item", text: "", marker: list.pending, depth: lists.length - 1, group: list.group });
      list.pending = null;
    }
  };
  for (const t of tokens) {
    switch (t.type) {
      case "heading_open":
        heading = Number(t.tag.slice(1));
        break;
      case "heading_close":
        heading = 0;
        break;
      case "bullet_list_open":
      case "ordered_list_open": {
        flushPending();
        const start = Number(t.attrGet("start") ?? 1);
        lists.push({
          ordered: t.type === "ordered_list_open",
          next: Number.isFinite(start) ? start : 1,
          group: lists[0]?.group ?? ++group,
          pending: null,
        });
        break;
      }
      case "bullet_list_close":
      case "ordered_list_close":
        lists.pop();
        break;
      case "list_item_open": {
        const list = lists.at(-1);
        if (!list) break;
        const n = t.info ? Number(t.info) : list.next;
        list.pending = list.ordered ? `${n}.` : "-";
        list.next = n + 1;
        break;
      }
      case "list_item_close":
        flushPending();
        break;
      case "table_open":
        tableGroup = ++group;
        break;
      case "tr_open":
        row = [];
        break;
      case "tr_close":
        if (row) blocks.push({ kind: "row", text: row.join(" | "), group: tableGroup });
        row = null;
        break;
      case "fence":
      case "code_block":
        flushPending();
        blocks.push({ kind: "code", text: withoutTrailingNewlines(t.content) });
        break;
      case "html_block": {
        flushPending();
        const text = htmlToText(t.content);
        if (text) blocks.push({ kind: "paragraph", text });
        break;
      }
      case "inline": {
        // Runs of blanks first: both patterns then match in one pass (no backtracking over long runs).
        const text = inlineText(t.children ?? [], breaks, addresses)
          .replace(/[ \t]+/g, " ")
          .replace(/ ?\n ?/g, "\n")
          .trim();
        if (row) {
          row.push(text.replace(/\s+/g, " "));
          break;
        }
        if (heading) {
          blocks.push({ kind: "heading", level: heading, text: text.replace(/\s+/g, " ") });
          break;
        }
        const list = lists.at(-1);
        if (list?.pending) {
          blocks.push({ kind: "item", text, marker: list.pending, depth: lists.length - 1, group: list.group });
          list.pending = null;
          break;
        }
        if (text) blocks.push({ kind: "paragraph", text });
        break;
      }
    }
  }
  return blocks.filter((b) => b.kind === "item" || b.text !== "");
}

/** Renders blocks as plain text: blank lines between blocks, list items and table rows one per line. */
export function blocksToText(blocks: Block[]): string {
  let out = "";
  let previous: Block | undefined;
  for (const b of blocks) {
    const text = b.kind === "item" ? `${"  ".repeat(b.depth ?? 0)}${b.marker} ${b.text}`.trimEnd() : b.text;
    if (previous) {
      const together = b.group !== undefined && previous.group === b.group && (b.kind === "item" || b.kind === "row");
      out += together ? "\n" : "\n\n";
    }
    out += text;
    previous = b;
  }
  return tidy(out);
}

/**
 * Trailing blanks off every line, control characters out, at most one blank line in a row, no blank lines
 * at either end; in linear time whatever the text (a line of a million spaces included).
 */
function tidy(text: string): string {
  return text
    .replace(CONTROL, "")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Plain text of a Markdown document: marks removed, links as "text (address)", raw HTML reduced to its text. */
export function markdownToPlain(markdown: string, options: { breaks?: boolean } = {}): string {
  return blocksToText(markdownBlocks(markdown, options));
}

/**
 * The longest output a conversion makes, in characters. A content's text is at most 500,000 characters, and its HTML
 * stays far below this; only links repeating a long address (one reference definition used thousands of times)
 * reach it: 56 KB of "[a] " under a long definition made 160 MB of HTML.
 */
export const MAX_OUTPUT_CHARS = 8_000_000;

/** A conversion whose output would be longer than MAX_OUTPUT_CHARS. */
export class OutputTooLarge extends Error {
  constructor(readonly chars: number) {
    super(`the output would be ${chars} characters`);
  }
}

/**
 * HTML of a Markdown document; raw HTML is escaped and unsafe link schemes (javascript:) are not links. Refused
 * (OutputTooLarge) before rendering when its links' and images' attributes (addresses, titles) alone pass
 * MAX_OUTPUT_CHARS.
 */
export function markdownToHtml(markdown: string): string {
  const env = {};
  const tokens = htmlRenderer.parse(markdown, env);
  // What a link or image repeats from its definition: its address and title.
  let repeated = 0;
  for (const t of tokens)
    for (const c of t.children ?? [])
      if (c.type === "link_open" || c.type === "image") for (const [, value] of c.attrs ?? []) repeated += value.length;
  if (repeated > MAX_OUTPUT_CHARS) throw new OutputTooLarge(repeated);
  return htmlRenderer.renderer.render(tokens, htmlRenderer.options, env).trim();
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const BULLET = /^( *)[*+]([ \t]+)(?=\S)/;
const BLOCK_START = /^ {0,3}(?:[-*+>]|\d{1,9}[.)]|#|`{3}|~{3}|\||<)/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b\ufeff]/g;

/**
 * The text as tidy Markdown with the same meaning: LF line ends, no control characters or trailing spaces
 * (a hard break becomes a backslash), ATX headings (`# Title`, Setext underlines converted, closing hashes
 * dropped), `-` bullets (when the text uses one kind: different bullets start different lists), `---` rules, a blank line around headings, rules and fenced code, never two blank
 * lines in a row. Fenced code is left as it is.
 */
export function normalizeMarkdown(text: string): string {
  const src = text.replace(/\r\n?/g, "\n").replace(CONTROL, "").split("\n");
  const out: string[] = [];
  const blank = () => {
    if (out.length > 0 && out[out.length - 1] !== "") out.push("");
  };
  // Lists with different bullets are different lists: bullets become "-" only when the text uses one kind.
  const bullets = new Set(src.filter((l) => !THEMATIC.test(l)).map((l) => /^ *([*+-])[ \t]+\S/.exec(l)?.[1]));
  bullets.delete(undefined);
  const unifyBullets = bullets.size <= 1;
  let fence: { char: string; size: number } | null = null;
  for (let i = 0; i < src.length; i++) {
    const raw = src[i];
    if (fence) {
      out.push(raw.trimEnd());
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(raw);
      if (close && close[1][0] === fence.char && close[1].length >= fence.size) {
        fence = null;
        out.push("");
      }
      continue;
    }
    const open = FENCE.exec(raw);
    if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
      blank();
      fence = { char: open[1][0], size: open[1].length };
      out.push(raw.trimEnd());
      continue;
    }
    let line = raw;
    // Two trailing spaces are a hard break; trailing spaces are about to go, so say it with a backslash.
    if (/\S {2,}$/.test(line) && (src[i + 1] ?? "").trim() !== "") line = `${line.trimEnd()}\\`;
    line = line.trimEnd();
    if (line === "") {
      blank();
      continue;
    }
    // A one-line paragraph underlined with = or - is a Setext heading.
    const next = src[i + 1];
    const startsParagraph = out.length === 0 || out[out.length - 1] === "";
    if (next !== undefined && startsParagraph && SETEXT.test(next) && !BLOCK_START.test(line) && !/^ {4}/.test(line)) {
      blank();
      out.push(`${next.trim()[0] === "=" ? "#" : "##"} ${line.trim()}`, "");
      i++;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const content = withoutClosingHashes((atx[2] ?? "").trim());
      blank();
      out.push(content ? `${atx[1]} ${content}` : atx[1], "");
      continue;
    }
    if (THEMATIC.test(line)) {
      blank();
      out.push("---", "");
      continue;
    }
    out.push(unifyBullets ? line.replace(BULLET, "$1-$2") : line);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  while (out.length > 0 && out[0] === "") out.shift();
  return out.join("\n");
}

/** An ATX heading's text without its optional closing sequence ("## Title ##" → "Title"). */
function withoutClosingHashes(content: string): string {
  let j = content.length;
  while (j > 0 && content[j - 1] === "#") j -= 1;
  if (j === content.length || (j > 0 && content[j - 1] !== " " && content[j - 1] !== "\t")) return content;
  return content.slice(0, j).trimEnd();
}

/** A piece of a thread: a heading (which starts a post) or a sentence, with the block it came from. */
interface Unit {
  text: string;
  heading: boolean;
  block: number;
  /** The list or table of the block, if any: its items and rows go one per line. */
  group?: number;
}

/** "3/7 " at the start of a paragraph: the text is already a numbered thread. */
const THREAD_NUMBER = /^\d{1,3}\/\d{1,3}\s+/;

function threadUnits(blocks: Block[]): Unit[] {
  const numbered = blocks.filter((b) => b.kind === "paragraph" && THREAD_NUMBER.test(b.text)).length >= 2;
  const units: Unit[] = [];
  blocks.forEach((b, block) => {
    const collapse = (s: string) => s.replace(/\s+/g, " ").trim();
    const group = b.group;
    if (b.kind === "heading") units.push({ text: collapse(b.text), heading: true, block });
    else if (b.kind === "code" || b.kind === "row")
      units.push({ text: collapse(b.text), heading: false, block, group });
    else {
      let text = b.kind === "paragraph" && numbered ? b.text.replace(THREAD_NUMBER, "") : b.text;
      if (b.kind === "item") text = `${b.marker} ${text}`;
      for (const s of splitSentences(text)) units.push({ text: collapse(s), heading: false, block, group });
    }
  });
  return units.filter((u) => u.text !== "");
}

/** Cuts a string into pieces of at most `size` UTF-16 units without splitting a surrogate pair. */
function hardSplit(word: string, size: number): string[] {
  const pieces: string[] = [];
  let cur = "";
  for (const ch of word) {
    if (cur.length + ch.length > size) {
      pieces.push(cur);
      cur = "";
    }
    cur += ch;
  }
  if (cur) pieces.push(cur);
  return pieces;
}

/** Splits a sentence too long for one post at word boundaries (a word longer than a post is cut). */
function splitWords(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let cur = "";
  for (const word of text.split(" ")) {
    if (word.length > budget) {
      if (cur) pieces.push(cur);
      const parts = hardSplit(word, budget);
      pieces.push(...parts.slice(0, -1));
      cur = parts[parts.length - 1];
    } else if (!cur) cur = word;
    else if (cur.length + 1 + word.length <= budget) cur += ` ${word}`;
    else {
      pieces.push(cur);
      cur = word;
    }
  }
  if (cur) pieces.push(cur);
  return pieces;
}

/** Packs units into posts of at most `budget` characters: whole sentences, a heading starting a post. */
function pack(units: Unit[], budget: number): string[] {
  const posts: string[] = [];
  let cur = "";
  let last: Unit | undefined;
  const flush = () => {
    if (cur) posts.push(cur);
    cur = "";
  };
  for (const u of units) {
    if (u.heading) flush();
    const sep =
      cur === "" || !last
        ? ""
        : last.heading
          ? "\n"
          : last.block === u.block
            ? " "
            : last.group !== undefined && last.group === u.group
              ? "\n"
              : "\n\n";
    if (cur.length + sep.length + u.text.length <= budget) cur += sep + u.text;
    else if (u.text.length <= budget) {
      flush();
      cur = u.text;
    } else {
      flush();
      const pieces = splitWords(u.text, budget);
      for (const piece of pieces.slice(0, -1)) posts.push(piece);
      cur = pieces[pieces.length - 1] ?? "";
    }
    last = u;
  }
  flush();
  return posts;
}

/**
 * A numbered thread ("1/n …") of posts of at most POST_LIMIT characters, numbering included. Sentences are
 * kept whole and packed in order; a heading starts a new post; a sentence longer than a post is split at
 * word boundaries. A text that already is a numbered thread is renumbered.
 */
export function socialThread(blocks: Block[]): string[] {
  const units = threadUnits(blocks);
  if (units.length === 0) return [];
  // The prefix "i/n " is at most 2·digits(n) + 2 long; grow the room for it until the count fits.
  for (let digits = 1; ; digits++) {
    const posts = pack(units, POST_LIMIT - (2 * digits + 2));
    if (String(posts.length).length <= digits) return posts.map((p, i) => `${i + 1}/${posts.length} ${p}`);
  }
}

/** The longest subject made up from the body's first sentence. */
const SUBJECT_CHARS = 100;

function cutAtWord(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, "")}…`;
}

/**
 * An email from a content: the subject is an explicit "Subject:" first line, else the title, else the first
 * heading, else the start of the first sentence; a leading heading (the piece's title) leaves the body. The
 * body is plain text with its line breaks kept, so a greeting ("Hi Sam,") and a sign-off ("Best regards,"
 * above a name) stay on their own lines.
 */
export function emailOf(title: string, text: string): { subject: string; body: string } {
  let source = text.replace(/\r\n?/g, "\n");
  let subject = "";
  const lead = source.length - source.trimStart().length;
  const end = source.indexOf("\n", lead);
  const line = /^subject:(.*)$/i.exec(source.slice(lead, end < 0 ? source.length : end));
  if (line) {
    subject = markdownToPlain(line[1].trim()).replace(/\s+/g, " ");
    source = end < 0 ? "" : source.slice(end + 1);
  }
  let blocks = markdownBlocks(source, { breaks: true });
  if (!line && blocks[0]?.kind === "heading") {
    subject = title.trim() || blocks[0].text;
    blocks = blocks.slice(1);
  }
  const body = blocksToText(blocks);
  if (!subject) subject = title.trim() || cutAtWord(splitSentences(body)[0] ?? "", SUBJECT_CHARS);
  return { subject: subject.replace(/\s+/g, " ").trim(), body };
}

/** What a conversion task is given: the content's title and current text, and the format wanted. */
export interface ConversionInput {
  title: string;
  text: string;
  target_format: TargetFormat;
}

/**
 * What it makes (DESIGN §9): `posts` for social_thread and `subject` for email, else null; or, for an output longer
 * than MAX_OUTPUT_CHARS, how long it would have been (a value: it crosses back from the worker thread).
 */
export type ConversionOutput =
  | { output: string; posts: string[] | null; subject: string | null }
  | { tooLargeChars: number };

/** Converts a content's text into a target format (runs on the worker pool). */
export function convertContent(input: ConversionInput): ConversionOutput {
  try {
    const converted = convertOrThrow(input);
    if (converted.output.length > MAX_OUTPUT_CHARS) return { tooLargeChars: converted.output.length };
    return converted;
  } catch (e) {
    if (e instanceof OutputTooLarge) return { tooLargeChars: e.chars };
    // Past V8's longest string (about 512 million characters): too large, by any measure.
    if (e instanceof RangeError && /Invalid string length/.test(e.message)) return { tooLargeChars: 2 ** 29 };
    throw e;
  }
}

function convertOrThrow(input: ConversionInput): { output: string; posts: string[] | null; subject: string | null } {
  switch (input.target_format) {
    case "html":
      return { output: markdownToHtml(input.text), posts: null, subject: null };
    case "markdown":
      return { output: normalizeMarkdown(input.text), posts: null, subject: null };
    case "plain_text":
      return { output: markdownToPlain(input.text), posts: null, subject: null };
    case "social_thread": {
      const posts = socialThread(markdownBlocks(input.text));
      return { output: posts.join("\n\n"), posts, subject: null };
    }
    case "email": {
      const { subject, body } = emailOf(input.title, input.text);
      return { output: body, posts: null, subject };
    }
  }
}
