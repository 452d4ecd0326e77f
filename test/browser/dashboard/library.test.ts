/**
 * The library in a real browser: a pasted reference is listed and stored, an uploaded file too (with its progress
 * shown while it runs), a refused file is shown in the server's words, a reference's `<script>` is shown as text, a
 * reference is deleted after a confirmation, and a memory is added, edited and deleted, each checked on the server.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolations,
  call,
  type Dashboard,
  describeInBrowser,
  holdRequests,
  newAccount,
  openPage,
  type Person,
  screenshot,
  sessionOf,
  signIn,
  startDashboard,
} from "./harness.js";

describeInBrowser("the library", () => {
  let d: Dashboard;
  let person: Person;
  let token: string;
  beforeAll(async () => {
    d = await startDashboard();
    person = await newAccount(d, "business");
    token = await sessionOf(d, person);
  }, 120_000);
  afterAll(() => d?.close());

  const references = async () => (await call(d, "GET", "/api/v1/reference-materials", { auth: token })).body.data;
  const memories = async () => (await call(d, "GET", "/api/v1/memories", { auth: token })).body.data;

  it("adds references by pasting and by uploading, shows them as text, and deletes one after confirming", async () => {
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/library");
    await page.getByText("No reference material yet").waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const paste = page.getByRole("form", { name: "Paste a reference" });
    await paste.getByLabel("Title").fill("Field notes");
    await paste.getByLabel("Format").selectOption("markdown");
    await paste.getByLabel("Content").fill("# Heat pumps\n\nA heat pump moves heat. <script>window.pwned = 1</script>");
    await paste.getByRole("button", { name: "Add the reference" }).click();
    const table = page.getByRole("table", { name: "Reference materials" });
    await table.getByText("Field notes").waitFor();
    const stored = await references();
    expect(stored.map((r: { title: string; source_type: string }) => [r.title, r.source_type])).toEqual([
      ["Field notes", "markdown"],
    ]);

    // The upload is held until the test lets it go: its progress is shown meanwhile.
    const held = await holdRequests(page, "**/api/v1/reference-materials", "POST");
    const upload = page.getByRole("form", { name: "Upload a file" });
    await upload.getByLabel("File", { exact: true }).setInputFiles({
      name: "roof-notes.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("# Roof notes\n\nFlat roofs need ballast mounts. <b>Bold</b> words."),
    });
    await upload.getByRole("button", { name: "Upload" }).click();
    const progress = upload.getByRole("status").filter({ hasText: "Uploading roof-notes.md…" });
    await progress.waitFor();
    expect(await progress.locator("progress").count()).toBe(1);
    held.release();
    await table.getByText("roof-notes.md").waitFor();
    await progress.waitFor({ state: "hidden" });
    await held.stop();
    const uploaded = (await references()).find((r: { title: string }) => r.title === "roof-notes.md");
    expect(uploaded?.source_type).toBe("file");
    expect(
      await table
        .getByRole("row", { name: /roof-notes\.md/ })
        .getByText("Uploaded file")
        .count(),
    ).toBe(1);
    expect(uploaded?.content).toContain("Flat roofs need ballast mounts.");

    // A file the server does not take: its refusal is shown, in its words and code, and nothing is stored.
    await upload.getByLabel("File", { exact: true }).setInputFiles({
      name: "scan.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from("%PDF-1.4 not text"),
    });
    await upload.getByRole("button", { name: "Upload" }).click();
    const refusal = upload.getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("is not a text, Markdown or HTML file.");
    expect(await refusal.textContent()).toMatch(/415 unsupported_media_type · trace_id \S+/);
    expect((await references()).length).toBe(2);

    // What the reference's text holds is shown as text: the <script> is read, never run.
    await page.getByRole("button", { name: "View “Field notes”" }).click();
    const view = page.getByRole("dialog", { name: "Field notes" });
    await view.waitFor();
    const shown = (await references())[0].content as string;
    expect(await view.locator("pre").textContent()).toBe(shown);
    expect(await view.locator("script").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await axeViolations(page)).toEqual([]);
    await view.getByRole("button", { name: "Close" }).click();
    console.log(`library: ${await screenshot(page, "library")}`);

    await page.getByRole("button", { name: "Delete “roof-notes.md”" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete this reference material?" });
    await confirm.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await confirm.getByRole("button", { name: "Delete" }).click();
    await table.getByText("roof-notes.md").waitFor({ state: "detached" });
    expect((await references()).map((r: { title: string }) => r.title)).toEqual(["Field notes"]);
    // The browser logs the refused upload's 415 itself; nothing else.
    expect(visit.errors.filter((e) => !e.includes("415"))).toEqual([]);
    await visit.context.close();
  });

  it("adds, edits and deletes a memory", async () => {
    const visit = await openPage(d, { width: 375, height: 800 });
    const { page } = visit;
    await signIn(d, visit, person, "#/library");
    await page.getByText("No memory yet").waitFor();
    const add = page.getByRole("region", { name: "Memories" });
    await add.getByLabel("Context").check();
    await add.getByLabel("Memory title").fill("Audience");
    await add.getByLabel("Memory content").fill("Owners of old houses.");
    await add.getByRole("button", { name: "Add the memory" }).click();
    await page.getByRole("button", { name: "Edit “Audience”" }).waitFor();
    let held = await memories();
    expect(held.map((m: { kind: string; title: string; content: string }) => [m.kind, m.title, m.content])).toEqual([
      ["context", "Audience", "Owners of old houses."],
    ]);
    console.log(`library at 375 px: ${await screenshot(page, "library-375")}`);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Edit “Audience”" }).click();
    const edit = page.getByRole("dialog", { name: "Edit “Audience”" });
    await edit.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await edit.getByLabel("Voice").check();
    await edit.getByLabel("Memory content").fill("Owners of houses built before 1950.");
    await edit.getByRole("button", { name: "Save the memory" }).click();
    await edit.waitFor({ state: "hidden" });
    await page.getByText("Owners of houses built before 1950.").waitFor();
    held = await memories();
    expect([held[0].kind, held[0].content]).toEqual(["voice", "Owners of houses built before 1950."]);

    await page.getByRole("button", { name: "Delete “Audience”" }).click();
    await page.getByRole("dialog", { name: "Delete this memory?" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText("No memory yet").waitFor();
    expect(await memories()).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });
});
