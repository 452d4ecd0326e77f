/** The month's learning-analysis quota as a meter: used of the limit, and when it is full again. */
import { useId } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import { ErrorNote } from "../../ui/error-note.js";
import { count, date } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { useAsync } from "../../ui/use-async.js";

/** The month's learning-analysis quota as a meter, or a line saying the plan has none. */
export function QuotaMeter() {
  const id = useId();
  const quota = useAsync(() => ok(api.GET("/api/v1/analysis/quota")), []);
  if (quota.error) return <ErrorNote error={quota.error} />;
  if (!quota.data) return <Busy label="Reading the quota…" />;
  const q = quota.data;
  if (q.limit === 0)
    return (
      <p class="panel quota">
        The plan includes no learning analyses: finalizing still saves a text, but starts no analysis.
      </p>
    );
  return (
    <div class="panel quota">
      <label for={id}>
        {count(q.used)} of {count(q.limit)} used
      </label>
      <meter
        id={id}
        min={0}
        max={q.limit}
        value={Math.min(q.used, q.limit)}
        low={q.limit * 0.8}
        high={q.limit * 0.95}
        optimum={0}
      />
      <p class="muted">
        {count(q.remaining)} remaining; full again on {date(q.period_end)}. Each finalization with learning on uses one.
      </p>
    </div>
  );
}
