/** Plain text from Markdown and HTML, and the word, sentence and passage splitting that reference materials use. */
import { convert, type DomNode, type FormatCallback, type HtmlToTextOptions } from "html-to-text";
import MarkdownIt from "markdown-it";

/** The formats a reference material may arrive in (DESIGN §9 `source_type`, less `file`). */
export type TextFormat = "text" | "markdown" | "html";

/** Passages aim at whole paragraphs or sentences of at least this many words … */
export const PASSAGE_MIN_WORDS = 40;
/** … and at most this many (a single sentence longer than this is cut at line breaks, then between words). */
export const PASSAGE_MAX_WORDS = 160;

const headings = ["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({
  selector,
  options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 2 },
}));

/** Elements whose content is not prose a reader sees: dropped whole. */
const DROPPED = [
  "head",
  "title",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "canvas",
  "iframe",
  "object",
  "embed",
  "video",
  "audio",
  "img",
  "picture",
  "button",
  "select",
  "textarea",
  "input",
  "hr",
];

/** Deeper elements are left out: html-to-text walks the tree recursively, and real pages nest far less. */
export const HTML_MAX_DEPTH = 256;

/** Row groups whose rows belong to the table around them (dataTable walked `center` too). */
const ROW_GROUPS = new Set(["thead", "tbody", "tfoot", "center"]);

/**
 * A table's rows as lines, its cells side by side separated by a space, line by line for cells of several lines (what
 * html-to-text's dataTable gave once its padding was collapsed, blank lines inside a row included), in time linear in
 * the cells' lines. dataTable's own layout was O(columns²) (3 s for 40,000 cells, or for eight cells of colspan 5,000:
 * a 208-byte body) and recursed on rowspan until the stack overflowed (rowspan=20000: a 500); spans are not laid out
 * here.
 */
function rowsToString(rows: { text: string }[][]): string {
  const lines: string[] = [];
  for (const row of rows) {
    // Line i of the row: line i of each cell that has one, not blank. Built cell by cell, so a tall cell beside many
    // short ones costs its own lines only.
    const rowLines: string[][] = [];
    for (const cell of row)
      cell.text.split("\n").forEach((text, i) => {
        const line = rowLines[i] ?? [];
        rowLines[i] = line;
        if (text.trim() !== "") line.push(text);
      });
    // A row's blank lines at its ends are dropped: a spacer row (<td>&nbsp;</td>) would split the table in two.
    let first = 0;
    let last = rowLines.length - 1;
    while (first <= last && rowLines[first].length === 0) first++;
    while (last >= first && rowLines[last].length === 0) last--;
    for (let i = first; i <= last; i++) lines.push(rowLines[i].join(" "));
  }
  return lines.join("\n");
}

const tableRows: FormatCallback = (elem, walk, builder, formatOptions) => {
  builder.openTable();
  // Row groups by a stack, not recursion: the parser nests <tbody> in <tbody> as deep as the text says.
  const pending: DomNode[] = [...(elem.children ?? [])].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type !== "tag" || !node.name) continue;
    if (ROW_GROUPS.has(node.name)) {
      for (let i = (node.children ?? []).length - 1; i >= 0; i--) pending.push(node.children![i]);
      continue;
    }
    if (node.name !== "tr") continue;
    builder.openTableRow();
    for (const cell of node.children ?? []) {
      if (cell.type !== "tag" || (cell.name !== "td" && cell.name !== "th")) continue;
      builder.openTableCell();
      walk(cell.children ?? [], builder);
      builder.closeTableCell();
    }
    builder.closeTableRow();
  }
  builder.closeTable({
    tableToString: rowsToString,
    leadingLineBreaks: formatOptions.leadingLineBreaks ?? 2,
    trailingLineBreaks: formatOptions.trailingLineBreaks ?? 2,
  });
};

const HTML_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  formatters: { tableRows },
  decodeEntities: true,
  limits: { maxDepth: HTML_MAX_DEPTH, ellipsis: "" },
  selectors: [
    ...DROPPED.map((selector) => ({ selector, format: "skip" })),
    ...headings,
    { selector: "a", options: { ignoreHref: true } },
    { selector: "blockquote", format: "block" },
    { selector: "ul", options: { itemPrefix: "- " } },
    { selector: "table", format: "tableRows" },
  ],
};

// Raw HTML inside Markdown is allowed so that the HTML step can drop scripts and tags instead of
// keeping them as literal text.
const markdown = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** Control characters other than tab and newline, and invisible marks that only get in the way. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b\ufeff]/g;

/** Normalizes plain text: LF line ends, no control characters, no trailing spaces, at most one blank line in a row. */
export function normalizeText(text: string): string {
  return (
    text
      .replace(/\r\n?/g, "\n")
      .replace(CONTROL, "")
      .split("\n")
      // trimEnd, not /\s+$/: the regex is quadratic on long runs of spaces inside a line.
      .map((line) => line.trimEnd())
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .replace(/^\n+/, "")
      .trimEnd()
  );
}

/**
 * Plain text of an HTML document or fragment: scripts, styles and other non-prose elements dropped, tags
 * removed, entities decoded, block elements separated by blank lines, list items one per line.
 */
export function htmlToText(html: string): string {
  const text = convert(html, HTML_OPTIONS);
  // html-to-text indents nested lists and quotes; plain text for generation needs no indentation.
  return normalizeText(
    text
      .replace(/\u00a0/g, " ")
      .split("\n")
      .map((line) => line.replace(/[ \t]+/g, " ").trim())
      .join("\n"),
  );
}

/** Plain text of a Markdown document (CommonMark with tables and strikethrough; raw HTML is stripped). */
export function markdownToText(md: string): string {
  return htmlToText(markdown.render(md));
}

/** Plain text of content in one of the accepted formats. */
export function toPlainText(content: string, format: TextFormat): string {
  if (format === "markdown") return markdownToText(content);
  if (format === "html") return htmlToText(content);
  return normalizeText(content);
}

// Ideographic scripts write words without spaces: each character counts as a word.
const IDEOGRAPH = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}";
const LETTERS = `(?:(?![${IDEOGRAPH}])[\\p{L}\\p{N}\\p{M}])+`;
/** A word: an ideograph, or letters and digits joined by inner apostrophes, periods or hyphens (don't, e.g, 3.5, well-known). */
const WORD = new RegExp(`[${IDEOGRAPH}]|${LETTERS}(?:['’.\\-]${LETTERS})*`, "gu");

/** The number of words in a text. */
export function countWords(text: string): number {
  let n = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text) !== null) n += 1;
  return n;
}

/** Words after which a period never ends a sentence: titles before names, and abbreviations that lead into more text. */
const ABBREVIATIONS = new Set(
  "mr mrs ms mx dr prof sr jr st mt rev hon gen col capt lt sgt gov sen fr eg ie cf vs viz al approx".split(" "),
);
/** Abbreviations that end no sentence when a number follows: "No. 5", "p. 12", "Jan. 3", "ca. 1900". */
const NUMBER_ABBREVIATIONS = new Set(
  "no nos p pp ch sec fig figs vol vols eq ref ca est jan feb mar apr jun jul aug sep sept oct nov dec".split(" "),
);

const TERMINATOR = /[.!?…。！？]/;
/** Full-width terminators end a sentence without a following space. */
const CJK_TERMINATOR = /[。！？]/;
const CLOSER = /["'”’)\]»」』]/;
const LIST_MARKER = /^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]/;

/** Whether the period at `dot`, before the character `next`, closes an abbreviation, an initial, a dotted acronym or a list number. */
function isAbbreviation(text: string, dot: number, next: string): boolean {
  let s = dot;
  while (s > 0 && !/[\s(["'“‘]/.test(text[s - 1])) s -= 1;
  const token = text.slice(s, dot);
  if (token === "") return false;
  if (/^\p{Lu}$/u.test(token)) return true; // An initial: "J. R. R. Tolkien".
  if (/^(?:\p{L}\.)+\p{L}$/u.test(token)) return true; // "e.g.", "i.e.", "U.S.".
  const lower = token.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  if (NUMBER_ABBREVIATIONS.has(lower) && /\p{N}/u.test(next)) return true;
  // "1." opening a line is a list number, not the end of a sentence.
  if (/^\d{1,3}$/.test(token)) {
    let b = s;
    while (b > 0 && (text[b - 1] === " " || text[b - 1] === "\t")) b -= 1;
    return b === 0 || text[b - 1] === "\n";
  }
  return false;
}

/**
 * Where sentences end: offsets that tile the text (each sentence runs from one offset to the next). A
 * sentence ends after . ! ? … (and closing quotes or brackets) followed by a space and a word that is
 * not lower case, unless the period closes an abbreviation; at a blank line; and before a list item.
 */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const ch = text[i];
    if (ch === "\n") {
      let j = i + 1;
      while (j < n && (text[j] === " " || text[j] === "\t")) j += 1;
      if (text[j] === "\n" || LIST_MARKER.test(text.slice(i + 1, i + 12))) ends.push(i);
      continue;
    }
    if (!TERMINATOR.test(ch)) continue;
    let j = i;
    let cjk = false;
    while (j < n && TERMINATOR.test(text[j])) {
      if (CJK_TERMINATOR.test(text[j])) cjk = true;
      j += 1;
    }
    while (j < n && CLOSER.test(text[j])) j += 1;
    const run = text.slice(i, j);
    i = j - 1;
    if (cjk) {
      ends.push(j);
      continue;
    }
    if (j < n && !/\s/.test(text[j])) continue; // "3.14", "example.com", "a.m."
    let k = j;
    while (k < n && /\s/.test(text[k])) k += 1;
    if (k >= n) break;
    if (/\p{Ll}/u.test(text[k])) continue;
    if (/^\.["'”’)\]»]*$/.test(run) && isAbbreviation(text, i - (run.length - 1), text[k])) continue;
    ends.push(j);
  }
  return ends;
}

/** Splits a text into sentences (trimmed, in order), keeping "e.g.", "Dr.", initials and decimals inside them. */
export function splitSentences(text: string): string[] {
  return spans(text, 0, text.length)
    .map(([a, b]) => text.slice(a, b).trim())
    .filter((s) => s !== "");
}

/** The sentence spans of text[start, end): contiguous, covering the whole range. */
function spans(text: string, start: number, end: number): [number, number][] {
  const slice = text.slice(start, end);
  const out: [number, number][] = [];
  let from = 0;
  for (const e of sentenceEnds(slice)) {
    if (e > from) out.push([start + from, start + e]);
    from = e;
  }
  if (from < slice.length) out.push([start + from, end]);
  return out;
}

/** A range of the normalized text with its word count. */
interface Unit {
  start: number;
  end: number;
  words: number;
}

/** Cuts a range longer than the maximum at line breaks, then into runs of whole words of similar length. */
function cutLong(text: string, unit: Unit): Unit[] {
  const lines: Unit[] = [];
  let from = unit.start;
  for (let i = unit.start; i <= unit.end; i++) {
    if (i === unit.end || text[i] === "\n") {
      if (i > from) lines.push(measure(text, from, i));
      from = i;
    }
  }
  const out: Unit[] = [];
  for (const line of lines.length > 1 ? group(lines, PASSAGE_MAX_WORDS) : lines) {
    if (line.words <= PASSAGE_MAX_WORDS) {
      out.push(line);
      continue;
    }
    const words = [...text.slice(line.start, line.end).matchAll(/\S+/g)].map((m) => line.start + (m.index ?? 0));
    const pieces = Math.ceil(words.length / PASSAGE_MAX_WORDS);
    const size = Math.ceil(words.length / pieces);
    for (let w = 0; w < words.length; w += size) {
      const a = w === 0 ? line.start : words[w];
      const b = w + size < words.length ? words[w + size] : line.end;
      out.push(measure(text, a, b));
    }
  }
  return out;
}

function measure(text: string, start: number, end: number): Unit {
  return { start, end, words: countWords(text.slice(start, end)) };
}

/**
 * Groups consecutive units into ranges of at most `max` words and about equal size: each range stops
 * where adding the next unit would pass the maximum or move it further from the even share.
 */
function group(units: Unit[], max: number): Unit[] {
  const total = units.reduce((sum, u) => sum + u.words, 0);
  const goal = total / Math.max(1, Math.ceil(total / max));
  const out: Unit[] = [];
  let cur: Unit | undefined;
  for (const u of units) {
    if (
      cur &&
      cur.words > 0 &&
      (cur.words + u.words > max || Math.abs(cur.words - goal) <= Math.abs(cur.words + u.words - goal))
    ) {
      out.push(cur);
      cur = undefined;
    }
    cur = cur ? { start: cur.start, end: u.end, words: cur.words + u.words } : { ...u };
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Splits plain text into passages that generation can cite: whole paragraphs, several short ones
 * together, and long paragraphs cut at sentence boundaries, of roughly PASSAGE_MIN_WORDS to
 * PASSAGE_MAX_WORDS words each. Passages keep the text's order and, together, every word of it.
 */
export function splitPassages(input: string): string[] {
  const text = normalizeText(input).replace(/\n[ \t]*\n\s*/g, "\n\n");
  if (text === "") return [];

  // Paragraph ranges.
  const paragraphs: Unit[] = [];
  const breaks = /\n\n/g;
  let from = 0;
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    paragraphs.push(measure(text, from, m.index));
    from = m.index + 2;
  }
  paragraphs.push(measure(text, from, text.length));

  // Whole paragraphs gather into one passage until the next would overflow it, or until it is long
  // enough and the next paragraph could stand alone; a paragraph too long for one passage is cut.
  const passages: Unit[] = [];
  let cur: Unit | undefined;
  const flush = () => {
    if (cur) passages.push(cur);
    cur = undefined;
  };
  for (const p of paragraphs) {
    if (p.words > PASSAGE_MAX_WORDS) {
      flush();
      const sentences = spans(text, p.start, p.end)
        .map(([a, b]) => measure(text, a, b))
        .flatMap((s) => (s.words > PASSAGE_MAX_WORDS ? cutLong(text, s) : [s]));
      passages.push(...group(sentences, PASSAGE_MAX_WORDS));
      continue;
    }
    if (
      cur &&
      (cur.words + p.words > PASSAGE_MAX_WORDS || (cur.words >= PASSAGE_MIN_WORDS && p.words >= PASSAGE_MIN_WORDS))
    )
      flush();
    cur = cur ? { start: cur.start, end: p.end, words: cur.words + p.words } : { ...p };
  }
  flush();

  // A passage under the minimum joins a neighbour when the two fit in one (one pass: a short passage
  // joins the one before it, or the one after it takes it in).
  const joined: Unit[] = [];
  for (const p of passages) {
    const prev = joined.at(-1);
    if (
      prev &&
      (prev.words < PASSAGE_MIN_WORDS || p.words < PASSAGE_MIN_WORDS) &&
      prev.words + p.words <= PASSAGE_MAX_WORDS
    )
      joined[joined.length - 1] = { start: prev.start, end: p.end, words: prev.words + p.words };
    else joined.push(p);
  }
  return joined.map((p) => text.slice(p.start, p.end).trim()).filter((s) => s !== "");
}

/** Converts a reference document to plain text and splits it into passages (runs on the worker pool). */
export function ingestText(source: { text: string; format: TextFormat }): {
  content: string;
  wordCount: number;
  passages: { text: string; wordCount: number }[];
} {
  const content = toPlainText(source.text, source.format);
  return {
    content,
    wordCount: countWords(content),
    passages: splitPassages(content).map((text) => ({ text, wordCount: countWords(text) })),
  };
}
