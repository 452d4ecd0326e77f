/**
 * The usage page in a real browser: traffic made with the first start's key shows in the requests and generations
 * charts (whose labels state the numbers), in the table the charts are also offered as (equal to what GET /usage
 * answered the page), and the month's analysis quota shows as a meter.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolations,
  call,
  type Dashboard,
  describeInBrowser,
  foreignRequests,
  openPage,
  screenshot,
  signIn,
  startDashboard,
} from "./harness.js";

describeInBrowser("the usage page", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  /** Some traffic under the first start's key: four reads and one generation. */
  async function makeTraffic(): Promise<void> {
    for (const path of ["/api/v1/templates", "/api/v1/contents", "/api/v1/users/me/entitlements", "/api/v1/models"])
      expect((await call(d, "GET", path, { auth: d.apiKey })).status).toBe(200);
    const generated = await call(d, "POST", "/api/v1/generate", {
      auth: d.apiKey,
      body: { template_id: 1, user_direction: "A short note on why flat roofs suit solar panels." },
    });
    expect(generated.status).toBe(201);
  }

  it("charts and tabulates the day's requests and generations as GET /usage counts them, and shows the quota", async () => {
    await makeTraffic();
    const before = await call(d, "GET", "/api/v1/usage", { auth: d.apiKey });
    const today = before.body.to as string;
    const todayBefore = before.body.days.find((x: { day: string }) => x.day === today);
    expect(todayBefore.generations).toBe(1);
    expect(todayBefore.requests).toBeGreaterThanOrEqual(5);

    const visit = await openPage(d);
    const { page } = visit;
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/usage" && r.ok());
    await signIn(d, visit, d.admin, "#/usage");
    const usage = await (await answered).json();
    const served = usage.days.find((x: { day: string }) => x.day === today);
    // The page's own session requests count as well, so it sees at least what the key made, and the same generations.
    expect(served.requests).toBeGreaterThanOrEqual(todayBefore.requests);
    expect(served.generations).toBe(1);

    const requestsChart = page.locator("svg[role=img][aria-label^='Requests per day']");
    await requestsChart.waitFor();
    const requestsLabel = await requestsChart.getAttribute("aria-label");
    expect(requestsLabel).toContain(`${usage.totals.requests.toLocaleString("en-US")} in all`);
    const generationsLabel = await page
      .locator("svg[role=img][aria-label^='Generations per day']")
      .getAttribute("aria-label");
    expect(generationsLabel).toContain("1 in all");
    expect(await page.locator("svg.day-chart.requests rect.bar").count()).toBe(usage.days.length);

    await page.getByText("Show as a table").click();
    const row = page.locator(`tr[data-day='${today}']`);
    const cells = row.locator("td");
    expect(await cells.nth(0).innerText()).toBe(String(served.requests));
    expect(await cells.nth(1).innerText()).toBe(String(served.generations));

    const quota = await call(d, "GET", "/api/v1/analysis/quota", { auth: d.apiKey });
    const meter = page.getByRole("meter");
    await meter.waitFor();
    const shown = await meter.evaluate((m: HTMLMeterElement) => ({ max: m.max, value: m.value }));
    expect(shown).toEqual({ max: quota.body.limit, value: quota.body.used });
    await page.getByText(`${quota.body.used} of ${quota.body.limit.toLocaleString("en-US")} used`).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`usage: ${await screenshot(page, "usage")}`);
    expect(foreignRequests(d, visit)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("shows a chosen period, and is readable at 375 px", async () => {
    const visit = await openPage(d, { width: 375, height: 800 });
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/usage");
    const to = await page.getByLabel("To (UTC day)").inputValue();
    const from = new Date(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("From (UTC day)").fill(from);
    const answered = page.waitForResponse((r) => r.url().includes(`/api/v1/usage?from=${from}`) && r.ok());
    await page.getByRole("button", { name: "Show this period" }).click();
    const usage = await (await answered).json();
    expect(usage.days).toHaveLength(7);
    await page.waitForFunction(() => document.querySelectorAll("svg.day-chart.requests rect.bar").length === 7);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(375);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByText("Show as a table").click();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`usage-375: ${await screenshot(page, "usage-375")}`);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });
});
