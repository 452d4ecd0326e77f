/** The view of a knowledge-graph entity: the JSON shape of its record in an answer. */
import type { GraphNodeRow } from "../../db/graph.js";

/** An entity of the knowledge graph as the API shows it: its sources parsed, the references first, each by id. */
export function graphNodeView(n: GraphNodeRow) {
  const sources = (JSON.parse(n.sources) as { kind: "reference" | "content"; id: number }[]).sort((a, b) =>
    a.kind === b.kind ? a.id - b.id : a.kind === "reference" ? -1 : 1,
  );
  return { id: n.id, label: n.label, type: n.type, mentions: n.mentions, sources };
}
