/** Records and reads the knowledge-graph tests share: a reference to take in, and the graph's answers. */
import { expect } from "vitest";
import { type Harness, makeHarness } from "./harness.js";

/** A reference text whose entities (Acme Corp, New York, Jane Doe, Globex) co-occur in its sentences. */
export const ACME =
  "Acme Corp opened an office in New York. Acme Corp hired Jane Doe to lead the New York office. " +
  "Jane Doe previously ran the weekly planning review at Globex. The weekly planning review kept Globex on track.";

/** A node of GET /knowledge-graph, as answered. */
export interface Node {
  id: string;
  label: string;
  type: string;
  mentions: number;
  source_count: number;
  sources: { kind: string; id: number }[];
}

/** Stores a text reference (in `workspaceId`, or the key's) and returns its id, failing unless it is created. */
export async function addReference(h: Harness, key: string, content: string, workspaceId?: string) {
  const res = await h.send("POST", "/api/v1/reference-materials", {
    auth: key,
    body: { content, format: "text", ...(workspaceId ? { workspace_id: workspaceId } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

/** A fresh harness whose graph has taken in the ACME reference: the harness, its key and the reference's id. */
export async function acmeGraph() {
  const h = makeHarness();
  const key = h.key();
  const refId = await addReference(h, key, ACME);
  await h.services.graph.idle();
  return { h, key, refId };
}

/** Sends GET /knowledge-graph with `query` under `key`; the answer as it came. */
export const getGraph = (h: Harness, key: string, query = "") =>
  h.send("GET", `/api/v1/knowledge-graph${query ? `?${query}` : ""}`, { auth: key });

/** The nodes of an answer by id. */
export const byId = (nodes: Node[]) => new Map(nodes.map((n) => [n.id, n]));
