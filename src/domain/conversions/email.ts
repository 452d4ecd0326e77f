/** The email conversion: a subject and a plain-text body that keeps its line breaks. */
import { splitSentences } from "../text.js";
import { blocksToText, markdownBlocks, markdownToPlain } from "./markdown-blocks.js";

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
