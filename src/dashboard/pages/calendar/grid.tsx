/**
 * The month as a grid of days, Monday first: each day lists its contents under its YYYY-MM-DD as the server wrote
 * it. On a phone the grid folds to a list of the days that have contents (calendar.css).
 */
import type { Content } from "./data.js";
import { ContentItem, type Pending } from "./items.js";
import { dayKey, daysIn, firstWeekday, type Month, WEEKDAYS, weekdayOf } from "./month.js";

/** The month's grid of days, each listing its contents (and the moves being saved), with a Move button on each. */
export function MonthGrid({
  month,
  contents,
  pending,
  onMove,
}: {
  month: Month;
  contents: Content[];
  pending: Pending;
  onMove: (content: Content) => void;
}) {
  const byDay = new Map<string, Content[]>();
  for (const c of contents) {
    const day = c.scheduled_publish_day;
    if (day) byDay.set(day, [...(byDay.get(day) ?? []), c]);
  }
  const days = Array.from({ length: daysIn(month) }, (_, i) => i + 1);
  const blanks = Array.from({ length: firstWeekday(month) }, (_, i) => i);
  // The last week's row is filled to its Sunday, so the grid keeps its edges.
  const trailing = Array.from({ length: (7 - ((blanks.length + days.length) % 7)) % 7 }, (_, i) => i);
  return (
    <div class="cal-month">
      {contents.length === 0 ? <p class="muted">Nothing is planned in this month.</p> : null}
      <div class="cal-weekdays" aria-hidden="true">
        {WEEKDAYS.map((w) => (
          <span key={w}>{w.slice(0, 3)}</span>
        ))}
      </div>
      <ol class="cal-days">
        {blanks.map((b) => (
          <li key={`blank-${b}`} class="cal-blank" aria-hidden="true" />
        ))}
        {days.map((d) => {
          const key = dayKey(month, d);
          const items = byDay.get(key) ?? [];
          return (
            <li key={key} class={items.length ? "cal-day" : "cal-day cal-empty"} data-day={key}>
              <h3>
                <span class="cal-weekday">{weekdayOf(month, d).slice(0, 3)} </span>
                <time dateTime={key}>{key}</time>
              </h3>
              {items.map((c) => (
                <ContentItem key={c.content_id} content={c} pending={pending} onMove={onMove} />
              ))}
            </li>
          );
        })}
        {trailing.map((b) => (
          <li key={`after-${b}`} class="cal-blank" aria-hidden="true" />
        ))}
      </ol>
    </div>
  );
}
