/**
 * The voice profile in a real browser: a profile learned as README.md's walkthrough teaches one (generate, finalize an
 * edited draft, wait for the learning job) is shown with its evidence; a substitution given another replacement, a
 * trait removed and a target set through the page are so on the server; a reset, after its confirmation, empties the profile; an account with no profile is told how it fills.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolations,
  call,
  type Dashboard,
  describeInBrowser,
  newAccount,
  openPage,
  type Person,
  screenshot,
  sessionOf,
  signIn,
  startDashboard,
} from "./harness.js";

describeInBrowser("the voice profile", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  /** README.md's walkthrough, steps 1 to 6: the finalization writes "loft" where the draft says "attic". */
  async function learnLoft(token: string): Promise<void> {
    const ref = await call(d, "POST", "/api/v1/reference-materials", {
      auth: token,
      body: {
        title: "Field notes",
        format: "markdown",
        content:
          "# Heat pumps in old houses\n\nA heat pump moves heat instead of burning fuel. In a house built before 1950, " +
          "insulating the attic first lets a smaller pump do the job.\n\nThe Greenline Co-op fitted 40 pumps in 2025; " +
          "owners cut their heating bills by a third.",
      },
    });
    expect(ref.status).toBe(201);
    const generated = await call(d, "POST", "/api/v1/generate", {
      auth: token,
      body: {
        template_id: 1,
        user_direction: "Insulating an old house before it gets a heat pump",
        reference_material_ids: [ref.body.id],
        seed: 1,
      },
    });
    expect(generated.status).toBe(201);
    const content = await call(d, "GET", `/api/v1/contents/${generated.body.content_id}`, { auth: token });
    expect(content.body.content).toContain("attic");
    const finalized = await call(d, "POST", "/api/v1/finalizeContent", {
      auth: token,
      body: {
        content_id: generated.body.content_id,
        edit_seconds: 300,
        finalized_content: content.body.content.replaceAll("attic", "loft"),
      },
    });
    expect(finalized.status).toBe(200);
    const job = finalized.body.learning_job_id;
    for (let i = 0; i < 100; i++) {
      const res = await call(d, "GET", `/api/v1/learning-jobs/${job}`, { auth: token });
      if (res.body.finished_at) {
        expect(res.body.status).toBe("succeeded");
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`learning job ${job} did not finish`);
  }

  const profileOf = async (token: string) =>
    (await call(d, "GET", "/api/v1/voice-profiles", { auth: token })).body.data[0];

  it("shows the learned traits with their evidence, corrects them, and resets after a confirmation", async () => {
    const person: Person = await newAccount(d, "business");
    const token = await sessionOf(d, person);
    await learnLoft(token);
    const learned = await profileOf(token);
    const loft = learned.traits.substitutions.find((s: { to: string }) => s.to === "loft");
    expect(loft?.from).toBe("attic");

    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/voice");
    const words = page.getByRole("table", { name: "Words replaced" });
    const row = words.getByRole("row").filter({ hasText: "loft" });
    await row.waitFor();
    expect(await row.textContent()).toContain("attic");
    expect(await row.textContent()).toContain(`in 1 finalization: content ${loft.content_ids[0]}`);
    await page.getByText("Learned from 1 finalization").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`voice: ${await screenshot(page, "voice")}`);

    // Another replacement: the substitution keeps its evidence, the old one is recorded as removed.
    await row.getByRole("button", { name: "Change “loft”" }).click();
    const change = page.getByRole("dialog", { name: "Replace “attic” with" });
    await change.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await change.getByLabel("Replacement").fill("Garret");
    await change.getByRole("button", { name: "Save the replacement" }).click();
    const garret = words.getByRole("row").filter({ hasText: "garret" });
    await garret.waitFor();
    const edited = await profileOf(token);
    expect(edited.traits.substitutions.map((s: { from: string; to: string }) => [s.from, s.to])).toEqual([
      ["attic", "garret"],
    ]);

    await garret.getByRole("button", { name: "Remove “attic” → “garret”" }).click();
    await page.getByRole("region", { name: "Removed by a person" }).getByText("“garret” instead of “attic”").waitFor();
    expect(await words.count()).toBe(0);
    const corrected = await profileOf(token);
    expect(corrected.traits.substitutions).toEqual([]);
    expect(corrected.removed.substitutions.map((s: { from: string; to: string }) => [s.from, s.to])).toEqual([
      ["attic", "loft"],
      ["attic", "garret"],
    ]);

    await page.getByLabel("Sentence length, in words").fill("12");
    await page.getByRole("button", { name: "Set the targets" }).click();
    await page.getByText("Sentences of about 12 words.").waitFor();
    expect((await profileOf(token)).traits.target_sentence_words).toBe(12);

    // What else the edit taught (the sentence length, the editing time) stays until the reset.
    expect(corrected.sample_count).toBe(1);
    {
      await page.getByRole("button", { name: "Reset the profile" }).click();
      const confirm = page.getByRole("dialog", { name: "Reset the voice profile?" });
      await confirm.getByText("Everything learned is forgotten").waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await confirm.getByRole("button", { name: "Reset" }).click();
      await page.getByText("Nothing learned yet in this workspace.").waitFor();
      const reset = await profileOf(token);
      expect(reset.sample_count).toBe(0);
      expect(reset.traits.target_sentence_words).toBeNull();
    }
    await page.setViewportSize({ width: 375, height: 800 });
    console.log(`voice at 375 px: ${await screenshot(page, "voice-375")}`);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  }, 120_000);

  it("says how an empty profile fills", async () => {
    const person = await newAccount(d, "business");
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, "#/voice");
    await page.getByText("The profile fills as you finalize edited drafts").waitFor();
    expect(await page.getByRole("button", { name: "Reset the profile" }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await visit.context.close();
  });
});
