/** The Markdown conversion: the text as tidy Markdown with the same meaning. */
import { CONTROL } from "./markdown-blocks.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const BULLET = /^( *)[*+]([ \t]+)(?=\S)/;
const BLOCK_START = /^ {0,3}(?:[-*+>]|\d{1,9}[.)]|#|`{3}|~{3}|\||<)/;

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
