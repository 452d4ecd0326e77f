/** The usage page's numbers as text: the totals, every day of the period, and each API key's share. */

import type { components } from "../../api/schema.js";
import { count } from "../../ui/format.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { shortDay } from "./chart.js";

/** What GET /usage answers: the period, its totals, its days and each key's share. */
export type Usage = components["schemas"]["Usage"];
type Counts = Usage["totals"];

/** The counters, in the order the page names them, with the words it names them by. */
const COUNTERS: { field: keyof Counts; label: string }[] = [
  { field: "requests", label: "Requests" },
  { field: "generations", label: "Generations" },
  { field: "words_generated", label: "Words generated" },
  { field: "finalizations", label: "Finalizations" },
  { field: "learning_analyses", label: "Learning analyses" },
  { field: "images", label: "Images" },
];

/** The period's totals, one labelled number each. */
export function TotalsList({ totals }: { totals: Counts }) {
  return (
    <dl class="totals">
      {COUNTERS.map((c) => (
        <div key={c.field} class="panel total">
          <dt>{c.label}</dt>
          <dd>{count(totals[c.field])}</dd>
        </div>
      ))}
    </dl>
  );
}

function CountCells({ counts }: { counts: Counts }) {
  return (
    <>
      {COUNTERS.map((c) => (
        <td key={c.field} class="num">
          {count(counts[c.field])}
        </td>
      ))}
    </>
  );
}

function CounterHeads() {
  return (
    <>
      {COUNTERS.map((c) => (
        <th key={c.field} scope="col" class="num">
          {c.label}
        </th>
      ))}
    </>
  );
}

/** Every day of the period, newest first (the day one looks for is usually today), and the totals. */
export function DaysTable({ usage }: { usage: Usage }) {
  const days = [...usage.days].reverse();
  return (
    <TableWrap label="Usage per day">
      <table class="usage-days">
        <caption class="muted">Usage per UTC day, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <CounterHeads />
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.day} data-day={d.day}>
              <th scope="row">
                <time dateTime={d.day}>{shortDay(d.day)}</time>
              </th>
              <CountCells counts={d} />
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            <CountCells counts={usage.totals} />
          </tr>
        </tfoot>
      </table>
    </TableWrap>
  );
}

/** Each API key's share of the period, or a line saying no key was used. */
export function KeysTable({ keys }: { keys: Usage["keys"] }) {
  if (keys.length === 0) return <p class="muted">No API key was used in this period.</p>;
  return (
    <TableWrap label="Usage by API key">
      <table>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <CounterHeads />
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.key_id}>
              <th scope="row">
                {k.name ?? <span class="muted">(deleted with its workspace)</span>}
                <div class="muted mono">{k.key_id}</div>
              </th>
              <CountCells counts={k} />
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
