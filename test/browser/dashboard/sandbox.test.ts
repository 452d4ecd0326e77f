/**
 * The sandbox banner (src/dashboard/sandbox.tsx): above every page of a server in sandbox mode, the sign-in page
 * included; never on a server that is not in it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolations,
  type Dashboard,
  describeInBrowser,
  openPage,
  screenshot,
  signIn,
  startDashboard,
} from "./harness.js";

const BANNER = { name: /^Sandbox mode/ } as const;

describeInBrowser("the dashboard's sandbox banner", () => {
  let sandbox: Dashboard;
  let plain: Dashboard;
  beforeAll(async () => {
    [sandbox, plain] = await Promise.all([startDashboard({ extra: ["--sandbox"] }), startDashboard()]);
  }, 120_000);
  afterAll(() => Promise.all([sandbox?.close(), plain?.close()]));

  it("is above the sign-in page and every page after it in sandbox mode", async () => {
    const visit = await openPage(sandbox);
    const { page } = visit;
    await page.goto(`${sandbox.url}/`);
    await page.getByRole("heading", { name: "Sign in to content-service" }).waitFor();
    await page.getByRole("status").filter({ hasText: BANNER.name }).waitFor();
    await signIn(sandbox, visit);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const banner = page.getByRole("status").filter({ hasText: BANNER.name });
    expect(await banner.textContent()).toContain("a server for tests");
    for (const link of ["API keys", "Usage"]) {
      await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: link }).click();
      expect(await banner.isVisible()).toBe(true);
    }
    expect(await axeViolations(page)).toEqual([]);
    console.log(`sandbox banner: ${await screenshot(page, "sandbox-banner")}`);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("is not there when the server is not in sandbox mode", async () => {
    const visit = await openPage(plain);
    const { page } = visit;
    await page.goto(`${plain.url}/`);
    await signIn(plain, visit);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await page.getByText("Sandbox mode").count()).toBe(0);
    await visit.context.close();
  });
});
