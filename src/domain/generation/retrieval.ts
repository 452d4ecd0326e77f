/** Ranks reference passages by relevance to a direction (BM25 over stemmed content terms). */
import { terms } from "./language.js";

/** A passage of a reference material. */
export interface Passage {
  reference_material_id: number;
  reference_title: string;
  text: string;
}

/** A passage with its relevance score. */
export interface RankedPassage extends Passage {
  score: number;
  index: number;
}

/** BM25 ranking; ties keep the original order so the result is deterministic. */
export function rankPassages(passages: Passage[], query: string, k1 = 1.2, b = 0.75): RankedPassage[] {
  const q = [...new Set(terms(query))];
  const docs = passages.map((p) => terms(p.text));
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(docs.length, 1) || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return passages
    .map((p, index) => {
      const d = docs[index];
      const tf = new Map<string, number>();
      for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
      let score = 0;
      for (const t of q) {
        const f = tf.get(t) ?? 0;
        if (f === 0) continue;
        const idf = Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
        score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / avg));
      }
      return { ...p, score, index };
    })
    .sort((x, y) => y.score - x.score || x.index - y.index);
}

/** How many passages a piece of `targetWords` draws on. */
export function passageBudget(targetWords: number, available: number): number {
  return Math.min(available, Math.max(2, Math.ceil(targetWords / 70)));
}
