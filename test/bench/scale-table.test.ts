import { describe, expect, it } from "vitest";
import { growth, markdown, misses, percentiles, type Row } from "../../bench/lib/scale-table.js";

const read = (p50s: number[], stallMs = 1): Row => ({
  name: "GET /x",
  kind: "read",
  unit: "ms",
  steps: p50s.map((p50) => ({ p50, p99: p50 * 2, stallMs })),
});

describe("bench:scale's table", () => {
  it("takes the growth from the first step's p50 to the last's", () => {
    expect(growth(read([2, 3, 5]))).toBe(2.5);
    expect(growth({ ...read([2]), steps: [undefined, { p50: 4 }] })).toBeNaN();
  });

  it("holds a read to a p50 within 2x and a stall of at most 5 ms at the last step", () => {
    expect(misses(read([1, 1.5, 2]))).toEqual([]);
    expect(misses(read([1, 3]))).toEqual(["p50 grew 3.00x (target <= 2x)"]);
    expect(misses(read([1, 1], 6))).toEqual(["stall 6.00 ms (target <= 5 ms)"]);
  });

  it("holds the idle RSS to 200 MiB and leaves writes and linear figures without a target", () => {
    expect(misses({ name: "rss", kind: "rss", unit: "MiB", steps: [{ p50: 150 }, { p50: 201 }] })).toEqual([
      "201 MiB (target <= 200 MiB)",
    ]);
    expect(misses({ name: "size", kind: "linear", unit: "MiB", steps: [{ p50: 1 }, { p50: 100 }] })).toEqual([]);
    expect(misses({ name: "generate", kind: "write", unit: "ms", steps: [{ p50: 1 }, { p50: 9 }] })).toEqual([]);
  });

  it("prints a column per step, the growth and the mark", () => {
    const [head, , row] = markdown([1_000, 100_000], [read([1, 4])]);
    expect(head).toBe("| row | unit | 1,000 | 100,000 | growth | stall ms | target |");
    expect(row).toBe("| GET /x | ms | 1.00 / 2.00 | 4.00 / 8.00 | 4.00x | 1.00 | ✗ p50 grew 4.00x (target <= 2x) |");
  });

  it("takes percentiles by rank", () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentiles(samples)).toEqual({ p50: 50, p99: 99 });
  });
});
