/** The view of a conversion: the JSON shape of its record in an answer. */
import type { ConversionRow } from "../../db/conversions.js";

/** A conversion as the API shows it (DESIGN §9, plus workspace_id). */
export function conversionView(r: ConversionRow) {
  return {
    id: r.id,
    content_id: r.content_id,
    workspace_id: r.workspace_id,
    target_format: r.target_format,
    output: r.output,
    posts: r.posts === null ? null : (JSON.parse(r.posts) as string[]),
    subject: r.subject,
    created_at: r.created_at,
  };
}
