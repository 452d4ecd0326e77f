import { describe, expect, it } from "vitest";
import { document, organisation, person, place, SPACE, term, zipfRank } from "../../bench/lib/corpus.js";
import { prng } from "../../bench/lib/text.js";
import { extractGraph } from "../../src/domain/graph-extract.js";

/** Distinct entities the graph's extraction finds in documents 0 to n - 1. */
function entities(n: number): Set<string> {
  const ids = new Set<string>();
  for (let i = 0; i < n; i++)
    for (const e of extractGraph({ text: document(300, i), format: "plain" }).entities) ids.add(e.id);
  return ids;
}

describe("bench:scale's corpus", () => {
  it("gives the same text for the same seed, and another for another seed", () => {
    expect(document(200, 7)).toBe(document(200, 7));
    expect(document(200, 7)).not.toBe(document(200, 8));
  });

  it("writes about as many words as asked (a name counted as one)", () => {
    const n = document(300, 1).split(/\s+/).length;
    expect(n).toBeGreaterThanOrEqual(300);
    expect(n).toBeLessThan(420);
  });

  it("names distinct entities for distinct ranks", () => {
    for (const make of [person, place, organisation]) {
      const names = new Set(Array.from({ length: 5_000 }, (_, r) => make(r)));
      expect(names.size).toBe(5_000);
    }
    expect(new Set(Array.from({ length: 500 }, (_, r) => term(r))).size).toBe(500);
  });

  it("draws ranks with a 1/rank frequency: rank 0 about as often as ranks 1 to 2, and rarely a high rank", () => {
    const rand = prng(3);
    const counts = new Map<number, number>();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const r = zipfRank(rand, SPACE.person);
      expect(r).toBeGreaterThanOrEqual(0);
      expect(r).toBeLessThan(SPACE.person);
      counts.set(r, (counts.get(r) ?? 0) + 1);
    }
    const top = counts.get(0) ?? 0;
    expect(top / n).toBeGreaterThan(0.03);
    expect(((counts.get(1) ?? 0) + (counts.get(2) ?? 0)) / top).toBeGreaterThan(0.7);
    expect(counts.size).toBeGreaterThan(n / 3);
  });

  it("holds entities that keep growing with the sources (not a small vocabulary)", () => {
    const few = entities(50).size;
    const more = entities(500).size;
    expect(few).toBeGreaterThan(300);
    expect(more).toBeGreaterThan(6 * few);
  });

  it("holds names the graph finds as proper nouns and terms it finds as key phrases", () => {
    const found = extractGraph({ text: document(400, 5), format: "plain" }).entities;
    expect(found.some((e) => e.type === "proper_noun" && e.label.includes(" "))).toBe(true);
    expect(found.some((e) => e.type === "key_phrase")).toBe(true);
  });
});
