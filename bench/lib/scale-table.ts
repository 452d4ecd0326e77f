/**
 * bench:scale's figures and targets (issue 33 point 3): for each measured row, its p50 and p99 at each step, the
 * growth factor of its p50 from the first step to the last, and the targets it is held to. Pure functions,
 * test/bench/scale-table.test.ts.
 */

/** One row of one step: a read's latencies, or a single figure (size, RSS, backup, start, entity count). */
export interface Figure {
  p50: number;
  p99?: number;
  /** The request thread's longest stall during the row's requests, ms (event-loop delay beyond its timer). */
  stallMs?: number;
}

export type RowKind = "read" | "write" | "linear" | "rss" | "count";

export interface Row {
  name: string;
  kind: RowKind;
  unit: string;
  /** One figure per step, in step order. */
  steps: (Figure | undefined)[];
}

/** The targets: every read's p50 at the last step within 2x of the first; no read stall over 5 ms; idle RSS. */
export const TARGETS = { readGrowth: 2, stallMs: 5, rssMiB: 200 } as const;

/** The p50 at the last step over the p50 at the first (NaN when either is missing). */
export function growth(row: Row): number {
  const first = row.steps[0]?.p50;
  const last = row.steps.at(-1)?.p50;
  if (first === undefined || last === undefined || first <= 0) return Number.NaN;
  return last / first;
}

/** Why a row misses its targets at the last step (empty when it meets them or has none). */
export function misses(row: Row): string[] {
  const last = row.steps.at(-1);
  const out: string[] = [];
  if (row.kind === "read") {
    const g = growth(row);
    if (!(g <= TARGETS.readGrowth)) out.push(`p50 grew ${fmt(g)}x (target <= ${TARGETS.readGrowth}x)`);
    if (last?.stallMs !== undefined && last.stallMs > TARGETS.stallMs)
      out.push(`stall ${fmt(last.stallMs)} ms (target <= ${TARGETS.stallMs} ms)`);
  }
  if (row.kind === "rss" && !(last !== undefined && last.p50 <= TARGETS.rssMiB))
    out.push(`${fmt(last?.p50 ?? Number.NaN)} MiB (target <= ${TARGETS.rssMiB} MiB)`);
  return out;
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return "–";
  if (Math.abs(x) >= 100) return x.toFixed(0);
  if (Math.abs(x) >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

const cell = (f: Figure | undefined) =>
  f === undefined ? "–" : f.p99 === undefined ? fmt(f.p50) : `${fmt(f.p50)} / ${fmt(f.p99)}`;

/** The Markdown table: a row per figure, a column per step, the growth, the last step's stall, the mark. */
export function markdown(steps: number[], rows: Row[]): string[] {
  const head = steps.map((s) => `${s.toLocaleString("en-US")}`);
  const lines = [
    `| row | unit | ${head.join(" | ")} | growth | stall ms | target |`,
    `|---|---|${steps.map(() => "---|").join("")}---|---|---|`,
  ];
  for (const row of rows) {
    const m = misses(row);
    const held = row.kind === "read" || row.kind === "rss" ? (m.length === 0 ? "✓" : `✗ ${m.join("; ")}`) : "";
    const stall = row.steps.at(-1)?.stallMs;
    lines.push(
      `| ${row.name} | ${row.unit} | ${row.steps.map(cell).join(" | ")} | ${fmt(growth(row))}x | ` +
        `${stall === undefined ? "" : fmt(stall)} | ${held} |`,
    );
  }
  return lines;
}

/** The p50 and p99 of a list of samples (ms). */
export function percentiles(samples: number[]): Figure {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return s.length === 0 ? { p50: Number.NaN, p99: Number.NaN } : { p50: at(50), p99: at(99) };
}
