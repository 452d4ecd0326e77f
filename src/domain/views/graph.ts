/** The view of a knowledge-graph entity: the JSON shape of its record in an answer. */
import type { GraphNodeRow } from "../../db/graph.js";

/**
 * An entity of the knowledge graph as the API shows it: how many sources mention it and the first of them (in the
 * order the graph took them in; GET /knowledge-graph/entities/{id}/sources pages them all).
 */
export function graphNodeView(n: GraphNodeRow) {
  const sources = JSON.parse(n.sources) as { kind: "reference" | "content"; id: number }[];
  return { id: n.id, label: n.label, type: n.type, mentions: n.mentions, source_count: n.source_count, sources };
}
