import { describe, expect, it } from "vitest";
import { SECTION_ROLES, TEMPLATE_FORMATS, TEMPLATE_TONES, type TemplateSection } from "../../src/db/templates.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectCode } from "../helpers/http.js";

/** Every page of a listing, following next_cursor. */
async function collect(h: Harness, auth: string, query: string) {
  const ids: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = query ? "&" : "";
    const res = await h.send("GET", `/api/v1/templates?${query}${sep}${cursor ? `cursor=${cursor}` : ""}`, { auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.data.map((t: { id: number }) => t.id));
    expect(res.body.next_cursor === null).toBe(!res.body.has_more);
    cursor = res.body.next_cursor;
    pages += 1;
  } while (cursor && pages < 50);
  return { ids, pages };
}

/** An own template of account B, made directly in the store. */
function templateOfB(h: Harness) {
  return h.services.store.templates.create({
    accountId: h.b.id,
    name: "B's pitch",
    category: "sales",
    description: "Account B's own sales pitch.",
    format: "email",
    sections: [{ key: "hook", heading: null, role: "hook", words: 50, instruction: "Open with the pain." }],
    targetWords: 50,
    tone: "persuasive",
    createdAt: new Date(h.clock.now()).toISOString(),
  });
}

describe("built-in templates", () => {
  const REQUIRED: [string, string][] = [
    ["Blog post", "article"],
    ["LinkedIn post", "post"],
    ["Newsletter", "email"],
    ["Product description", "product"],
    ["Press release", "release"],
    ["Email", "email"],
    ["Social thread", "thread"],
    ["Landing page", "page"],
  ];

  it("are seeded by the migration: at least eight, the required ones among them", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/templates?limit=100", { auth: h.key() });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-api-stability")).toBeNull(); // templates are stable (spec §9.4)
    expect(res.body.data.length).toBeGreaterThanOrEqual(8);
    expect(res.body.has_more).toBe(false);
    const byName = new Map(res.body.data.map((t: { name: string }) => [t.name, t]));
    for (const [name, format] of REQUIRED) expect(byName.get(name), name).toMatchObject({ format, built_in: true });
  });

  it("are structured: valid roles, word budgets adding up to about target_words, a tone and a format", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/templates?limit=100", { auth: h.key() });
    for (const t of res.body.data) {
      const label = t.name;
      expect(Object.keys(t).sort(), label).toEqual(
        [
          "built_in",
          "category",
          "created_at",
          "description",
          "format",
          "id",
          "name",
          "sections",
          "target_words",
          "tone",
        ].sort(),
      );
      expect(t.description.length, label).toBeGreaterThan(30);
      expect(t.category, label).toMatch(/^[a-z-]+$/);
      expect(TEMPLATE_FORMATS, label).toContain(t.format);
      expect(TEMPLATE_TONES, label).toContain(t.tone);
      expect(Number.isInteger(t.target_words) && t.target_words > 0, label).toBe(true);
      expect(t.sections.length, label).toBeGreaterThanOrEqual(4);
      const sections = t.sections as TemplateSection[];
      expect(new Set(sections.map((s) => s.key)).size, `${label}: unique keys`).toBe(sections.length);
      for (const s of sections) {
        expect(Object.keys(s).sort(), label).toEqual(["heading", "instruction", "key", "role", "words"]);
        expect(SECTION_ROLES, `${label} ${s.key}`).toContain(s.role);
        expect(s.heading === null || (typeof s.heading === "string" && s.heading.length > 0), s.key).toBe(true);
        expect(Number.isInteger(s.words) && s.words > 0, `${label} ${s.key}`).toBe(true);
        expect(s.instruction.length, `${label} ${s.key}`).toBeGreaterThan(20);
      }
      const sum = sections.reduce((a, s) => a + s.words, 0);
      expect(
        Math.abs(sum - t.target_words) / t.target_words,
        `${label}: ${sum} vs ${t.target_words}`,
      ).toBeLessThanOrEqual(0.15);
      // Every piece ends with an action or a sign-off, and every piece but a thread has a headline or subject.
      expect(["cta", "signoff"], label).toContain(sections.at(-1)!.role);
      if (t.format !== "thread" && t.format !== "post")
        expect(
          sections.some((s) => s.role === "headline" || s.role === "subject"),
          label,
        ).toBe(true);
      if (t.format === "email") expect(sections[0].role, label).toBe("subject");
    }
  });

  it("read one by id, with its sections, for a read-only or bound key as for a session", async () => {
    const h = makeHarness();
    const list = await h.send("GET", "/api/v1/templates?limit=100", { auth: h.key() });
    const blog = list.body.data.find((t: { name: string }) => t.name === "Blog post");
    const token = await h.login("member@a.test");
    for (const auth of [h.key({ scopes: ["read"] }), h.key({ workspaceId: h.a.ws2 }), token]) {
      const res = await h.send("GET", `/api/v1/templates/${blog.id}`, { auth });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(blog);
    }
  });

  it("are not workspace-aware: a bound key naming another workspace still browses them", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    expect((await h.send("GET", `/api/v1/templates?workspace_id=${h.a.ws2}`, { auth: key })).status).toBe(200);
    expect((await h.send("GET", `/api/v1/templates/1?workspace_id=${h.a.ws2}`, { auth: key })).status).toBe(200);
  });
});

describe("template listing: filters and paging", () => {
  const cases: { name: string; query: string; expected: string[] | "all" }[] = [
    { name: "category", query: "category=social", expected: ["LinkedIn post", "Social thread"] },
    { name: "category, another case", query: "category=SOCIAL", expected: ["LinkedIn post", "Social thread"] },
    { name: "category with no template", query: "category=poetry", expected: [] },
    { name: "q in the name", query: "q=press", expected: ["Press release"] },
    { name: "q in another case", query: "q=LINKEDIN", expected: ["LinkedIn post"] },
    { name: "q in the description", query: "q=inverted-pyramid", expected: ["Press release"] },
    { name: "q in the category", query: "q=ecommerce", expected: ["Product description"] },
    { name: "q with spaces", query: "q=%20landing%20page%20", expected: ["Landing page"] },
    { name: "q and category together", query: "q=thread&category=social", expected: ["Social thread"] },
    { name: "q matching nothing", query: "q=zzzz", expected: [] },
    { name: "no q is no filter", query: "", expected: "all" },
    { name: "a q with SQL in it is only text", query: "q=%27%20OR%201%3D1%20--", expected: [] },
  ];

  it.each(cases)("$name", async ({ query, expected }) => {
    const h = makeHarness();
    const key = h.key();
    const all = await h.send("GET", "/api/v1/templates?limit=100", { auth: key });
    const res = await h.send("GET", `/api/v1/templates?limit=100&${query}`, { auth: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const names = res.body.data.map((t: { name: string }) => t.name);
    expect(names).toEqual(expected === "all" ? all.body.data.map((t: { name: string }) => t.name) : expected);
  });

  it("pages with limit and cursor through every template once, in id order", async () => {
    const h = makeHarness();
    const key = h.key();
    const all = await h.send("GET", "/api/v1/templates?limit=100", { auth: key });
    const allIds = all.body.data.map((t: { id: number }) => t.id);
    const first = await h.send("GET", "/api/v1/templates?limit=3", { auth: key });
    expect(first.body.data).toHaveLength(3);
    expect(first.body.has_more).toBe(true);
    expect(first.body.next_cursor).toBeTypeOf("string");
    const { ids, pages } = await collect(h, key, "limit=3");
    expect(ids).toEqual(allIds);
    expect(pages).toBe(Math.ceil(allIds.length / 3));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    // Paging keeps the filter.
    expect((await collect(h, key, "limit=1&category=email")).ids).toHaveLength(2);
  });

  it.each([
    ["limit=0", "query.limit"],
    ["limit=101", "query.limit"],
    ["limit=ten", "query.limit"],
    ["cursor=not-a-cursor", "query.cursor"],
    [`q=${"x".repeat(101)}`, "query.q"],
    // An empty filter is refused as on every other list (?status=, ?workspace_id=): it had listed every template.
    ["q=", "query.q"],
    ["q=%20%20", "query.q"],
    ["category=", "query.category"],
    ["category=%09", "query.category"],
  ])("refuses %s with 400 validation_failed", async (query, path) => {
    const h = makeHarness();
    const res = await h.send("GET", `/api/v1/templates?${query}`, { auth: h.key() });
    expectCode(res, 400, "validation_failed");
    expect(res.body.details.issues[0].path).toBe(path);
  });
});

describe("account templates and isolation", () => {
  it("an account sees the built-in templates and its own, never another account's", async () => {
    const h = makeHarness();
    const own = templateOfB(h);
    const a = await collect(h, h.key(), "limit=100");
    expect(a.ids).not.toContain(own.id);
    const b = await h.send("GET", "/api/v1/templates?limit=100", { auth: h.key({ account: h.b.id }) });
    const mine = b.body.data.find((t: { id: number }) => t.id === own.id);
    expect(mine).toMatchObject({ name: "B's pitch", built_in: false, category: "sales" });
    expect(b.body.data.length).toBe(a.ids.length + 1);
    expect((await h.send("GET", `/api/v1/templates?q=pitch`, { auth: h.key() })).body.data).toEqual([]);
  });

  it("another account's template by id is 404 template_not_found, for keys and sessions", async () => {
    const h = makeHarness();
    const own = templateOfB(h);
    for (const auth of [h.key(), h.key({ workspaceId: h.a.ws1 }), await h.login("admin@a.test")]) {
      const res = await h.send("GET", `/api/v1/templates/${own.id}`, { auth });
      expectCode(res, 404, "template_not_found");
      expect(JSON.stringify(res.body)).not.toContain("pitch");
    }
    const b = await h.send("GET", `/api/v1/templates/${own.id}`, { auth: h.key({ account: h.b.id }) });
    expect(b.status).toBe(200);
  });

  it.each([
    ["999999", 404, "template_not_found"],
    ["0", 400, "validation_failed"],
    ["abc", 400, "validation_failed"],
    ["1.5", 400, "validation_failed"],
  ])("GET /templates/%s answers %i %s", async (id, status, code) => {
    const h = makeHarness();
    expectCode(await h.send("GET", `/api/v1/templates/${id}`, { auth: h.key() }), status, code);
  });

  it("needs credentials", async () => {
    const h = makeHarness();
    expect((await h.send("GET", "/api/v1/templates")).status).toBe(401);
    expect((await h.send("GET", "/api/v1/templates/1")).status).toBe(401);
  });
});
