/**
 * The content pages in a real browser: generating over the stream, editing, finalizing and seeing what learning took
 * from the edit, the next draft following it; a body holding markup shown as text; the list's status filter; and
 * the editor's versions, publication, conversions and score, each checked against what the server holds.
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
  openPage,
  type Person,
  screenshot,
  sessionOf,
  signIn,
  startDashboard,
} from "./harness.js";

/** The README walkthrough's sources: the reference gives the draft the word "attic". */
const REFERENCE =
  "# Heat pumps in old houses\n\nA heat pump moves heat instead of burning fuel. In a house built before 1950, " +
  "insulating the attic first lets a smaller pump do the job.\n\nThe Greenline Co-op fitted 40 pumps in 2025; " +
  "owners cut their heating bills by a third.";
const DIRECTION = "Insulating an old house before it gets a heat pump";
const SCRIPT = "<script>alert(1)</script>";

describeInBrowser("the content pages", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  async function contentOf(token: string, id: string | number) {
    return (await call(d, "GET", `/api/v1/contents/${id}`, { auth: token })).body;
  }

  /** Fills the new-content form with the walkthrough's inputs and generates, recording the streamed text's lengths. */
  async function generateInPage(page: Page): Promise<{ id: string; lengths: number[]; busySeen: boolean }> {
    await page.goto(`${page.url().split("#")[0]}#/contents/new`);
    await page.getByRole("heading", { name: "New content" }).waitFor();
    await page.getByRole("combobox", { name: "Template" }).selectOption("1");
    await page.getByLabel("Direction").fill(DIRECTION);
    await page.getByLabel("House style (voice)").check();
    await page.getByLabel("Field notes").check();
    await page.getByLabel("Seed (optional)").fill("1");
    await page.evaluate(() => {
      const w = window as unknown as { lengths: number[]; busySeen: boolean };
      w.lengths = [];
      w.busySeen = false;
      new MutationObserver(() => {
        const text = document.querySelector(".stream-text")?.textContent ?? "";
        if (text && text.length !== w.lengths.at(-1)) w.lengths.push(text.length);
        if (document.querySelector('progress[aria-label="Writing"]')) w.busySeen = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const before = page.url();
    await page.getByRole("button", { name: "Generate" }).click();
    await page.waitForURL((url: URL) => url.href !== before && /#\/contents\/\d+/.test(url.href));
    await page.getByLabel("Body").waitFor();
    const id = /#\/contents\/(\d+)/.exec(page.url())![1];
    const seen = await page.evaluate(() => {
      const w = window as unknown as { lengths: number[]; busySeen: boolean };
      return { lengths: w.lengths, busySeen: w.busySeen };
    });
    return { id, ...seen };
  }

  it("generates as it streams, learns the edit at finalization, and the next draft follows it", async () => {
    const person = await newAccount(d);
    const token = await sessionOf(d, person);
    const body = { title: "Field notes", format: "markdown", content: REFERENCE };
    expect((await call(d, "POST", "/api/v1/reference-materials", { auth: token, body })).status).toBe(201);
    const memory = {
      kind: "voice",
      title: "House style",
      content: "Short sentences. Plain words. Speak to the reader as you.",
    };
    expect((await call(d, "POST", "/api/v1/memories", { auth: token, body: memory })).status).toBe(201);
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/contents/new");
    await page.getByLabel("Template").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`content-new: ${await screenshot(page, "content-new")}`);

    const first = await generateInPage(page);
    // The text grew in the page (a state shorter than the last), or, when the stream's events came in one read, the
    // progress indicator showed while it was written.
    const grew = first.lengths.length > 1 && first.lengths[0] < (first.lengths.at(-1) ?? 0);
    expect(grew || first.busySeen).toBe(true);
    const draft = await contentOf(token, first.id);
    expect(draft.status).toBe("generated");
    expect(draft.content).toContain("attic");
    expect(await page.getByLabel("Body").inputValue()).toBe(draft.content);
    // The walkthrough's short reference makes the engine warn; the editor shows the warning it was handed.
    await page.getByText("The generation has warnings:").waitFor();
    await page.getByText(/The references hold \d+ words/).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel("Body").fill(draft.content.replaceAll("attic", "loft"));
    await page.getByRole("button", { name: "Finalize" }).click();
    await page.getByText("You wrote “loft” where the draft said “attic”", { exact: false }).waitFor();
    const finalized = await contentOf(token, first.id);
    expect(finalized.status).toBe("finalized");
    expect(finalized.finalized_content).toBe(draft.content.replaceAll("attic", "loft"));
    expect(await axeViolations(page)).toEqual([]);
    console.log(`content-learning: ${await screenshot(page, "content-learning")}`);

    const second = await generateInPage(page);
    expect(second.id).not.toBe(first.id);
    const next = await contentOf(token, second.id);
    expect(next.content).toContain("loft");
    expect(next.content).not.toContain("attic");
    expect(foreignRequests(d, visit)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  }, 90_000);

  it("shows a body holding markup as text, runs nothing, and filters the list by status", async () => {
    const person: Person = await newAccount(d);
    const token = await sessionOf(d, person);
    const draft = await call(d, "POST", "/api/v1/contents", {
      auth: token,
      body: { title: SCRIPT, content: `${SCRIPT} in the body` },
    });
    expect(draft.status).toBe(201);
    const generated = await call(d, "POST", "/api/v1/generate", {
      auth: token,
      body: { template_id: 1, user_direction: "Why flat roofs suit solar panels", seed: 3 },
    });
    expect(generated.status).toBe(201);
    const visit = await openPage(d);
    const { page } = visit;
    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await signIn(d, visit, person, "#/contents");
    const scriptLink = page.getByRole("link", { name: SCRIPT });
    await scriptLink.waitFor();
    await page.getByRole("link", { name: generated.body.title }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`content-list: ${await screenshot(page, "content-list")}`);

    await page.getByLabel("Status").selectOption("generated");
    await page.getByRole("link", { name: SCRIPT }).waitFor({ state: "detached" });
    const rows = page.locator("tbody tr");
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(generated.body.title);
    await page.getByLabel("Status").selectOption("draft");
    await page.getByRole("link", { name: generated.body.title }).waitFor({ state: "detached" });
    expect(await rows.count()).toBe(1);

    await page.getByRole("link", { name: SCRIPT }).click();
    await page.getByRole("heading", { name: SCRIPT }).waitFor();
    expect(await page.getByLabel("Body").inputValue()).toBe(`${SCRIPT} in the body`);
    expect(await page.locator("main script").count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  }, 60_000);

  it("scores, converts, finalizes, publishes and shows a version, as the server holds them", async () => {
    const person = await newAccount(d);
    const token = await sessionOf(d, person);
    const generated = await call(d, "POST", "/api/v1/generate", {
      auth: token,
      body: { template_id: 1, user_direction: "Why flat roofs suit solar panels", seed: 5 },
    });
    const id = generated.body.content_id;
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, `#/contents/${id}`);
    await page.getByLabel("Body").waitFor();

    await page.getByRole("button", { name: "Score the text" }).click();
    const expected = await call(d, "POST", "/api/v1/scoring", { auth: token, body: { text: generated.body.content } });
    await page.getByText(`Score: ${Math.round(expected.body.score)} of 100`).waitFor();
    const readability = Math.round(expected.body.components.readability.score);
    await page.getByText(`Readability: ${readability} of 100`, { exact: false }).waitFor();

    await page.getByLabel("Format").selectOption("markdown");
    await page.getByRole("button", { name: "Convert" }).click();
    await page.getByRole("article", { name: /Conversion \d+/ }).waitFor();
    const conversions = await call(d, "GET", `/api/v1/conversions?content_id=${id}`, { auth: token });
    expect(conversions.body.data.map((c: { target_format: string }) => c.target_format)).toEqual(["markdown"]);
    expect(
      await page
        .getByRole("article", { name: /Conversion/ })
        .locator("pre")
        .textContent(),
    ).toBe(conversions.body.data[0].output);
    expect(await axeViolations(page)).toEqual([]);
    console.log(`content-editor: ${await screenshot(page, "content-editor")}`);

    await page.getByRole("button", { name: "Finalize" }).click();
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByText("published", { exact: true }).waitFor();
    const published = await contentOf(token, id);
    expect(published.status).toBe("published");
    expect(published.published_at).not.toBeNull();

    await page.getByRole("button", { name: "View version 1" }).click();
    const versions = await call(d, "GET", `/api/v1/contents/${id}/versions`, { auth: token });
    expect(versions.body.data.map((v: { kind: string }) => v.kind)).toEqual(["generated", "finalized"]);
    const shown = page.getByRole("article", { name: "Version 1" });
    expect(await shown.locator("p").textContent()).toBe(versions.body.data[0].text);
    expect(await axeViolations(page)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();

    const narrow = await openPage(d, { width: 375, height: 800 });
    await signIn(d, narrow, person, `#/contents/${id}`);
    await narrow.page.getByLabel("Body").waitFor();
    console.log(`content-editor-375: ${await screenshot(narrow.page, "content-editor-375")}`);
    await narrow.context.close();
  }, 60_000);
});
