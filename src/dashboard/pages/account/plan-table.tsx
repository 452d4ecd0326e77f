/**
 * What each plan allows, as src/domain/plans.ts (PLAN_LIMITS) defines it. The dashboard cannot import server code
 * (.dependency-cruiser.cjs) and no API operation lists the plans, so the table is repeated here;
 * test/browser/dashboard/account.test.ts compares the plan page's table with PLAN_LIMITS, so the two cannot drift.
 */
export interface PlanRow {
  plan: string;
  apiAccess: boolean;
  perMinute: number;
  perHour: number;
  analysesPerMonth: number;
}

/**
 * What each plan allows, as src/domain/plans.ts defines it: the dashboard imports no server code and no operation lists
 * the plans, so test/browser/dashboard/account.test.ts compares this table, cell by cell, with the server's.
 */
export const PLAN_TABLE: PlanRow[] = [
  { plan: "starter", apiAccess: false, perMinute: 0, perHour: 0, analysesPerMonth: 0 },
  { plan: "pro", apiAccess: false, perMinute: 0, perHour: 0, analysesPerMonth: 0 },
  { plan: "business", apiAccess: true, perMinute: 100, perHour: 1000, analysesPerMonth: 500 },
  { plan: "agency", apiAccess: true, perMinute: 300, perHour: 5000, analysesPerMonth: 2000 },
];

/** How plans change on this server: the billing operations answer 409 billing_managed_locally. */
export function HowPlansChange() {
  return (
    <p>
      On this server plans are set by the administrator, not bought here: with{" "}
      <code>content-service accounts set-plan</code> on the server, or on the Admin page. Ask yours to change the
      account's plan.
    </p>
  );
}
