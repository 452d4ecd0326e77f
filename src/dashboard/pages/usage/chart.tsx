/**
 * A bar chart of one count per day, drawn as inline SVG (no chart library: the page's size budget, and SVG text is
 * read by screen readers). The SVG scales with its viewBox, so the same drawing fits 375 px and 1440 px; its
 * aria-label states the numbers, and the page offers them as a table too, so that nothing is only in the picture.
 */
import { count, date } from "../../ui/format.js";

/** One bar of the chart: a UTC day (YYYY-MM-DD) and its count. */
export interface DayValue {
  day: string;
  value: number;
}

/** The drawing's own units; the CSS (usage.css) sets the size it is shown at. */
const WIDTH = 360;
const HEIGHT = 180;
const LEFT = 40;
const RIGHT = 6;
const TOP = 10;
const BOTTOM = 24;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

/** A round top for the y axis (1, 2, 5 × 10^n) at or above the largest value, so that its labels are round too. */
export function axisTop(max: number): number {
  if (max <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

/** A UTC day (YYYY-MM-DD) as a short date in the reader's locale, without moving it to their time zone. */
export function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
}

/** The words a screen reader hears for the chart: the period, the total, the busiest day and the last day. */
export function chartSummary(title: string, days: DayValue[]): string {
  if (days.length === 0) return `${title}: no days.`;
  const total = days.reduce((sum, d) => sum + d.value, 0);
  const busiest = days.reduce((best, d) => (d.value > best.value ? d : best), days[0]);
  const last = days[days.length - 1];
  const first = days[0];
  return (
    `${title}, ${date(`${first.day}T12:00:00Z`)} to ${date(`${last.day}T12:00:00Z`)}: ` +
    `${count(total)} in all; most on ${shortDay(busiest.day)}, ${count(busiest.value)}; ` +
    `${shortDay(last.day)}, ${count(last.value)}.`
  );
}

/**
 * Which days get a label under the axis: the last (today, usually the one looked for), and every few days back from
 * it, about five in all, so that the labels never run into each other even in the phone's larger type.
 */
function labelledDays(n: number): Set<number> {
  const every = Math.max(1, Math.ceil(n / 5));
  const shown = new Set<number>();
  for (let i = n - 1; i >= 0; i -= every) shown.add(i);
  return shown;
}

/** The y axis's ticks: 0, the top and, when it is a whole number, the half. */
function ticksOf(top: number): number[] {
  return Number.isInteger(top / 2) ? [0, top / 2, top] : [0, top];
}

function YAxis({ top }: { top: number }) {
  const ticks = ticksOf(top);
  return (
    <g class="axis">
      {ticks.map((t) => {
        const y = TOP + PLOT_H - (t / top) * PLOT_H;
        return (
          <g key={t}>
            <line class="grid" x1={LEFT} x2={WIDTH - RIGHT} y1={y} y2={y} />
            <text x={LEFT - 4} y={y + 3.5} text-anchor="end">
              {count(t)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

function XAxis({ days }: { days: DayValue[] }) {
  const slot = PLOT_W / days.length;
  const shown = labelledDays(days.length);
  return (
    <g class="axis">
      {days.map((d, i) =>
        shown.has(i) ? (
          <text
            key={d.day}
            x={LEFT + slot * (i + 0.5)}
            y={HEIGHT - 8}
            text-anchor={i === days.length - 1 && days.length > 1 ? "end" : "middle"}
          >
            {shortDay(d.day)}
          </text>
        ) : null,
      )}
    </g>
  );
}

/** The chart of one count per day, with its y axis (0, half, top) and some days named under the x axis. */
export function DayChart({ title, days, tone }: { title: string; days: DayValue[]; tone: "requests" | "generations" }) {
  const top = axisTop(Math.max(0, ...days.map((d) => d.value)));
  const slot = PLOT_W / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.7);
  return (
    <svg
      class={`day-chart ${tone}`}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={chartSummary(title, days)}
    >
      <YAxis top={top} />
      {days.map((d, i) => {
        const h = (d.value / top) * PLOT_H;
        return (
          <rect
            key={d.day}
            class="bar"
            x={LEFT + slot * i + (slot - bar) / 2}
            y={TOP + PLOT_H - h}
            width={bar}
            height={h}
          >
            <title>
              {shortDay(d.day)}: {count(d.value)}
            </title>
          </rect>
        );
      })}
      <line class="baseline" x1={LEFT} x2={WIDTH - RIGHT} y1={TOP + PLOT_H} y2={TOP + PLOT_H} />
      {days.length > 0 ? <XAxis days={days} /> : null}
    </svg>
  );
}
