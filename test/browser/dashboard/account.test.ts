/**
 * The account pages in a real browser: a command-line sign-in approved through /device (the program then gets its
 * token) and a wrong code refused in words; workspaces created, renamed, made default and deleted, with the server's
 * state checked after each; the plan page reached from a real plan_upgrade_required's upgrade_action, showing the
 * account's entitlements and the plans as src/domain/plans.ts defines them.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PLAN_LIMITS } from "../../../src/domain/plans.js";
import {
  axeViolations,
  call,
  type Dashboard,
  describeInBrowser,
  foreignRequests,
  newAccount,
  openPage,
  type Person,
  screenshot,
  sessionOf,
  signIn,
  startDashboard,
} from "./harness.js";

/** Signs in on the sign-in page the browser is at, keeping its address. */
async function signInHere(page: Page, person: Person): Promise<void> {
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** The account's workspaces, by name (the API lists them in id order, and ids are random). */
async function workspacesOf(d: Dashboard, person: Person): Promise<{ name: string; is_default: boolean }[]> {
  const listed = await call(d, "GET", "/api/v1/workspaces?limit=100", { auth: await sessionOf(d, person) });
  return (listed.body.data as { name: string; is_default: boolean }[]).sort((a, b) => a.name.localeCompare(b.name));
}

describeInBrowser("the account pages", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  it("approves a command-line sign-in through /device, after signing in, and the program gets its token", async () => {
    const person = await newAccount(d);
    const start = await call(d, "POST", "/api/v1/auth/device/code", { body: {} });
    expect(start.status).toBe(200);
    const pending = await call(d, "POST", "/api/v1/auth/device/token", {
      body: { device_code: start.body.device_code },
    });
    expect(pending.body.details.error_code).toBe("authorization_pending");
    const visit = await openPage(d);
    const { page } = visit;
    await page.goto(start.body.verification_uri_complete);
    await page.getByRole("heading", { name: "Sign in to content-service" }).waitFor();
    await signInHere(page, person);
    await page.getByRole("heading", { name: "Command-line sign-in" }).waitFor();
    expect(await page.getByLabel("Code shown by the program").inputValue()).toBe(start.body.user_code);
    // A code that came in a link is said to have (RFC 8628 §5.4: a link is how a phisher's code would come).
    await page.getByText("This code came filled in by the link you opened.").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`device: ${await screenshot(page, "device")}`);
    await page.getByRole("button", { name: "Approve the sign-in" }).click();
    await page.getByText("You can go back to the program").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const token = await call(d, "POST", "/api/v1/auth/device/token", { body: { device_code: start.body.device_code } });
    expect(token.status).toBe(200);
    expect(token.body.user.email).toBe(person.email);
    expect((await call(d, "GET", "/api/v1/users/me", { auth: token.body.token })).status).toBe(200);
    expect(foreignRequests(d, visit)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("shows the refusal of a wrong code in words, with its code", async () => {
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, d.admin, "#/device");
    await page.getByLabel("Code shown by the program").fill("ZZZZ-ZZZZ");
    await page.getByRole("button", { name: "Approve the sign-in" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("No pending sign-in has that code");
    expect(await alert.textContent()).toContain("404 device_code_not_found");
    expect(await page.getByText("You can go back to the program").count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await visit.context.close();
  });

  it("creates, renames, makes default and deletes workspaces, checking the server after each", async () => {
    const person = await newAccount(d);
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/workspaces");
    await page.getByRole("textbox", { name: "Name of Default" }).waitFor();
    await page.getByLabel("Name of the new workspace").fill("Client: Acme");
    await page.getByRole("button", { name: "Create the workspace" }).click();
    await page.getByRole("textbox", { name: "Name of Client: Acme" }).waitFor();
    expect((await workspacesOf(d, person)).map((w) => w.name)).toEqual(["Client: Acme", "Default"]);
    // The header offers the workspace choice once there are two.
    await page.getByRole("combobox", { name: "Workspace" }).waitFor();

    await page.getByRole("textbox", { name: "Name of Client: Acme" }).fill("Client: Acme Ltd");
    await page.getByRole("button", { name: "Rename Client: Acme" }).click();
    await page.getByRole("textbox", { name: "Name of Client: Acme Ltd" }).waitFor();
    expect((await workspacesOf(d, person)).map((w) => w.name)).toEqual(["Client: Acme Ltd", "Default"]);
    expect(await axeViolations(page)).toEqual([]);
    console.log(`workspaces: ${await screenshot(page, "workspaces")}`);

    // The default cannot go while others exist: the confirmation says so, and the server's refusal is shown.
    await page.getByRole("button", { name: "Delete Default" }).click();
    let dialog = page.getByRole("dialog", { name: "Delete “Default”?" });
    await dialog.getByText("the API keys bound to it").waitFor();
    await dialog.getByText("This is the default workspace").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Delete the workspace and everything in it" }).click();
    await dialog.getByRole("alert").waitFor();
    expect(await dialog.getByRole("alert").textContent()).toContain("409");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await workspacesOf(d, person)).length).toBe(2);

    await page.getByRole("button", { name: "Make default: Client: Acme Ltd" }).click();
    await page.getByRole("button", { name: "Make default: Default" }).waitFor();
    const after = await workspacesOf(d, person);
    expect(after.find((w) => w.name === "Client: Acme Ltd")?.is_default).toBe(true);
    expect(after.find((w) => w.name === "Default")?.is_default).toBe(false);
    expect(await page.getByRole("combobox", { name: "Workspace" }).textContent()).toContain(
      "Client: Acme Ltd (default)",
    );

    await page.getByRole("button", { name: "Delete Default" }).click();
    dialog = page.getByRole("dialog", { name: "Delete “Default”?" });
    await dialog.getByRole("button", { name: "Delete the workspace and everything in it" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Delete Default" }).waitFor({ state: "detached" });
    expect((await workspacesOf(d, person)).map((w) => w.name)).toEqual(["Client: Acme Ltd"]);
    // One workspace left: the header no longer offers a choice.
    await page.getByRole("combobox", { name: "Workspace" }).waitFor({ state: "detached" });
    expect(visit.errors.filter((e) => !e.includes("409"))).toEqual([]);
    await visit.context.close();

    const narrow = await openPage(d, { width: 375, height: 800 });
    await signIn(d, narrow, person, "#/workspaces");
    await narrow.page.getByRole("textbox", { name: "Name of Client: Acme Ltd" }).waitFor();
    expect(await axeViolations(narrow.page)).toEqual([]);
    console.log(`workspaces-375: ${await screenshot(narrow.page, "workspaces-375")}`);
    await narrow.context.close();
  });

  it("opens the plan page from a real plan_upgrade_required and shows the plans as the server defines them", async () => {
    const person = await newAccount(d, "starter");
    // A starter web session is refused every operation not exempt from the plan: issuing a key is one.
    const refused = await call(d, "POST", "/api/v1/api-keys", {
      auth: await sessionOf(d, person),
      body: { name: "x" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.details.error_code).toBe("plan_upgrade_required");
    const visit = await openPage(d);
    const { page } = visit;
    await page.goto(refused.body.details.upgrade_action);
    await signInHere(page, person);
    await page.getByRole("heading", { name: "Plan", exact: true }).waitFor();
    await page.getByText("No: API keys need a Business or Agency plan").waitFor();
    const rows = await page.getByRole("table", { name: "What each plan allows" }).locator("tbody tr").all();
    const shown = await Promise.all(rows.map(async (r) => (await r.locator("th, td").allTextContents()).join("|")));
    const expected = Object.entries(PLAN_LIMITS).map(([plan, l]) =>
      [
        plan === "starter" ? `${plan} (this account)` : plan,
        l.apiAccess ? "yes" : "no",
        l.apiAccess ? l.perMinute.toLocaleString("en-US") : "—",
        l.apiAccess ? l.perHour.toLocaleString("en-US") : "—",
        l.analysesPerMonth.toLocaleString("en-US"),
      ].join("|"),
    );
    expect(shown).toEqual(expected);
    expect(await page.textContent("main")).toContain("content-service accounts set-plan");
    expect(await axeViolations(page)).toEqual([]);
    console.log(`plan: ${await screenshot(page, "plan")}`);
    await visit.context.close();
  });
});
