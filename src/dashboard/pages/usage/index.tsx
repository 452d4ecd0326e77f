/**
 * The usage page: the account's requests and generations per day over a chosen period, as charts (read faster than a
 * table) and as a table (so that nothing is only in the picture), the period's totals, each API key's share, and the
 * month's learning-analysis quota as a meter. GET /usage counts UTC days, so the page names days as UTC days.
 */
import { useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import { href, navigate, type PageProps } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { count } from "../../ui/format.js";
import { Busy, Page } from "../../ui/page.js";
import { useAsync } from "../../ui/use-async.js";
import { DayChart } from "./chart.js";
import { QuotaMeter } from "./quota.js";
import { DaysTable, KeysTable, TotalsList, type Usage } from "./tables.js";
import "./usage.css";

/** A UTC day moved by some days, as YYYY-MM-DD. */
function utcDayAfter(days: number, from = new Date()): string {
  return new Date(from.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** The quick periods offered beside the form: the last 7, 30 and 90 days up to today (UTC). */
const QUICK_PERIODS = [7, 30, 90];

function PeriodForm({ usage }: { usage: Usage }) {
  const [from, setFrom] = useState(usage.from);
  const [to, setTo] = useState(usage.to);
  const today = utcDayAfter(0);
  return (
    <form
      class="panel period"
      onSubmit={(event) => {
        event.preventDefault();
        navigate("/usage", { from, to });
      }}
    >
      <div class="period-fields">
        <Field label="From (UTC day)">
          <input type="date" required value={from} max={to} onInput={(e) => setFrom(e.currentTarget.value)} />
        </Field>
        <Field label="To (UTC day)">
          <input type="date" required value={to} min={from} onInput={(e) => setTo(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary">
          Show this period
        </button>
      </div>
      <p class="quick">
        <span class="muted">Or the last: </span>
        {QUICK_PERIODS.map((n) => (
          <a key={n} href={href("/usage", { from: utcDayAfter(1 - n), to: today })}>
            {n} days
          </a>
        ))}
      </p>
    </form>
  );
}

function UsageReport({ usage }: { usage: Usage }) {
  const requests = usage.days.map((d) => ({ day: d.day, value: d.requests }));
  const generations = usage.days.map((d) => ({ day: d.day, value: d.generations }));
  return (
    <>
      <h2>Totals</h2>
      <TotalsList totals={usage.totals} />
      {/* Two charts, each on its own scale: requests outnumber generations many times over, and one shared scale
          would flatten the generations' bars to nothing. */}
      <div class="charts">
        <figure class="panel chart">
          <figcaption>Requests per day ({count(usage.totals.requests)} in all)</figcaption>
          <DayChart title="Requests per day" days={requests} tone="requests" />
        </figure>
        <figure class="panel chart">
          <figcaption>Generations per day ({count(usage.totals.generations)} in all)</figcaption>
          <DayChart title="Generations per day" days={generations} tone="generations" />
        </figure>
      </div>
      <details class="as-table">
        <summary>Show as a table</summary>
        <DaysTable usage={usage} />
      </details>
      <h2>By API key</h2>
      <KeysTable keys={usage.keys} />
    </>
  );
}

/** The Usage page (#/usage?from=&to=): the period's charts, tables and totals, and the analysis quota. */
export function UsagePage({ query }: PageProps) {
  const from = query.get("from") ?? undefined;
  const to = query.get("to") ?? undefined;
  const usage = useAsync(() => ok(api.GET("/api/v1/usage", { params: { query: { from, to } } })), [from, to]);
  return (
    <Page title="Usage">
      <p class="muted">
        What the account did, per UTC day: every authenticated request (web sessions included) and every generation.
      </p>
      {usage.data ? <PeriodForm key={`${usage.data.from}/${usage.data.to}`} usage={usage.data} /> : null}
      <ErrorNote error={usage.error} />
      {usage.error && (from || to) ? (
        <p>
          <a href={href("/usage")}>Show the last 30 days instead</a>
        </p>
      ) : null}
      {usage.loading ? <Busy label="Reading the usage…" /> : null}
      {usage.data && !usage.error ? <UsageReport usage={usage.data} /> : null}
      <h2>Learning analyses this month</h2>
      <QuotaMeter />
    </Page>
  );
}
