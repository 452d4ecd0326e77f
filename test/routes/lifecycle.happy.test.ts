import { describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody, generateAndFinalize } from "../helpers/http.js";

const REFERENCE = [
  "Remote teams that hold a weekly written planning review ship 23% more features per quarter, according to a survey of 400 engineering organisations.",
  "The review takes under an hour when the agenda is shared in advance. Teams without a shared agenda report twice as many missed deadlines.",
  "Asynchronous standups replaced daily video calls at 61% of the companies surveyed. Managers said the written format made blockers visible earlier, and engineers valued the two extra hours of focus time each week.",
  "The most common failure is a review that nobody reads: the surveyed teams that succeeded kept each written update under 200 words and linked to the details.",
].join("\n\n");

async function setup(h: Harness) {
  const key = h.key({ workspaceId: h.a.ws1 });
  const ref = await h.send("POST", "/api/v1/reference-materials", {
    auth: key,
    body: { title: "Remote Planning Survey 2026", content: REFERENCE, format: "text" },
  });
  expect(ref.status).toBe(201);
  const memory = await h.send("POST", "/api/v1/memories", {
    auth: key,
    body: {
      kind: "context",
      title: "Company",
      content: "Acme builds planning software for distributed engineering teams.",
    },
  });
  expect(memory.status).toBe(201);
  return { key, refId: ref.body.id as number, memoryId: memory.body.id as number };
}

const direction = "Write a blog post about weekly written planning reviews for remote engineering teams";

describe("the content lifecycle over HTTP", () => {
  it("walks reference → generate → edit → finalize → learning → voice profile → schedule → publish", async () => {
    const h = makeHarness();
    const { key, refId, memoryId } = await setup(h);

    // Generate: a real piece following the template and drawing on the reference (every generation of the walk sends
    // these inputs; only the seed varies).
    const generate = (seed: number) =>
      h.send("POST", "/api/v1/generate", {
        auth: key,
        body: {
          template_id: 1,
          user_direction: direction,
          memory_ids: [memoryId],
          reference_material_ids: [refId],
          seed,
        },
      });
    const seed = 0;
    const gen = await generate(seed);
    expect(gen.status).toBe(201);
    expect(gen.body).toMatchObject({ status: "generated", model: "builtin", version_count: 1, workspace_id: h.a.ws1 });
    // The reference's words, which the edit below changes.
    expect(gen.body.content).toMatch(/\bagenda\b/);
    expect(gen.body.content).toMatch(/^# /);
    expect(gen.body.content).toMatch(/23% more features/);
    expect(gen.body.content).not.toMatch(/\{\w+\}/);
    expect(gen.body.sources.length).toBeGreaterThan(0);
    expect(gen.body.sources[0].reference_material_id).toBe(refId);
    expect(gen.body.word_count).toBeGreaterThan(100);
    // The reference holds far fewer words than the blog post's 1,000: the answer says so.
    expect(gen.body.warnings).toEqual([expect.stringMatching(/^The references hold \d+ words; the text is \d+ words/)]);

    // Same inputs and seed → the same text.
    const again = await generate(seed);
    expect(again.body.content).toBe(gen.body.content);

    // The writer edits: the reference's "agenda" becomes "outline" wherever the piece says it.
    const contentId = gen.body.content_id;
    const edited = (gen.body.content as string).replace(/\bagenda\b/g, "outline");
    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: contentId, finalized_content: edited, edit_seconds: 240 },
    });
    expect(fin.status).toBe(200);
    expect(Object.keys(fin.body).sort()).toEqual(
      ["content_id", "finalized_content", "learning_job_id", "learning_triggered", "status", "updated_at"].sort(),
    );
    expect(fin.body).toMatchObject({
      content_id: contentId,
      finalized_content: edited,
      status: "finalized",
      learning_triggered: true,
    });
    expect(typeof fin.body.learning_job_id).toBe("string");
    expect(Number.isNaN(Date.parse(fin.body.updated_at))).toBe(false);

    // Learning runs on the pool; its result is readable and the voice profile changed.
    await h.services.learning.idle();
    const job = await h.send("GET", `/api/v1/learning-jobs/${fin.body.learning_job_id}`, { auth: key });
    expect(job.status).toBe(200);
    expect(job.body.status).toBe("succeeded");
    expect(job.body.result.substitutions).toContainEqual(expect.objectContaining({ from: "agenda", to: "outline" }));
    const profiles = await h.send("GET", "/api/v1/voice-profiles", { auth: key });
    expect(profiles.body.data).toHaveLength(1);
    expect(profiles.body.data[0]).toMatchObject({ workspace_id: h.a.ws1, sample_count: 1 });
    const one = await h.send("GET", `/api/v1/voice-profiles/${profiles.body.data[0].id}`, { auth: key });
    expect(one.body.traits.substitutions).toContainEqual(expect.objectContaining({ from: "agenda", to: "outline" }));

    // The next generation in the workspace follows the profile.
    const next = await generate(seed);
    expect(next.body.content).not.toMatch(/\bagenda\b/i);
    expect(next.body.content).toMatch(/\boutline\b/);

    // Plan: the day as sent, status unchanged.
    const planned = await h.send("PATCH", `/api/v1/contents/${contentId}/schedule`, {
      auth: key,
      body: { scheduled_publish_at: "2026-03-01T23:30:00-05:00" },
    });
    expect(planned.status).toBe(200);
    expect(planned.body).toMatchObject({
      status: "finalized",
      scheduled_publish_at: "2026-03-01T23:30:00-05:00",
      scheduled_publish_day: "2026-03-01",
    });

    // Finalized content keeps its text but can still be retitled.
    const finalTitle = await h.send("PATCH", `/api/v1/contents/${contentId}`, { auth: key, body: { title: "Final" } });
    expect(finalTitle.body).toMatchObject({ title: "Final", status: "finalized" });

    // Publish: the only way to published.
    const pub = await h.send("POST", `/api/v1/contents/${contentId}/publication`, { auth: key });
    expect(pub.status).toBe(200);
    expect(pub.body.status).toBe("published");
    expect(pub.body.published_at).toBeTruthy();
    // Published content is frozen whole: a new title is 409 as a new text is, and the record stays as published;
    // its own title sent back (a record read and written back) changes nothing, updated_at included.
    h.clock.advance(60_000);
    const retitled = await h.send("PATCH", `/api/v1/contents/${contentId}`, { auth: key, body: { title: "Renamed" } });
    expect(expectErrorBody(retitled, 409, "invalid_status")).toMatchObject({
      current_status: "published",
      required_statuses: ["draft", "generated", "finalized"],
    });
    const sameTitle = await h.send("PATCH", `/api/v1/contents/${contentId}`, {
      auth: key,
      body: { title: pub.body.title },
    });
    expect(sameTitle.status).toBe(200);
    expect(sameTitle.body).toEqual(pub.body);
    expect((await h.send("GET", `/api/v1/contents/${contentId}`, { auth: key })).body).toEqual(pub.body);
    const versions = await h.send("GET", `/api/v1/contents/${contentId}/versions`, { auth: key });
    expect(versions.body.data.map((v: { kind: string }) => v.kind)).toEqual(["generated", "finalized"]);
  });
});

describe("generate", () => {
  it("names missing template, memory and reference ids in a 404", async () => {
    const h = makeHarness();
    const { key, refId } = await setup(h);
    const cases: [Record<string, unknown>, string, number[]][] = [
      [{ template_id: 999 }, "template_not_found", [999]],
      [{ template_id: 1, memory_ids: [998, 997] }, "memory_not_found", [998, 997]],
      [{ template_id: 1, reference_material_ids: [refId, 996] }, "reference_material_not_found", [996]],
    ];
    for (const [body, code, ids] of cases) {
      const res = await h.send("POST", "/api/v1/generate", { auth: key, body: { user_direction: "x", ...body } });
      expect(res.status, code).toBe(404);
      expect(res.body.details).toMatchObject({ error_code: code, missing_ids: ids });
    }
  });

  it("names every unusable id in one 404: missing ones and those of another workspace, in the order sent", async () => {
    const h = makeHarness();
    const { refId, memoryId } = await setup(h);
    const unbound = h.key();
    for (const [body, code, ids] of [
      [{ memory_ids: [memoryId, 998] }, "memory_not_found", [memoryId, 998]],
      [{ reference_material_ids: [995, refId, 995] }, "reference_material_not_found", [995, refId]],
    ] as const) {
      const res = await h.send("POST", `/api/v1/generate?workspace_id=${h.a.ws2}`, {
        auth: unbound,
        body: { template_id: 1, user_direction: "x", ...body },
      });
      expect(res.status, code).toBe(404);
      expect(res.body.details).toMatchObject({ error_code: code, missing_ids: ids });
      expect(res.body.message).toContain(`in workspace ${h.a.ws2}`);
    }
    // A key bound to another workspace is refused first, whatever else is missing.
    const bound = await h.send("POST", "/api/v1/generate", {
      auth: h.key({ workspaceId: h.a.ws2 }),
      body: { template_id: 1, user_direction: "x", memory_ids: [998, memoryId] },
    });
    expect(bound.status).toBe(403);
    expect(bound.body.details.error_code).toBe("workspace_mismatch");
  });

  it("treats records of another account as missing and records of another workspace per the binding", async () => {
    const h = makeHarness();
    const { refId } = await setup(h);
    const other = h.key({ account: h.b.id });
    const res = await h.send("POST", "/api/v1/generate", {
      auth: other,
      body: { template_id: 1, user_direction: "x", reference_material_ids: [refId] },
    });
    expect(res.status).toBe(404);
    const boundElsewhere = h.key({ workspaceId: h.a.ws2 });
    const mismatch = await h.send("POST", "/api/v1/generate", {
      auth: boundElsewhere,
      body: { template_id: 1, user_direction: "x", reference_material_ids: [refId] },
    });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.details.error_code).toBe("workspace_mismatch");
  });

  it("adds versions to drafts and generated records, and refuses finalized ones with 409", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Draft" } });
    expect(draft.status).toBe(201);
    expect(draft.body.status).toBe("draft");
    const id = draft.body.content_id;
    const g1 = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 2, user_direction: "A LinkedIn post about hiring", content_id: id },
    });
    expect(g1.status).toBe(200);
    expect(g1.body).toMatchObject({ content_id: id, status: "generated", version_count: 1 });
    const g2 = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 2, user_direction: "A LinkedIn post about hiring", content_id: id, seed: 3 },
    });
    expect(g2.body.version_count).toBe(2);
    await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: id, finalized_content: "Final.", edit_seconds: 5 },
    });
    const g3 = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 2, user_direction: "x", content_id: id },
    });
    expect(g3.status).toBe(409);
    expect(g3.body.details).toMatchObject({ error_code: "invalid_status", current_status: "finalized" });
  });

  it("writes every built-in template's format", async () => {
    const h = makeHarness();
    const { key, refId } = await setup(h);
    const templates = await h.send("GET", "/api/v1/templates?limit=100", { auth: key });
    for (const t of templates.body.data) {
      const res = await h.send("POST", "/api/v1/generate", {
        auth: key,
        body: { template_id: t.id, user_direction: direction, reference_material_ids: [refId] },
      });
      expect(res.status, t.name).toBe(201);
      expect(res.body.word_count, t.name).toBeGreaterThan(40);
      expect(res.body.content, t.name).not.toMatch(/\{\w+\}|undefined|null/);
      if (t.format === "thread")
        for (const post of (res.body.content as string).split("\n\n")) expect(post.length).toBeLessThanOrEqual(280);
      if (t.format === "email") expect(res.body.content).toMatch(/^Subject: /);
    }
  });
});

describe("finalize", () => {
  it("only finalizes generated content and leaves the text untouched otherwise", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "T", content: "Draft text" } });
    const res = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: draft.body.content_id, finalized_content: "New", edit_seconds: 1 },
    });
    expect(res.status).toBe(409);
    expect(res.body.details).toMatchObject({
      error_code: "invalid_status",
      current_status: "draft",
      required_status: "generated",
      required_statuses: ["generated"],
    });
    const get = await h.send("GET", `/api/v1/contents/${draft.body.content_id}`, { auth: key });
    expect(get.body).toMatchObject({ content: "Draft text", status: "draft", finalized_content: null });
    const missing = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: 12345, finalized_content: "x", edit_seconds: 1 },
    });
    expect(missing.status).toBe(404);
    const invalid = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: "1", finalized_content: 5, edit_seconds: -1 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
      ["body.content_id", "body.edit_seconds", "body.finalized_content"].sort(),
    );
  });

  it("finalizes without edit_seconds: the editing time is unknown, and learning leaves it out", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 6, user_direction: "An email about the offsite" },
    });
    const text = gen.body.content as string;
    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: gen.body.content_id, finalized_content: `${text}\n\nSigned off.` },
    });
    expect(fin.status, JSON.stringify(fin.body)).toBe(200);
    expect(fin.body).toMatchObject({ status: "finalized", learning_triggered: true });
    await h.services.learning.idle();
    const job = await h.send("GET", `/api/v1/learning-jobs/${fin.body.learning_job_id}`, { auth: key });
    expect(job.body.status).toBe("succeeded");
    expect(job.body.result).toMatchObject({ edit_seconds: null, words_changed_per_minute: null });
    expect(job.body.result.words_added).toBeGreaterThan(0);
    const profiles = await h.send("GET", "/api/v1/voice-profiles", { auth: key });
    expect(profiles.body.data[0]).toMatchObject({ sample_count: 1 });
    const profile = await h.send("GET", `/api/v1/voice-profiles/${profiles.body.data[0].id}`, { auth: key });
    expect(profile.body.traits.average_edit_seconds).toBeNull();
    const versions = await h.send("GET", `/api/v1/contents/${gen.body.content_id}/versions`, { auth: key });
    expect(versions.body.data.at(-1)).toMatchObject({ kind: "finalized", details: { edit_seconds: null } });
  });

  it("does not trigger learning when it is switched off or the month's quota is spent", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const gen = async () =>
      (
        await h.send("POST", "/api/v1/generate", {
          auth: key,
          body: { template_id: 6, user_direction: "An email about the offsite" },
        })
      ).body.content_id;
    h.services.store.misc.putLearningPreferences(h.a.id, false, true, new Date().toISOString());
    const off = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: await gen(), finalized_content: "x y z", edit_seconds: 3 },
    });
    expect(off.body).toMatchObject({ learning_triggered: false, learning_job_id: null, status: "finalized" });

    h.services.store.misc.putLearningPreferences(h.a.id, true, true, new Date().toISOString());
    const quota = await h.send("GET", "/api/v1/analysis/quota", { auth: key });
    expect(quota.body).toMatchObject({ limit: 500, used: 0, remaining: 500 });
    // Spend the quota: 500 analyses this month.
    const month = new Date(h.clock.now()).toISOString().slice(0, 7);
    for (let i = 0; i < 500; i++) h.services.store.learning.useQuota(h.a.id, month);
    expect((await h.send("GET", "/api/v1/analysis/quota", { auth: key })).body.remaining).toBe(0);
    const spent = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: await gen(), finalized_content: "x", edit_seconds: 3 },
    });
    expect(spent.body).toMatchObject({ learning_triggered: false, learning_job_id: null });
  });
});

describe("contents and planning", () => {
  it("sets, changes and clears the planned day without changing status, and refuses bad dates", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Plan me" } });
    const path = `/api/v1/contents/${draft.body.content_id}/schedule`;
    const set = await h.send("PATCH", path, { auth: key, body: { scheduled_publish_at: "2026-01-10" } });
    expect(set.body).toMatchObject({ status: "draft", scheduled_publish_day: "2026-01-10", is_overdue: true });
    const change = await h.send("PATCH", path, { auth: key, body: { scheduled_publish_at: "2026-02-01T08:00:00Z" } });
    expect(change.body).toMatchObject({ scheduled_publish_day: "2026-02-01", is_overdue: false });
    const clear = await h.send("PATCH", path, { auth: key, body: { scheduled_publish_at: null } });
    expect(clear.body).toMatchObject({
      scheduled_publish_at: null,
      scheduled_publish_day: null,
      is_overdue: false,
      status: "draft",
    });
    for (const bad of ["2026-02-30", "2026-02-01T25:00:00Z", "next tuesday", "2026-02-01T10:00:00+", 20260201])
      expect(
        (await h.send("PATCH", path, { auth: key, body: { scheduled_publish_at: bad } })).status,
        String(bad),
      ).toBe(400);
    expect((await h.send("PATCH", path, { auth: key, body: {} })).status).toBe(400);
  });

  it("publishes only finalized content and lists with status, planned-day and overdue filters", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const mk = async (title: string, day?: string) => {
      const c = await h.send("POST", "/api/v1/contents", { auth: key, body: { title } });
      if (day)
        await h.send("PATCH", `/api/v1/contents/${c.body.content_id}/schedule`, {
          auth: key,
          body: { scheduled_publish_at: day },
        });
      return c.body.content_id as number;
    };
    const past = await mk("past", "2026-01-01");
    await mk("future", "2026-06-01");
    await mk("unplanned");
    const pub = await h.send("POST", `/api/v1/contents/${past}/publication`, { auth: key });
    expect(pub.status).toBe(409);
    expect(pub.body.details).toMatchObject({ current_status: "draft", required_status: "finalized" });

    const list = async (q: string) =>
      (await h.send("GET", `/api/v1/contents?${q}`, { auth: key })).body.data.map((c: { title: string }) => c.title);
    expect(await list("overdue=true")).toEqual(["past"]);
    expect(await list("overdue=false")).toEqual(["future", "unplanned"]);
    // The filter is part of the query, so pages stay full and has_more stays right.
    const first = await h.send("GET", "/api/v1/contents?overdue=false&limit=1", { auth: key });
    expect(first.body).toMatchObject({ has_more: true, data: [{ title: "future" }] });
    expect(await list("planned_from=2026-05-01&planned_to=2026-12-31")).toEqual(["future"]);
    expect(await list("status=draft")).toEqual(["past", "future", "unplanned"]);
    expect(await list("status=published")).toEqual([]);
    const paged = await h.send("GET", "/api/v1/contents?limit=2", { auth: key });
    expect(paged.body).toMatchObject({ has_more: true });
    const rest = await h.send("GET", `/api/v1/contents?limit=2&cursor=${paged.body.next_cursor}`, { auth: key });
    expect(rest.body.data.map((c: { title: string }) => c.title)).toEqual(["unplanned"]);
    expect((await h.send("GET", "/api/v1/contents?planned_from=2026-02-30", { auth: key })).status).toBe(400);
    // One day is a range; a range that ends before it starts is refused, as /usage refuses it.
    expect(await list("planned_from=2026-03-01&planned_to=2026-03-01")).toEqual([]);
    const reversed = await h.send("GET", "/api/v1/contents?planned_from=2026-12-31&planned_to=2026-05-01", {
      auth: key,
    });
    expect(expectErrorBody(reversed, 400, "validation_failed").issues).toEqual([
      { path: "query.planned_from", message: "planned_from must be a day on or before planned_to (2026-05-01)" },
    ]);
  });

  it("updates and deletes, and keeps other accounts out", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const c = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Old" } });
    const id = c.body.content_id;
    const upd = await h.send("PATCH", `/api/v1/contents/${id}`, { auth: key, body: { title: "New", content: "Body" } });
    expect(upd.body).toMatchObject({ title: "New", content: "Body", status: "draft" });
    // An empty PATCH changes nothing, updated_at included.
    h.clock.advance(60_000);
    const same = await h.send("PATCH", `/api/v1/contents/${id}`, { auth: key, body: {} });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(upd.body);
    const other = h.key({ account: h.b.id });
    expect((await h.send("GET", `/api/v1/contents/${id}`, { auth: other })).status).toBe(404);
    expect((await h.send("DELETE", `/api/v1/contents/${id}`, { auth: other })).status).toBe(404);
    expect((await h.send("DELETE", `/api/v1/contents/${id}`, { auth: key })).status).toBe(200);
    expect((await h.send("GET", `/api/v1/contents/${id}`, { auth: key })).status).toBe(404);
  });
});

describe("a record read and written back", () => {
  /** A harness and a content generated and finalized with an edit, by its key. */
  async function editedAndFinalized() {
    const h = makeHarness();
    const { key } = await setup(h);
    const { finalized } = await generateAndFinalize(
      h,
      key,
      { template_id: 1, user_direction: direction },
      { text: (g) => `${g}\n\nEdited.`, editSeconds: 30 },
    );
    return { h, key, id: finalized.body.content_id as number };
  }

  it("takes the record's own text as no edit of it: finalized content is retitled, published content unchanged", async () => {
    const { h, key, id } = await editedAndFinalized();
    const path = `/api/v1/contents/${id}`;
    const read = (await h.send("GET", path, { auth: key })).body;
    expect(read.status).toBe("finalized");
    h.clock.advance(60_000);
    // The whole record sent back unchanged changes nothing, updated_at included.
    const same = await h.send("PATCH", path, { auth: key, body: read });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toEqual(read);
    // With a new title: a retitling, as {"title"} alone is; the text stays.
    const renamed = await h.send("PATCH", path, { auth: key, body: { ...read, title: "Renamed" } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ title: "Renamed", content: read.content, status: "finalized" });
    // A new text is still refused.
    const edited = await h.send("PATCH", path, { auth: key, body: { ...read, content: `${read.content} More.` } });
    expect(expectErrorBody(edited, 409, "invalid_status")).toMatchObject({ current_status: "finalized" });

    const pub = await h.send("POST", `/api/v1/contents/${id}/publication`, { auth: key });
    expect(pub.status).toBe(200);
    h.clock.advance(60_000);
    const back = await h.send("PATCH", path, { auth: key, body: pub.body });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toEqual(pub.body);
    const retitled = await h.send("PATCH", path, { auth: key, body: { ...pub.body, title: "Other" } });
    expect(expectErrorBody(retitled, 409, "invalid_status")).toMatchObject({ current_status: "published" });
  });

  it("takes the planned date a record has as no change, also once published", async () => {
    const { h, key, id } = await editedAndFinalized();
    const path = `/api/v1/contents/${id}/schedule`;
    const planned = await h.send("PATCH", path, { auth: key, body: { scheduled_publish_at: "2026-03-01T09:00:00Z" } });
    expect(planned.status).toBe(200);
    const pub = await h.send("POST", `/api/v1/contents/${id}/publication`, { auth: key });
    expect(pub.status).toBe(200);
    h.clock.advance(60_000);
    const back = await h.send("PATCH", path, { auth: key, body: pub.body });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toEqual(pub.body);
    const moved = await h.send("PATCH", path, { auth: key, body: { scheduled_publish_at: "2026-03-02" } });
    expect(expectErrorBody(moved, 409, "invalid_status")).toMatchObject({ current_status: "published" });
    const cleared = await h.send("PATCH", path, { auth: key, body: { scheduled_publish_at: null } });
    expect(expectErrorBody(cleared, 409, "invalid_status")).toMatchObject({ current_status: "published" });
  });
});

describe("analysis quota", () => {
  it("counts an analysis when it is queued, and deleting the content gives nothing back", async () => {
    const h = makeHarness();
    const { key } = await setup(h);
    const { generated: gen, finalized: fin } = await generateAndFinalize(
      h,
      key,
      { template_id: 6, user_direction: "An email" },
      { text: "Hello there.", editSeconds: 3 },
    );
    expect(fin.body.learning_triggered).toBe(true);
    expect((await h.send("GET", "/api/v1/analysis/quota", { auth: key })).body.used).toBe(1);
    await h.services.learning.idle();
    expect((await h.send("DELETE", `/api/v1/contents/${gen.body.content_id}`, { auth: key })).status).toBe(200);
    expect((await h.send("GET", "/api/v1/analysis/quota", { auth: key })).body.used).toBe(1);
  });
});
