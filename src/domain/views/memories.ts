/** The view of a memory: the JSON shape of its record in an answer. */
import type { MemoryRow } from "../../db/memories.js";

/** A memory as the API shows it (DESIGN §9). */
export function memoryView(m: MemoryRow) {
  return {
    id: m.id,
    workspace_id: m.workspace_id,
    kind: m.kind,
    title: m.title,
    content: m.content,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}
