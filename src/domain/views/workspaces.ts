/** The view of a workspace: the JSON shape of its record in an answer. */
import type { WorkspaceRow } from "../../db/workspaces.js";

/** A workspace as the API shows it. */
export function workspaceView(w: WorkspaceRow) {
  return { id: w.id, name: w.name, is_default: w.is_default === 1, created_at: w.created_at };
}
