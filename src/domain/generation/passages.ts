/**
 * Where a generation's reference passages come from. On a server they are read by the pool thread that uses them,
 * from its own read connection: for 50 references of 500,000 characters, reading their 63,750 passages on the HTTP
 * thread took about 200 ms, and copying them to the pool about 100 ms more. Without a database file (tests, one-shot
 * commands) the caller reads them.
 */
import type { PassageRow } from "../../db/references.js";
import type { Store } from "../../db/store.js";
import { type DbLocation, threadStore } from "../../db/thread-store.js";
import type { Passage } from "./retrieval.js";

/** The reference materials whose passages a pool thread reads: ids in order, with their titles. */
export interface PassageSource {
  db: DbLocation;
  ids: number[];
  titles: [number, string][];
}

/** Stored passage rows as the engines take them, each named by its material's title. */
function asPassages(rows: PassageRow[], titles: Map<number, string>): Passage[] {
  return rows.map((p) => ({
    reference_material_id: p.reference_id,
    reference_title: titles.get(p.reference_id) ?? "the reference",
    text: p.text,
  }));
}

/** The passages of these materials, read now from `store`. */
export function readPassages(store: Store, ids: number[], titles: Map<number, string>): Passage[] {
  return asPassages(store.references.passagesOf(ids), titles);
}

/** An engine's input with its passages, read on this (pool) thread when the input names a source. */
export function withPassages<T extends { passages: Passage[]; passagesFrom?: PassageSource }>(input: T): T {
  const from = input.passagesFrom;
  if (!from) return input;
  const passages = readPassages(threadStore(from.db, { readonly: true }), from.ids, new Map(from.titles));
  return { ...input, passages, passagesFrom: undefined };
}
