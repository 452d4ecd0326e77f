/**
 * The API key pages in a real browser: a key is issued with the specification's choices and its secret shown once
 * (copied, then working with the API, then gone from the page), revoked after a confirmation (the API refuses it
 * within 2 s), and rotated (the old key works until the new one is said to be deployed). The binding choice exists
 * only for an account with several workspaces, and a starter account sees the upgrade prompt instead.
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

/** The status the API answers a key with, polled for up to 2 s until it is `want`. */
async function statusWithin2s(d: Dashboard, key: string, want: number): Promise<number> {
  let status = 0;
  for (let i = 0; i < 20; i++) {
    status = (await call(d, "GET", "/api/v1/api-keys/current", { auth: key })).status;
    if (status === want) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return status;
}

async function keysOf(d: Dashboard, person: Person): Promise<{ revoked_at: string | null }[]> {
  return (await call(d, "GET", "/api/v1/api-keys?limit=100", { auth: await sessionOf(d, person) })).body.data;
}

async function secretShown(page: Page): Promise<string> {
  const field = page.getByLabel("Secret key");
  await field.waitFor();
  return field.inputValue();
}

describeInBrowser("the API key pages", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  it("issues a key bound to the only workspace, shows its secret once, lists it and revokes it", async () => {
    const person = await newAccount(d);
    const session = await sessionOf(d, person);
    const workspace = (await call(d, "GET", "/api/v1/workspaces", { auth: session })).body.data[0];
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/keys/new");
    await page.getByRole("heading", { name: "New API key" }).waitFor();
    // One workspace: the binding is automatic, no field offers it.
    expect(await page.getByLabel("Workspace binding").count()).toBe(0);
    expect(await page.getByLabel("90 days").isChecked()).toBe(true);
    expect(await page.getByLabel(/^Read and write/).isChecked()).toBe(true);
    await page.getByLabel("Name").fill("CI publisher");
    expect(await axeViolations(page)).toEqual([]);
    console.log(`keys-new: ${await screenshot(page, "keys-new")}`);
    await page.getByRole("button", { name: "Create the key" }).click();
    const secret = await secretShown(page);
    expect(secret).toMatch(/^svc_live_/);
    await page.getByText("it will not be shown again").waitFor();
    await page.getByRole("button", { name: "Copy the key" }).click();
    await page.getByText("Copied.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    expect(await axeViolations(page)).toEqual([]);
    console.log(`keys-secret: ${await screenshot(page, "keys-secret")}`);
    const current = await call(d, "GET", "/api/v1/api-keys/current", { auth: secret });
    expect(current.status).toBe(200);
    expect(current.body.workspace_id).toBe(workspace.id);
    expect(current.body.scopes).toEqual(["read", "write"]);
    const days = (Date.parse(current.body.expires_at) - Date.parse(current.body.created_at)) / 86_400_000;
    expect(Math.round(days)).toBe(90);

    // Leaving the page forgets the secret: the list shows the key without it.
    await page.getByRole("link", { name: "Back to the API keys" }).click();
    const row = page.getByRole("row", { name: /CI publisher/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(workspace.name);
    expect(await row.textContent()).toContain("active");
    expect(await page.textContent("body")).not.toContain(secret);
    await page.reload();
    await signIn(d, visit, person, "#/keys");
    await page.getByRole("row", { name: /CI publisher/ }).waitFor();
    expect(await page.textContent("body")).not.toContain(secret);
    expect(await axeViolations(page)).toEqual([]);
    console.log(`keys: ${await screenshot(page, "keys")}`);

    await page.getByRole("button", { name: "Revoke CI publisher" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke “CI publisher”?" });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Revoke the key" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await statusWithin2s(d, secret, 401)).toBe(401);
    await page
      .getByRole("row", { name: /CI publisher/ })
      .getByText("revoked")
      .waitFor();
    expect((await keysOf(d, person))[0].revoked_at).not.toBeNull();
    expect(foreignRequests(d, visit)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("rotates a key: the replacement has the same choices, the old one works until it is said to be deployed", async () => {
    const person = await newAccount(d);
    const session = await sessionOf(d, person);
    const old = await call(d, "POST", "/api/v1/api-keys", {
      auth: session,
      body: { name: "Nightly export", scopes: ["read"], expires: "30d" },
    });
    expect(old.status).toBe(201);
    const visit = await openPage(d, { width: 375, height: 800 });
    const { page } = visit;
    await signIn(d, visit, person, "#/keys");
    await page.getByRole("button", { name: "Rotate Nightly export" }).click();
    const fresh = await secretShown(page);
    expect(fresh).not.toBe(old.body.key);
    expect(await axeViolations(page)).toEqual([]);
    console.log(`keys-375: ${await screenshot(page, "keys-375")}`);
    expect((await call(d, "GET", "/api/v1/api-keys/current", { auth: old.body.key })).status).toBe(200);
    const replacement = await call(d, "GET", "/api/v1/api-keys/current", { auth: fresh });
    expect(replacement.status).toBe(200);
    expect(replacement.body.name).toBe("Nightly export");
    expect(replacement.body.scopes).toEqual(["read"]);
    expect(replacement.body.workspace_id).toBe(old.body.workspace_id);
    const days = (Date.parse(replacement.body.expires_at) - Date.parse(replacement.body.created_at)) / 86_400_000;
    expect(Math.round(days)).toBe(30);

    await page.getByRole("button", { name: "The new key is deployed: revoke the old one" }).click();
    expect(await statusWithin2s(d, old.body.key, 401)).toBe(401);
    expect((await call(d, "GET", "/api/v1/api-keys/current", { auth: fresh })).status).toBe(200);
    await page.getByLabel("Secret key").waitFor({ state: "detached" });
    expect(await page.textContent("body")).not.toContain(fresh);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("shows a member every key with who issued it, buttons on its own only, and the cap once reached", async () => {
    const owner = await newAccount(d);
    const member = await newPerson(d, owner.accountId, "member");
    const theirs = await call(d, "POST", "/api/v1/api-keys", {
      auth: await sessionOf(d, owner),
      body: { name: "Owner's key" },
    });
    const mine = await call(d, "POST", "/api/v1/api-keys", {
      auth: await sessionOf(d, member),
      body: { name: "Member's key" },
    });
    expect([theirs.status, mine.status]).toEqual([201, 201]);
    const cap = await call(d, "PUT", `/api/v1/admin/accounts/${owner.accountId}`, {
      auth: await sessionOf(d),
      body: { max_active_keys: 2 },
    });
    expect(cap.status).toBe(200);
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, member, "#/keys");
    await page.getByRole("button", { name: "Revoke Member's key" }).waitFor();
    expect(await page.getByRole("button", { name: "Revoke Owner's key" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Rotate Owner's key" }).count()).toBe(0);
    const rows = await page.locator("tbody tr").allTextContents();
    expect(rows.find((r) => r.includes("Owner's key"))).toContain(owner.email);
    expect(await page.getByText("The account has 2 active keys, its limit").count()).toBe(1);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("rotates a key at the account's cap: the old key works beside the new one for a day", async () => {
    const person = await newAccount(d);
    const session = await sessionOf(d, person);
    const old = await call(d, "POST", "/api/v1/api-keys", { auth: session, body: { name: "Only key" } });
    expect(old.status).toBe(201);
    const cap = await call(d, "PUT", `/api/v1/admin/accounts/${person.accountId}`, {
      auth: await sessionOf(d),
      body: { max_active_keys: 1 },
    });
    expect(cap.status).toBe(200);
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/keys");
    await page.getByText("The account has 1 active keys, its limit").waitFor();
    await page.getByRole("button", { name: "Rotate Only key" }).click();
    const fresh = await secretShown(page);
    await page.getByText(/still works, until .* \(the account is at its limit of active keys\)/).waitFor();
    expect((await call(d, "GET", "/api/v1/api-keys/current", { auth: fresh })).status).toBe(200);
    expect((await call(d, "GET", "/api/v1/api-keys/current", { auth: old.body.key })).status).toBe(200);
    await page.getByRole("button", { name: "The new key is deployed: revoke the old one" }).click();
    expect(await statusWithin2s(d, old.body.key, 401)).toBe(401);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("offers the binding to an account with two workspaces, and follows ?scopes= in the address", async () => {
    const person = await newAccount(d);
    const session = await sessionOf(d, person);
    expect(
      (await call(d, "POST", "/api/v1/workspaces", { auth: session, body: { name: "Client: Acme" } })).status,
    ).toBe(201);
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/keys/new?scopes=read");
    await page.getByRole("heading", { name: "New API key" }).waitFor();
    expect(await page.getByLabel(/^Read:/).isChecked()).toBe(true);
    // The same page at another address (insufficient_scope's upgrade_action): the choice follows it.
    await page.goto(`${d.url}/#/keys/new?scopes=read,write`);
    expect(await page.getByLabel(/^Read and write/).isChecked()).toBe(true);
    const binding = page.getByLabel("Workspace binding");
    const options = await binding.locator("option").allTextContents();
    expect(options[0]).toBe("All workspaces");
    expect(options.slice(1).sort()).toEqual(["Client: Acme", "Default"]);
    await binding.selectOption({ label: "All workspaces" });
    await page.getByLabel("Name").fill("Agency-wide");
    await page.getByLabel("Never").check();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Create the key" }).click();
    const secret = await secretShown(page);
    const current = await call(d, "GET", "/api/v1/api-keys/current", { auth: secret });
    expect(current.body.workspace_id).toBeNull();
    expect(current.body.expires_at).toBeNull();
    await visit.context.close();
  });

  // A starter or pro web session reaches only the account's reads, its keys, the approval and /admin (planExempt):
  // the dashboard shows the prompt in place of the other pages.
  it("shows a starter account the upgrade prompt instead of the keys", async () => {
    const person = await newAccount(d, "starter");
    const listed = await call(d, "GET", "/api/v1/workspaces", { auth: await sessionOf(d, person) });
    expect(listed.body.details?.error_code).toBe("plan_upgrade_required");
    const visit = await openPage(d);
    const { page } = visit;
    try {
      await signIn(d, visit, person, "#/keys");
      await page.getByRole("heading", { name: "API keys need a Business or Agency plan" }).waitFor({ timeout: 5000 });
      expect(await page.textContent("main")).toContain("starter");
      expect(await page.textContent("main")).toContain("content-service accounts set-plan");
      expect(await page.getByRole("link", { name: "See what each plan allows" }).getAttribute("href")).toBe("#/plan");
      expect(await page.getByRole("button", { name: "Create the key" }).count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await page.goto(`${d.url}/#/contents`);
      await page.getByRole("heading", { name: "API keys need a Business or Agency plan" }).waitFor();
      await page.goto(`${d.url}/#/plan`);
      await page.getByRole("heading", { name: "Plan", exact: true }).waitFor();
      expect(visit.errors).toEqual([]);
    } finally {
      console.log(`upgrade: ${await screenshot(page, "upgrade")}`);
      await visit.context.close();
    }
  });
});
