/** One request of every route that stores an account's records: what the storage-quota tests send past a full quota. */
import { expect } from "vitest";
import type { Harness } from "./harness.js";
import { png } from "./images.js";

/** The records the writes change: a draft, a generated content to finalize, and a memory. */
export interface StoredIds {
  draftId: number;
  generatedId: number;
  memoryId: number;
}

/** Stores, with `key`, the records the writes change: a draft, a memory and a generated content. */
export async function storeChangedRecords(h: Harness, key: string): Promise<StoredIds> {
  const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "d", content: "draft" } });
  const memory = await h.send("POST", "/api/v1/memories", {
    auth: key,
    body: { kind: "voice", title: "m", content: "memory" },
  });
  const generated = await h.send("POST", "/api/v1/generate", {
    auth: key,
    body: { template_id: 1, user_direction: "Solar on flat roofs", seed: 1 },
  });
  expect([draft.status, memory.status, generated.status]).toEqual([201, 201, 201]);
  return { draftId: draft.body.content_id, generatedId: generated.body.content_id, memoryId: memory.body.id };
}

/** [method, path, body] of each storing route; every one adds bytes, so none fits an account at its quota. */
export function storingWrites(ids: StoredIds): [string, string, unknown][] {
  return [
    ["POST", "/api/v1/contents", { title: "x", content: "more" }],
    ["PATCH", `/api/v1/contents/${ids.draftId}`, { content: "changed, and longer" }],
    ["POST", "/api/v1/generate", { template_id: 1, user_direction: "Another piece", seed: 2 }],
    ["POST", "/api/v1/finalizeContent", { content_id: ids.generatedId, finalized_content: "Final.", edit_seconds: 1 }],
    ["POST", "/api/v1/conversions", { content_id: ids.draftId, target_format: "markdown" }],
    ["POST", "/api/v1/reference-materials", { title: "r", content: "Some reference text.", format: "text" }],
    ["POST", "/api/v1/images", { filename: "p.png", data_base64: Buffer.from(png(3, 2)).toString("base64") }],
    ["POST", "/api/v1/images/generate", { prompt: "a roof", width: 64, height: 64 }],
    ["POST", "/api/v1/memories", { kind: "context", title: "n", content: "another" }],
    ["PATCH", `/api/v1/memories/${ids.memoryId}`, { content: "changed, and longer" }],
  ];
}
