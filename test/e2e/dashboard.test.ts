/**
 * The dashboard inside the built executable, in Debian's chromium: the page and its files come from the executable
 * alone (run from an empty folder, nothing of this repository in reach), load nothing from another origin, and do
 * the main job of the key pages: sign in, create a key, see it once, use it with the API, revoke it and see the API
 * refuse it within 2 s. The full page suites run against the server from source (test/browser/dashboard/).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolations,
  call,
  type Dashboard,
  describeInBrowser,
  foreignRequests,
  openPage,
  signIn,
  startDashboard,
} from "../browser/dashboard/harness.js";
import { built } from "./harness.js";

describeInBrowser("the dashboard in the executable", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ executable: built });
  }, 120_000);
  afterAll(() => d?.close());

  it("serves the page and its hashed files from the executable, under the page's policy", async () => {
    const page = await fetch(`${d.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    const script = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${d.url}/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(d.server.output()).toContain(`\nDashboard: ${d.url}/\n`);
  });

  it("signs in, issues a key shown once, and revokes it: the API refuses it within 2 s", async () => {
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/keys/new");
    await page.getByLabel("Name").fill("from the executable");
    await page.getByRole("button", { name: "Create the key" }).click();
    const secret = await page.getByLabel("Secret key").inputValue();
    expect((await call(d, "GET", "/api/v1/api-keys/current", { auth: secret })).status).toBe(200);
    await page.getByRole("link", { name: "Back to the API keys" }).click();
    await page.getByRole("row", { name: /from the executable/ }).waitFor();
    expect(await page.textContent("body")).not.toContain(secret);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Revoke from the executable" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke “from the executable”?" });
    await dialog.getByRole("button", { name: "Revoke the key" }).click();
    let status = 0;
    for (let i = 0; i < 20 && status !== 401; i++) {
      status = (await call(d, "GET", "/api/v1/api-keys/current", { auth: secret })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
    expect(foreignRequests(d, visit)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });
});
