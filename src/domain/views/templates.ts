/** The view of a template: the JSON shape of its record in an answer. */
import type { TemplateRow } from "../../db/templates.js";

/** A template as the API shows it (DESIGN §9, plus format and built_in). */
export function templateView(t: TemplateRow) {
  return {
    id: t.id,
    name: t.name,
    category: t.category,
    description: t.description,
    format: t.format,
    sections: t.sections,
    target_words: t.target_words,
    tone: t.tone,
    built_in: t.account_id === null,
    created_at: t.created_at,
  };
}
