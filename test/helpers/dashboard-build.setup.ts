/**
 * Vitest's global setup: builds the dashboard (dist/dashboard) once per run when its sources changed, so that the
 * tests of its routes and pages (test/routes/dashboard.test.ts, test/browser/dashboard/) run against the current code.
 */
import { buildDashboard } from "../../scripts/build-dashboard.js";

export default async function setup(): Promise<void> {
  await buildDashboard({ ifStale: true });
}
