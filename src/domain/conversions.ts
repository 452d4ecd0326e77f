/**
 * Conversions of a content's text (Markdown, or plain text, which reads as Markdown) into other formats
 * (DESIGN §6): HTML, normalised Markdown, plain text, a numbered social thread and an email. Pure functions,
 * run on the worker pool.
 */
import type { TargetFormat } from "../db/conversions.js";
import { emailOf } from "./conversions/email.js";
import { markdownToHtml } from "./conversions/html.js";
import { markdownBlocks, markdownToPlain } from "./conversions/markdown-blocks.js";
import { normalizeMarkdown } from "./conversions/normalize.js";
import { MAX_OUTPUT_CHARS, OutputTooLarge } from "./conversions/output-limit.js";
import { socialThread } from "./conversions/thread.js";

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
