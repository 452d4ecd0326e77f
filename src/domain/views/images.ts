/** The view of an image: the JSON shape of its record (its metadata) in an answer. */
import type { ImageRow } from "../../db/images.js";

/** An image as the API shows it (DESIGN §9); never its bytes or hash. */
export function imageView(row: ImageRow) {
  return {
    id: row.id,
    filename: row.filename,
    mime_type: row.mime_type,
    size_bytes: row.size_bytes,
    width: row.width,
    height: row.height,
    source: row.source,
    prompt: row.prompt,
    created_at: row.created_at,
  };
}
