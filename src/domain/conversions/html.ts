/** The HTML conversion: Markdown rendered by markdown-it, raw HTML escaped. */
import MarkdownIt from "markdown-it";
import { MAX_OUTPUT_CHARS, OutputTooLarge } from "./output-limit.js";

/** The HTML renderer: raw HTML in the text is escaped, never passed through (a `<script>` comes out as text). */
const htmlRenderer = new MarkdownIt("default", { html: false, linkify: true, typographer: false });

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
