/** The views of a reference material: the JSON shape of its record in an answer (DESIGN §9). */
import type { ReferenceRow } from "../../db/references.js";
import { sliceWhole } from "../../runtime/chars.js";

/** Characters of text a listing shows of each material. */
export const EXCERPT_CHARS = 240;

/** The first EXCERPT_CHARS characters of a text, cut at a word boundary with an ellipsis when there is more. */
export function excerptOf(start: string, fullLength: number): string {
  const flat = start.replace(/\s+/g, " ").trim();
  if (fullLength <= EXCERPT_CHARS && flat.length <= EXCERPT_CHARS) return flat;
  const cut = sliceWhole(flat, EXCERPT_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > EXCERPT_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, "")}…`;
}

/** A reference material as the API shows it (DESIGN §9, plus passage_count). */
export function referenceView(r: ReferenceRow) {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    title: r.title,
    content: r.content,
    source_type: r.source_type,
    word_count: r.word_count,
    passage_count: r.passage_count,
    created_at: r.created_at,
  };
}

/** A reference material as a listing shows it: its fields (DESIGN §9, `content` included) and an `excerpt`. */
export function referenceSummaryView(r: ReferenceRow) {
  return { ...referenceView(r), excerpt: excerptOf(r.content.slice(0, EXCERPT_CHARS + 1), r.content.length) };
}
