/**
 * The editorial calendar in a real browser: contents on their planned days as the server wrote them, the overdue one
 * marked in words, a move made with the keyboard that the server holds afterwards, a move shown only once the
 * server confirmed it, and a refused move that leaves the item where it was and shows the refusal.
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

const pad = (n: number) => String(n).padStart(2, "0");
const now = new Date();
const thisMonth = `${now.getFullYear()}-${pad(now.getMonth() + 1)}`;
const last = new Date(now.getFullYear(), now.getMonth() - 1, 1);
const lastMonth = `${last.getFullYear()}-${pad(last.getMonth() + 1)}`;

describeInBrowser("the editorial calendar", () => {
  let d: Dashboard;
  let person: Person;
  let token: string;
  beforeAll(async () => {
    d = await startDashboard();
    person = await newAccount(d, "business");
    token = await sessionOf(d, person);
  }, 120_000);
  afterAll(() => d?.close());

  /** A content planned on a day (or none), made through the API. */
  async function planned(title: string, day: string | null): Promise<number> {
    const made = await call(d, "POST", "/api/v1/contents", { auth: token, body: { title, content: "Notes." } });
    expect(made.status).toBe(201);
    if (day) {
      const res = await call(d, "PATCH", `/api/v1/contents/${made.body.content_id}/schedule`, {
        auth: token,
        body: { scheduled_publish_at: day },
      });
      expect(res.body.scheduled_publish_day).toBe(day);
    }
    return made.body.content_id;
  }

  const dayOf = async (id: number) =>
    (await call(d, "GET", `/api/v1/contents/${id}`, { auth: token })).body.scheduled_publish_day;

  it("shows each content on its day, marks the overdue one, and moves one with the keyboard", async () => {
    const first = await planned("Roof checklist", `${thisMonth}-20`);
    // A date-time with an offset: the planned day is its date part as sent, never shifted to the browser's zone.
    const made = await call(d, "POST", "/api/v1/contents", { auth: token, body: { title: "Late night post" } });
    const late = made.body.content_id;
    await call(d, "PATCH", `/api/v1/contents/${late}/schedule`, {
      auth: token,
      body: { scheduled_publish_at: `${thisMonth}-21T23:30:00-11:00` },
    });
    const overdue = await planned("Forgotten announcement", `${lastMonth}-15`);
    await planned("Someday piece", null);
    // The browser is 14 hours ahead of UTC: a day read through its Date would shift the late-night post by a day.
    const visit = await openPage(d, { timezoneId: "Pacific/Kiritimati" });
    const { page } = visit;
    await signIn(d, visit, person, `#/calendar?month=${thisMonth}`);
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe("Pacific/Kiritimati");
    const day = (key: string) => page.locator(`li[data-day="${key}"]`);
    await day(`${thisMonth}-20`).getByText("Roof checklist").waitFor();
    await day(`${thisMonth}-21`).getByText("Late night post").waitFor();
    await page.getByRole("complementary").getByText("Someday piece").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    console.log(`calendar: ${await screenshot(page, "calendar")}`);

    await page.getByRole("link", { name: "← Previous month" }).click();
    const item = day(`${lastMonth}-15`).locator(`[data-content-id="${overdue}"]`);
    await item.getByText("Forgotten announcement").waitFor();
    expect(await item.getByText("Overdue").count()).toBe(1);
    await page.getByRole("link", { name: "Next month →" }).click();

    // The keyboard way: focus the Move button, Enter, type the day, Enter.
    await day(`${thisMonth}-20`).getByRole("button", { name: "Move “Roof checklist”" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Move “Roof checklist”" });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByLabel("Planned day").fill(`${thisMonth}-27`);
    await page.keyboard.press("Enter");
    await day(`${thisMonth}-27`).getByText("Roof checklist").waitFor();
    // The keyboard's focus is back on the item, on its new day.
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    await expect.poll(focused).toBe("Move “Roof checklist”");
    expect(await day(`${thisMonth}-20`).getByText("Roof checklist").count()).toBe(0);
    expect(await dayOf(first)).toBe(`${thisMonth}-27`);

    // An unplanned content is given a day from the list beside the month.
    await page.getByRole("button", { name: "Plan a day for “Someday piece”" }).click();
    await page.getByRole("dialog").getByLabel("Planned day").fill(`${thisMonth}-03`);
    await page.getByRole("button", { name: "Save the day" }).click();
    await day(`${thisMonth}-03`).getByText("Someday piece").waitFor();
    expect(await page.getByRole("complementary").getByText("Someday piece").count()).toBe(0);
    await page.setViewportSize({ width: 375, height: 800 });
    console.log(`calendar at 375 px: ${await screenshot(page, "calendar-375")}`);
    expect(await axeViolations(page)).toEqual([]);
    expect(visit.errors).toEqual([]);
    await visit.context.close();
  });

  it("shows a move only once the server confirms it, and leaves a refused one where it was", async () => {
    const id = await planned("Held post", `${thisMonth}-10`);
    const visit = await openPage(d);
    const { page } = visit;
    await signIn(d, visit, person, `#/calendar?month=${thisMonth}`);
    const day = (key: string) => page.locator(`li[data-day="${key}"]`);
    await day(`${thisMonth}-10`).getByText("Held post").waitFor();

    // Held: the request waits until the test lets it go.
    const held = await holdRequests(page, `**/api/v1/contents/${id}/schedule`);
    await page.getByRole("button", { name: "Move “Held post”" }).click();
    await page.getByRole("dialog").getByLabel("Planned day").fill(`${thisMonth}-12`);
    await page.getByRole("button", { name: "Save the day" }).click();
    await day(`${thisMonth}-10`).getByText(`Saving the move to ${thisMonth}-12…`).waitFor();
    expect(await day(`${thisMonth}-12`).getByText("Held post").count()).toBe(0);
    expect(await dayOf(id)).toBe(`${thisMonth}-10`);
    held.release();
    await day(`${thisMonth}-12`).getByText("Held post").waitFor();
    expect(await dayOf(id)).toBe(`${thisMonth}-12`);
    await held.stop();

    // Refused: a coded 409 as the server gives for published content.
    await page.route(`**/api/v1/contents/${id}/schedule`, (route) =>
      route.fulfill({
        status: 409,
        contentType: "application/json",
        body: JSON.stringify({
          error: "CONFLICT",
          message: "Content is published: its planned day cannot change.",
          details: { error_code: "invalid_status" },
          trace_id: "trace-calendar-test",
        }),
      }),
    );
    await page.getByRole("button", { name: "Move “Held post”" }).click();
    await page.getByRole("dialog").getByLabel("Planned day").fill(`${thisMonth}-14`);
    await page.getByRole("button", { name: "Save the day" }).click();
    const alert = page.getByRole("alert");
    await alert.getByText("Content is published: its planned day cannot change.").waitFor();
    expect(await alert.textContent()).toContain("409 invalid_status · trace_id trace-calendar-test");
    expect(await day(`${thisMonth}-12`).getByText("Held post").count()).toBe(1);
    expect(await day(`${thisMonth}-14`).getByText("Held post").count()).toBe(0);
    expect(await dayOf(id)).toBe(`${thisMonth}-12`);
    expect(await axeViolations(page)).toEqual([]);
    await visit.context.close();
  });
});
