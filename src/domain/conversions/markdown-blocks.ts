/**
 * Reading a Markdown document (or plain text, which reads as Markdown) as blocks of plain text, and writing blocks
 * back as plain text: what the plain-text, social-thread and email conversions share.
 */
import type { Token } from "markdown-it";
import MarkdownIt from "markdown-it";
import { htmlToText } from "../text.js";

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

/** A list being read: its kind, its next number, its group and the marker of an item whose text is still to come. */
interface OpenList {
  ordered: boolean;
  next: number;
  group: number;
  pending: string | null;
}

/** What the walk over a document's tokens has built so far, and where in the document it is. */
interface BlockWalk {
  blocks: Block[];
  lists: OpenList[];
  /** The level of the heading being read, 0 outside a heading. */
  heading: number;
  /** The cells of the table row being read, null outside a row. */
  row: string[] | null;
  /** The last group given out, and the current table's. */
  group: number;
  tableGroup: number;
  breaks: boolean;
  addresses: Addresses;
}

/**
 * The blocks of a Markdown document as plain text, in order: headings, paragraphs, list items, code and
 * table rows. Raw HTML is reduced to its visible text; with `breaks`, a single line break stays a line break
 * (emails), otherwise it is a space as Markdown renders it.
 */
export function markdownBlocks(markdown: string, options: { breaks?: boolean } = {}): Block[] {
  const tokens = blockParser.parse(markdown, {});
  const walk: BlockWalk = {
    blocks: [],
    lists: [],
    heading: 0,
    row: null,
    group: 0,
    tableGroup: 0,
    breaks: options.breaks ?? false,
    addresses: { shown: new Set(), repeats: markdown.length },
  };
  for (const t of tokens) readToken(walk, t);
  return walk.blocks.filter((b) => b.kind === "item" || b.text !== "");
}

/** Reads one block-level token into the walk: opens and closes headings, lists, items and rows, adds blocks. */
function readToken(walk: BlockWalk, t: Token): void {
  switch (t.type) {
    case "heading_open":
      walk.heading = Number(t.tag.slice(1));
      break;
    case "heading_close":
      walk.heading = 0;
      break;
    case "bullet_list_open":
    case "ordered_list_open":
      openList(walk, t);
      break;
    case "bullet_list_close":
    case "ordered_list_close":
      walk.lists.pop();
      break;
    case "list_item_open":
      openItem(walk, t);
      break;
    case "list_item_close":
      flushPending(walk);
      break;
    case "table_open":
      walk.tableGroup = ++walk.group;
      break;
    case "tr_open":
      walk.row = [];
      break;
    case "tr_close":
      if (walk.row) walk.blocks.push({ kind: "row", text: walk.row.join(" | "), group: walk.tableGroup });
      walk.row = null;
      break;
    case "fence":
    case "code_block":
      flushPending(walk);
      walk.blocks.push({ kind: "code", text: withoutTrailingNewlines(t.content) });
      break;
    case "html_block": {
      flushPending(walk);
      const text = htmlToText(t.content);
      if (text) walk.blocks.push({ kind: "paragraph", text });
      break;
    }
    case "inline":
      readInline(walk, t);
      break;
  }
}

/** An item whose first content is not a paragraph still shows its marker. */
function flushPending(walk: BlockWalk): void {
  const list = walk.lists.at(-1);
  if (list?.pending) {
    walk.blocks.push({ kind: "item", text: "", marker: list.pending, depth: walk.lists.length - 1, group: list.group });
    list.pending = null;
  }
}

/** Opens a list: numbered from its start, in the group of the top-level list it is nested in. */
function openList(walk: BlockWalk, t: Token): void {
  flushPending(walk);
  const start = Number(t.attrGet("start") ?? 1);
  walk.lists.push({
    ordered: t.type === "ordered_list_open",
    next: Number.isFinite(start) ? start : 1,
    group: walk.lists[0]?.group ?? ++walk.group,
    pending: null,
  });
}

/** Opens a list item: its marker ("-" or its number) waits for the item's text. */
function openItem(walk: BlockWalk, t: Token): void {
  const list = walk.lists.at(-1);
  if (!list) return;
  const n = t.info ? Number(t.info) : list.next;
  list.pending = list.ordered ? `${n}.` : "-";
  list.next = n + 1;
}

/** Reads an inline run as the text of the table cell, heading, list item or paragraph it belongs to. */
function readInline(walk: BlockWalk, t: Token): void {
  // Runs of blanks first: both patterns then match in one pass (no backtracking over long runs).
  const text = inlineText(t.children ?? [], walk.breaks, walk.addresses)
    .replace(/[ \t]+/g, " ")
    .replace(/ ?\n ?/g, "\n")
    .trim();
  if (walk.row) {
    walk.row.push(text.replace(/\s+/g, " "));
    return;
  }
  if (walk.heading) {
    walk.blocks.push({ kind: "heading", level: walk.heading, text: text.replace(/\s+/g, " ") });
    return;
  }
  const list = walk.lists.at(-1);
  if (list?.pending) {
    walk.blocks.push({ kind: "item", text, marker: list.pending, depth: walk.lists.length - 1, group: list.group });
    list.pending = null;
    return;
  }
  if (text) walk.blocks.push({ kind: "paragraph", text });
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

/** Control characters and invisible marks that no output format keeps. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
export const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b\ufeff]/g;
