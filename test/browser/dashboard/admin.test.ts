/**
 * The admin page in a real browser: the operator's admin changes an account's plan (the server holds it, and that
 * account's admin then meets the upgrade prompt on the key pages), sets and clears a rate-limit override, creates a
 * user whose generated password is shown once and signs in, and finds the plan change in the audit log; another
 * account's admin is refused account creation in words; a member has no Admin link and is told the page is not theirs.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolations,
  call,
  type Dashboard,
  describeInBrowser,
  foreignRequests,
  newAccount,
  newPerson,
  openPage,
  type Person,
  screenshot,
  sessionOf,
  signIn,
  startDashboard,
} from "./harness.js";

describeInBrowser("the admin page", () => {
  let d: Dashboard;
  let team: Person;
  beforeAll(async () => {
    d = await startDashboard();
    team = await newAccount(d, "business");
  }, 120_000);
  afterAll(() => d?.close());

  /** The account as the server holds it now. */
  async function accountOnServer(id: number) {
    const list = await call(d, "GET", "/api/v1/admin/accounts?limit=100", { auth: await sessionOf(d) });
    return list.body.data.find((a: { id: number }) => a.id === id);
  }

  /** Opens the change dialog of the team's account, sets what is given, and saves. */
  async function changeTeam(
    page: Page,
    change: { plan?: string; perMinute?: string; perHour?: string },
    shot?: string,
  ) {
    await page
      .locator(`tr[data-account='${team.accountId}']`)
      .getByRole("button", { name: /^Change/ })
      .click();
    const dialog = page.getByRole("dialog", { name: /^Change Team/ });
    await dialog.waitFor();
    if (change.plan) await dialog.getByLabel("Plan").selectOption(change.plan);
    if (change.perMinute !== undefined) await dialog.getByLabel("Requests per key per minute").fill(change.perMinute);
    if (change.perHour !== undefined) await dialog.getByLabel("Requests per key per hour").fill(change.perHour);
    expect(await axeViolations(page)).toEqual([]);
    if (shot) console.log(`${shot}: ${await screenshot(page, shot)}`);
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("status").filter({ hasText: "saved: plan" }).waitFor();
  }

  it("changes a plan, which the server holds and the account's admin meets on the key pages", async () => {
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/admin");
    await page.locator(`tr[data-account='${team.accountId}']`).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await changeTeam(page, { plan: "starter" });
    expect((await accountOnServer(team.accountId)).plan).toBe("starter");
    await page.locator(`tr[data-account='${team.accountId}'] td`).first().filter({ hasText: "starter" }).waitFor();
    console.log(`admin: ${await screenshot(page, "admin")}`);

    const theirs = await openPage(d);
    await signIn(d, theirs, team, "#/keys");
    // The key pages name the plan instead of listing keys. (Today that is the 403 plan_upgrade_required of GET
    // /workspaces, which account.ts's loadAccount reads with the entitlements, rather than the upgrade prompt: the
    // report of this branch describes it.)
    await theirs.page
      .locator("main")
      .getByText(/starter/)
      .first()
      .waitFor();
    await theirs.context.close();
    expect(foreignRequests(d, visit)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("sets a rate-limit override and returns it to the plan's", async () => {
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/admin");
    await changeTeam(page, { plan: "business", perMinute: "200", perHour: "2000" }, "admin-change");
    expect(await accountOnServer(team.accountId)).toMatchObject({ rate_per_minute: 200, rate_per_hour: 2000 });
    const entitled = await call(d, "GET", "/api/v1/users/me/entitlements", { auth: await sessionOf(d, team) });
    expect(entitled.body.rate_limits).toEqual({ per_minute: 200, per_hour: 2000, overridden: true });
    const row = page.locator(`tr[data-account='${team.accountId}']`);
    await row.getByText("2,000").waitFor();

    await changeTeam(page, { perMinute: "", perHour: "" });
    expect(await accountOnServer(team.accountId)).toMatchObject({ rate_per_minute: null, rate_per_hour: null });
    expect(await row.locator("td").filter({ hasText: "plan's" }).count()).toBe(2);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("creates a user with a generated password, shown once, that signs in", async () => {
    const visit = await openPage(d, { width: 375, height: 800 });
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/admin?tab=users");
    await page.getByRole("heading", { name: "Users" }).waitFor();
    const email = "generated@example.test";
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Role").selectOption("member");
    await page.getByRole("button", { name: "Create the user" }).click();
    const shown = page.getByLabel(`Password of ${email}`);
    await shown.waitFor();
    const password = await shown.inputValue();
    expect(password.length).toBeGreaterThanOrEqual(8);
    await page.getByText("it is shown only once").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`admin-375: ${await screenshot(page, "admin-375")}`);
    expect(await sessionOf(d, { email, password, accountId: 1 })).toMatch(/^ey/);
    await page.locator("tr", { hasText: email }).waitFor();
    await page.getByRole("button", { name: "I have copied it" }).click();
    expect(await page.locator("main").innerText()).not.toContain(password);
    expect(
      await page
        .locator("input")
        .evaluateAll((fields, p) => fields.some((f) => (f as HTMLInputElement).value === p), password),
    ).toBe(false);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("lists the plan change in the account's audit log", async () => {
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/admin");
    await page.locator(`tr[data-account='${team.accountId}']`).getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: `Audit log of account #${team.accountId}` }).waitFor();
    const planChange = page.locator("tr", { has: page.getByRole("rowheader", { name: "account.set_plan" }) }).first();
    await planChange.waitFor();
    expect(await planChange.innerText()).toContain("starter");
    expect(await page.getByRole("rowheader", { name: "account.set_limits" }).count()).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
    console.log(`admin-audit: ${await screenshot(page, "admin-audit")}`);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("pages through a long audit log with its cursor", async () => {
    // 60 renames of the operator's default workspace: 60 workspace.update entries, more than a page (50).
    const token = await sessionOf(d);
    const workspaces = await call(d, "GET", "/api/v1/workspaces", { auth: token });
    const workspace = workspaces.body.data.find((w: { is_default: boolean }) => w.is_default);
    for (let i = 0; i < 60; i++) {
      const renamed = await call(d, "PUT", `/api/v1/workspaces/${workspace.id}`, {
        auth: token,
        body: { name: `Renamed ${i}` },
      });
      expect(renamed.status).toBe(200);
    }
    let onServer = 0;
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const page = await call(d, "GET", `/api/v1/admin/audit-log?limit=100${query}`, { auth: token });
      onServer += page.body.data.length;
      cursor = page.body.has_more ? page.body.next_cursor : null;
    } while (cursor);
    expect(onServer).toBeGreaterThan(60);

    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/admin?tab=audit");
    const rows = page.locator("tr[data-entry]");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(50);
    // The newest first: the last rename heads the log.
    expect(await rows.first().innerText()).toContain("Renamed 59");
    await page.getByRole("button", { name: "Older entries" }).click();
    await page.waitForFunction((n) => document.querySelectorAll("tr[data-entry]").length === n, onServer);
    expect(await page.getByRole("button", { name: "Older entries" }).count()).toBe(0);
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-entry"))));
    expect(new Set(ids).size).toBe(onServer);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("tells another account's admin in words that only the operator creates accounts", async () => {
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, team, "#/admin");
    await page.locator(`tr[data-account='${team.accountId}']`).waitFor();
    expect(await page.locator("tr[data-account]").count()).toBe(1);
    await page.getByLabel("Name").fill("Not allowed");
    await page.getByRole("button", { name: "Create the account" }).click();
    const refusal = page.getByRole("alert");
    await refusal.getByText("Only the server operator's administrators can create accounts.").waitFor();
    expect(await refusal.innerText()).toContain("403 admin_required");
    expect(await axeViolations(page)).toEqual([]);
    const names = (await call(d, "GET", "/api/v1/admin/accounts?limit=100", { auth: await sessionOf(d) })).body.data;
    expect(names.map((a: { name: string }) => a.name)).not.toContain("Not allowed");
    await visit.context.close();
  });

  it("gives a member no Admin link, and tells them the page is for administrators", async () => {
    const member = await newPerson(d, 1, "member");
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, member, "#/admin");
    await page.getByText("This page is for the account's administrators.").waitFor();
    const nav = page.getByRole("navigation", { name: "Pages" });
    await nav.getByRole("link", { name: "Usage" }).waitFor();
    expect(await nav.getByRole("link", { name: "Admin" }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await visit.context.close();
  });
});
