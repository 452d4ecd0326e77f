/**
 * The sources of a workspace's knowledge graph as they are now: the text extracted from each, read on a pool thread
 * (extractSource), and the writer's operation that stores an extraction only while its source is unchanged
 * (saveExtraction, domain/writer.ts).
 */

import type { ExtractedDocument, GraphSource } from "../db/graph.js";
import type { Store } from "../db/store.js";
import { type DbLocation, threadStore } from "../db/thread-store.js";
import { type ExtractionInput, extractGraph } from "./graph-extract.js";

/** The text of a source as it is now, or undefined when it no longer belongs in the workspace's graph. */
export function sourceText(store: Store, workspaceId: string, source: GraphSource): ExtractionInput | undefined {
  if (source.kind === "reference") {
    const r = store.references.byId(source.id);
    return r && r.workspace_id === workspaceId ? { text: r.content, format: "plain" } : undefined;
  }
  const c = store.contents.byId(source.id);
  if (!c || c.workspace_id !== workspaceId || (c.status !== "finalized" && c.status !== "published")) return;
  if (c.version_count !== source.version) return;
  return { text: c.finalized_content ?? c.content, format: "markdown" };
}

/** The pool task: reads a source from the database on this thread and extracts it (see GraphService.extract). */
export function extractSource(input: { db: DbLocation; workspaceId: string; source: GraphSource }): string | null {
  const text = sourceText(threadStore(input.db, { readonly: true }), input.workspaceId, input.source);
  return text ? JSON.stringify(extractGraph(text)) : null;
}

/**
 * The writer's operation: stores an extraction (JSON) if its source is still as it was extracted; whether it did.
 */
export function saveExtraction(
  store: Store,
  input: { workspaceId: string; source: GraphSource; extracted: string; now: string },
): boolean {
  return store.transaction(() => {
    if (!sourceText(store, input.workspaceId, input.source)) return false;
    const document = JSON.parse(input.extracted) as ExtractedDocument;
    store.graph.saveDocument(input.workspaceId, input.source, document, input.now);
    return true;
  });
}
