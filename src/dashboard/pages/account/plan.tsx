/**
 * The account's plan (#/plan, plan_upgrade_required's upgrade_action): its entitlements as the server reports them
 * (GET /users/me/entitlements), what each plan allows (plan-table.tsx), and how a plan changes on this server.
 */

import type { Entitlements } from "../../account.js";
import { api, ok } from "../../api/client.js";
import type { PageProps } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { count, date } from "../../ui/format.js";
import { Busy, Page } from "../../ui/page.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { useAsync } from "../../ui/use-async.js";
import { HowPlansChange, PLAN_TABLE } from "./plan-table.js";
import "./account.css";

function EntitlementList({ e }: { e: Entitlements }) {
  const q = e.analysis_quota;
  return (
    <dl class="facts">
      <dt>Plan</dt>
      <dd>{e.plan}</dd>
      <dt>API access</dt>
      <dd>
        {e.api_access ? "Yes: the account's API keys are accepted" : "No: API keys need a Business or Agency plan"}
      </dd>
      <dt>Rate limits</dt>
      <dd>
        {count(e.rate_limits.per_minute)} requests a minute, {count(e.rate_limits.per_hour)} an hour
        {e.rate_limits.overridden ? " (set by the administrator for this account)" : ""}
      </dd>
      <dt>Learning analyses</dt>
      <dd>
        {count(q.used)} of {count(q.limit)} used this month, {count(q.remaining)} left (until {date(q.period_end)})
      </dd>
      <dt>Key scopes</dt>
      <dd>{e.scopes_available.length ? e.scopes_available.join(", ") : "—"}</dd>
    </dl>
  );
}

function PlanComparison({ current }: { current: string | undefined }) {
  return (
    <TableWrap label="Plans">
      <table aria-label="What each plan allows">
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">API access</th>
            <th scope="col">Requests a minute</th>
            <th scope="col">Requests an hour</th>
            <th scope="col">Analyses a month</th>
          </tr>
        </thead>
        <tbody>
          {PLAN_TABLE.map((p) => (
            <tr key={p.plan} aria-current={p.plan === current ? "true" : undefined}>
              <th scope="row">
                {p.plan}
                {p.plan === current ? " (this account)" : ""}
              </th>
              <td>{p.apiAccess ? "yes" : "no"}</td>
              <td>{p.apiAccess ? count(p.perMinute) : "—"}</td>
              <td>{p.apiAccess ? count(p.perHour) : "—"}</td>
              <td>{count(p.analysesPerMonth)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The account's plan and entitlements, what each plan allows, and how plans change on this server. */
export function PlanPage(_props: PageProps) {
  const entitlements = useAsync(() => ok(api.GET("/api/v1/users/me/entitlements")), []);
  return (
    <Page title="Plan">
      <ErrorNote error={entitlements.error} />
      <section class="panel account-panel" aria-labelledby="plan-now">
        <h2 id="plan-now">This account</h2>
        {entitlements.data ? <EntitlementList e={entitlements.data} /> : <Busy label="Reading the plan…" />}
      </section>
      <h2>What each plan allows</h2>
      <PlanComparison current={entitlements.data?.plan} />
      <section class="panel account-panel plan-change" aria-labelledby="plan-change">
        <h2 id="plan-change">Changing the plan</h2>
        <HowPlansChange />
        <p class="muted">The billing operations of the API answer 409 billing_managed_locally on this server.</p>
      </section>
    </Page>
  );
}
