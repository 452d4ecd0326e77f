/**
 * An account's own templates (issue 31, point 8): POST, PUT and DELETE /templates, beta, open to keys with write and
 * to members; a built-in template never changes, another account's is not found, and generation follows one's
 * sections.
 */
import { describe, expect, it } from "vitest";
import { OWN_TEMPLATE_LIMIT } from "../../src/domain/templates.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";

const BASE = "/api/v1/templates";

const CASE_STUDY = {
  name: "Case study",
  category: "sales",
  sections: [
    { role: "headline", words: 12 },
    { role: "context", words: 120, heading: "The problem", instruction: "The customer's situation before." },
    { role: "evidence", words: 200, heading: "What changed" },
    { role: "point", words: 80 },
    { role: "point", words: 80 },
  ],
};

async function create(h: Harness, auth: string, body: Record<string, unknown> = CASE_STUDY) {
  const res = await h.send("POST", BASE, { auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

describe("creating a template of the account's own", () => {
  it("answers 201 with its Location, beta, the defaults filled in, and lists it with the built-in ones", async () => {
    const h = makeHarness();
    const key = h.key();
    const res = await create(h, key);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    expect(res.headers.get("location")).toBe(`${BASE}/${res.body.id}`);
    expect(res.body).toMatchObject({
      name: "Case study",
      category: "sales",
      description: "",
      format: "article",
      tone: "professional",
      target_words: 492,
      built_in: false,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(res.body.sections.map((s: { key: string }) => s.key)).toEqual([
      "headline",
      "context",
      "evidence",
      "point",
      "point_2",
    ]);
    expect(res.body.sections[1]).toEqual({
      key: "context",
      heading: "The problem",
      role: "context",
      words: 120,
      instruction: "The customer's situation before.",
    });
    expect(res.body.sections[0]).toMatchObject({ heading: null, instruction: "" });
    const listed = await h.send("GET", `${BASE}?limit=100`, { auth: key });
    expect(listed.body.data.at(-1)).toEqual(res.body);
    expect((await h.send("GET", `${BASE}/${res.body.id}`, { auth: key })).body).toEqual(res.body);
    const other = await h.send("GET", `${BASE}/${res.body.id}`, { auth: h.key({ account: h.b.id }) });
    expectErrorBody(other, 404, "template_not_found");
  });

  it("is open to a member's session and replays an Idempotency-Key's answer without a second template", async () => {
    const h = makeHarness();
    const member = await sessionOf(h, "member@a.test");
    const headers = { "idempotency-key": "make-case-study" };
    const first = await h.send("POST", BASE, { auth: member, body: CASE_STUDY, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await h.send("POST", BASE, { auth: member, body: CASE_STUDY, headers });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(h.services.store.templates.countOwn(h.a.id)).toBe(1);
  });

  it("refuses a name one of the account's own has (case-insensitive) with 409; another account may use it", async () => {
    const h = makeHarness();
    const made = await create(h, h.key());
    const taken = await h.send("POST", BASE, { auth: h.key(), body: { ...CASE_STUDY, name: "  CASE study " } });
    const details = expectErrorBody(taken, 409, "template_name_taken");
    expect(details).toMatchObject({ template_id: made.body.id, name: "Case study" });
    await create(h, h.key({ account: h.b.id }));
    // A built-in template's name is no conflict: built_in tells them apart.
    await create(h, h.key(), { ...CASE_STUDY, name: "Blog post" });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["no name", { name: undefined }, "body.name"],
    ["a blank name", { name: "  " }, "body.name"],
    ["no sections", { sections: [] }, "body.sections"],
    ["21 sections", { sections: Array.from({ length: 21 }, () => ({ role: "point", words: 10 })) }, "body.sections"],
    ["a section of 0 words", { sections: [{ role: "point", words: 0 }] }, "body.sections.0.words"],
    ["an unknown role", { sections: [{ role: "poem", words: 10 }] }, "body.sections.0.role"],
    [
      "two sections of one key",
      {
        sections: [
          { key: "a", role: "point", words: 10 },
          { key: "a", role: "cta", words: 10 },
        ],
      },
      "body.sections.1.key",
    ],
    ["an unknown tone", { tone: "grumpy" }, "body.tone"],
    ["target_words of 0", { target_words: 0 }, "body.target_words"],
  ];
  it.each(invalid)("refuses %s with 400 validation_failed", async (_, change, path) => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, { auth: h.key(), body: { ...CASE_STUDY, ...change } });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect((details.issues as { path: string }[]).map((i) => i.path)).toContain(path);
    expect(h.services.store.templates.countOwn(h.a.id)).toBe(0);
  });

  it(`refuses the ${OWN_TEMPLATE_LIMIT + 1}th with 409 template_limit_reached`, async () => {
    const h = makeHarness();
    const now = new Date(h.clock.now()).toISOString();
    for (let i = 0; i < OWN_TEMPLATE_LIMIT; i++)
      h.services.store.templates.create({
        accountId: h.a.id,
        name: `t${i}`,
        category: "custom",
        description: "",
        format: "article",
        sections: [{ key: "point", heading: null, role: "point", words: 10, instruction: "" }],
        targetWords: 10,
        tone: "professional",
        createdAt: now,
      });
    const res = await h.send("POST", BASE, { auth: h.key(), body: CASE_STUDY });
    expect(expectErrorBody(res, 409, "template_limit_reached")).toMatchObject({ limit: OWN_TEMPLATE_LIMIT });
    await create(h, h.key({ account: h.b.id }));
  });
});

describe("replacing and deleting one", () => {
  it("PUT replaces every field, keeping its id and created_at; its own name is no conflict", async () => {
    const h = makeHarness();
    const made = (await create(h, h.key())).body;
    h.clock.advance(60_000);
    const put = await h.send("PUT", `${BASE}/${made.id}`, {
      auth: h.key(),
      body: { name: "case study", sections: [{ role: "hook", words: 50 }], tone: "persuasive" },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({
      id: made.id,
      name: "case study",
      category: "custom",
      tone: "persuasive",
      target_words: 50,
      created_at: made.created_at,
      sections: [{ key: "hook", role: "hook", words: 50 }],
    });
    const other = (await create(h, h.key(), { ...CASE_STUDY, name: "Other" })).body;
    const clash = await h.send("PUT", `${BASE}/${other.id}`, {
      auth: h.key(),
      body: { ...CASE_STUDY, name: "CASE STUDY" },
    });
    expectErrorBody(clash, 409, "template_name_taken");
  });

  it("DELETE deletes it; contents generated from it keep their text and lose their template_id", async () => {
    const h = makeHarness();
    const key = h.key();
    const made = (await create(h, key)).body;
    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: made.id, user_direction: "How a roofer cut installation time in half" },
    });
    expect(gen.status, JSON.stringify(gen.body)).toBe(201);
    const del = await h.send("DELETE", `${BASE}/${made.id}`, { auth: key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: made.id, deleted: true });
    expectErrorBody(await h.send("GET", `${BASE}/${made.id}`, { auth: key }), 404, "template_not_found");
    expectErrorBody(await h.send("DELETE", `${BASE}/${made.id}`, { auth: key }), 404, "template_not_found");
    const content = await h.send("GET", `/api/v1/contents/${gen.body.content_id}`, { auth: key });
    expect(content.body).toMatchObject({ template_id: null, content: gen.body.content });
  });

  it("never changes a built-in template (409 template_built_in), nor finds another account's (404)", async () => {
    const h = makeHarness();
    const before = (await h.send("GET", `${BASE}/1`, { auth: h.key() })).body;
    for (const auth of [h.key(), await h.login("admin@a.test")]) {
      const put = await h.send("PUT", `${BASE}/1`, { auth, body: CASE_STUDY });
      expect(expectErrorBody(put, 409, "template_built_in")).toMatchObject({ template_id: 1 });
      expectErrorBody(await h.send("DELETE", `${BASE}/1`, { auth }), 409, "template_built_in");
    }
    expect((await h.send("GET", `${BASE}/1`, { auth: h.key() })).body).toEqual(before);
    const theirs = (await create(h, h.key({ account: h.b.id }))).body;
    expectErrorBody(
      await h.send("PUT", `${BASE}/${theirs.id}`, { auth: h.key(), body: CASE_STUDY }),
      404,
      "template_not_found",
    );
    expectErrorBody(await h.send("DELETE", `${BASE}/${theirs.id}`, { auth: h.key() }), 404, "template_not_found");
    expect(h.services.store.templates.byId(theirs.id)?.name).toBe("Case study");
  });
});

describe("generating from one", () => {
  it("writes the piece from its sections: their headings, in order", async () => {
    const h = makeHarness();
    const key = h.key();
    const made = (
      await create(h, key, {
        name: "Short case study",
        sections: [
          { role: "context", words: 40, heading: "The problem" },
          { role: "evidence", words: 40, heading: "What changed" },
        ],
      })
    ).body;
    // Enough facts for both sections: the builtin engine writes from the material and adds no filler.
    const facts = Array.from(
      { length: 16 },
      (_, i) =>
        `Crew ${i + 1} of Northside Roofing mounted panels on flat roof ${i + 1} in ${i + 2} days with ballast.`,
    ).join(" ");
    const ref = await h.send("POST", "/api/v1/reference-materials", { auth: key, body: { content: facts } });
    expect(ref.status, JSON.stringify(ref.body)).toBe(201);
    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: {
        template_id: made.id,
        user_direction: "How a roofer cut installation time in half",
        reference_material_ids: [ref.body.id],
        seed: 3,
      },
    });
    expect(gen.status, JSON.stringify(gen.body)).toBe(201);
    const text = gen.body.content as string;
    expect(text).toMatch(/^## The problem$/m);
    expect(text).toMatch(/^## What changed$/m);
    expect(text.indexOf("## The problem")).toBeLessThan(text.indexOf("## What changed"));
    const content = await h.send("GET", `/api/v1/contents/${gen.body.content_id}`, { auth: key });
    expect(content.body.template_id).toBe(made.id);
  });
});
