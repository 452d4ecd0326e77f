import { describe, expect, it } from "vitest";
import { hashKey } from "../../src/domain/apikeys.js";
import { countWords, PASSAGE_MAX_WORDS } from "../../src/domain/text.js";
import { type Answer, type Harness, makeHarness } from "../helpers/harness.js";
import { expectCode, expectErrorBody, sessionOf } from "../helpers/http.js";

const BASE = "/api/v1/reference-materials";
const MiB = 1024 * 1024;

interface Upload {
  auth?: string;
  file?: { name: string; type?: string; bytes: Uint8Array | string };
  fields?: Record<string, string>;
  query?: string;
}

/** Sends a multipart/form-data POST (the client sets the boundary) through the app. */
async function upload(h: Harness, opts: Upload): Promise<Answer> {
  const form = new FormData();
  for (const [k, v] of Object.entries(opts.fields ?? {})) form.append(k, v);
  if (opts.file) {
    const bytes = typeof opts.file.bytes === "string" ? new TextEncoder().encode(opts.file.bytes) : opts.file.bytes;
    form.append("file", new Blob([new Uint8Array(bytes)], { type: opts.file.type ?? "" }), opts.file.name);
  }
  const headers: Record<string, string> = opts.auth ? { authorization: `Bearer ${opts.auth}` } : {};
  const res = await h.app.handle(
    new Request(`http://test.local${BASE}${opts.query ?? ""}`, { method: "POST", headers, body: form }),
    {
      remoteAddress: "127.0.0.1",
    },
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function createRef(h: Harness, auth: string, body: Record<string, unknown> = {}) {
  const res = await h.send("POST", BASE, {
    auth,
    body: { content: "A short note about testing.", format: "text", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; workspace_id: string; title: string; content: string; word_count: number };
}

/** Three paragraphs of distinct, plausible prose (about 50, 200 and 30 words). */
const PROSE = [
  "Remote teams lose hours each week to meetings that could have been a written update. A short, structured note gives everyone the same facts at once, lets people reply when they are focused, and leaves a record that new colleagues can read later. Teams that write first tend to decide faster.",
  Array.from(
    { length: 12 },
    (_, i) =>
      `In study ${i + 1}, Dr. Rivera's team measured response times across 3.5 thousand threads, e.g. product questions and incident reports, and found that replies arrived ${i + 2} hours sooner.`,
  ).join(" "),
  "The lesson is simple: write the update before you book the meeting. If the thread cannot settle it, then meet, with the note as the agenda.",
].join("\n\n");

describe("creating reference materials from JSON", () => {
  const cases: { name: string; format: string; content: string; text: string; title: string }[] = [
    {
      name: "plain text, kept as it is (line ends and blank runs normalized)",
      format: "text",
      content: "Quarterly notes\r\n\r\n\r\nRevenue grew 12%.  \r\nCosts fell.",
      text: "Quarterly notes\n\nRevenue grew 12%.\nCosts fell.",
      title: "Quarterly notes",
    },
    {
      name: "Markdown, rendered to plain text",
      format: "markdown",
      content:
        "# Launch plan\n\nWe ship **Tuesday** with [docs](https://docs.test).\n\n- beta users first\n- then *everyone*\n\n<script>track()</script>\n\n> Measure twice &amp; cut once.",
      text: "Launch plan\n\nWe ship Tuesday with docs.\n\n- beta users first\n- then everyone\n\nMeasure twice & cut once.",
      title: "Launch plan",
    },
    {
      name: "HTML, without tags, scripts or styles, entities decoded",
      format: "html",
      content:
        "<html><head><title>Ignored</title><style>.x{color:red}</style></head><body><h2>Caf&eacute; menu</h2><script>alert('x')</script><p>Espresso &amp; cake &mdash; &euro;4.</p><p>Open&nbsp;daily.</p></body></html>",
      text: "Café menu\n\nEspresso & cake — €4.\n\nOpen daily.",
      title: "Café menu",
    },
  ];

  it.each(cases)("$name", async ({ format, content, text, title }) => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, { auth: h.key(), body: { content, format } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspace_id: h.a.ws1,
      title,
      content: text,
      source_type: format,
      word_count: countWords(text),
      passage_count: 1,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    const got = await h.send("GET", `${BASE}/${res.body.id}`, { auth: h.key() });
    expect(got.body).toEqual(res.body);
  });

  it("splits the text into passages of whole paragraphs and sentences that keep every word", async () => {
    const h = makeHarness();
    const ref = await createRef(h, h.key(), { content: PROSE, title: "Write first" });
    expect(ref.title).toBe("Write first");
    const passages = h.services.store.references.passagesOf([ref.id]);
    expect(passages.length).toBeGreaterThanOrEqual(2);
    expect(passages.map((p) => p.position)).toEqual(passages.map((_, i) => i));
    expect(passages.reduce((a, p) => a + p.word_count, 0)).toBe(ref.word_count);
    for (const p of passages) {
      expect(p.word_count).toBe(countWords(p.text));
      expect(p.word_count).toBeLessThanOrEqual(PASSAGE_MAX_WORDS);
      expect(p.text).toMatch(/^[A-Z]/);
      expect(p.text).toMatch(/\.$/);
    }
    // The first paragraph stands alone; the long one is cut between sentences, never inside "Dr." or "e.g.".
    expect(passages[0].text).toBe(PROSE.split("\n\n")[0]);
    expect(passages.some((p) => /Dr\.$|e\.g\.$/.test(p.text))).toBe(false);
    expect((await h.send("GET", `${BASE}/${ref.id}`, { auth: h.key() })).body.passage_count).toBe(passages.length);
  });

  it("takes source_type as another name for format, alone or with format alike", async () => {
    const h = makeHarness();
    const key = h.key();
    const content = "# Plan\n\nShip **soon**, \\*not\\* later.";
    for (const body of [
      { content, source_type: "markdown" },
      { content, source_type: "markdown", format: "markdown" },
    ]) {
      const res = await h.send("POST", BASE, { auth: key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // Rendered as Markdown: the heading's # and the emphasis go, the escaped stars stay.
      expect(res.body).toMatchObject({
        title: "Plan",
        content: "Plan\n\nShip soon, *not* later.",
        source_type: "markdown",
      });
    }
  });

  it("titles: given, else the first line (cut at a word boundary when long)", async () => {
    const h = makeHarness();
    const key = h.key();
    expect((await createRef(h, key, { title: "  Mine  " })).title).toBe("Mine");
    expect((await createRef(h, key, { title: "" })).title).toBe("A short note about testing.");
    const long = `${"word ".repeat(40)}end`;
    const t = (await createRef(h, key, { content: `\n\n${long}\nsecond line` })).title;
    expect(t.length).toBeLessThanOrEqual(101);
    expect(t).toMatch(/^word word .*word…$/);
  });

  it("defaults: content without a format is text, with the title from its first line", async () => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, {
      auth: h.key(),
      body: { title: "Notes", content: "# Not a heading\n\n**kept** as written." },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ title: "Notes", source_type: "text" });
    expect(res.body.content).toBe("# Not a heading\n\n**kept** as written.");
  });

  const invalid: { name: string; body: Record<string, unknown>; path: string }[] = [
    { name: "no content and no file", body: { format: "text" }, path: "body" },
    { name: "an unknown format", body: { content: "x", format: "pdf" }, path: "body.format" },
    {
      name: "format and source_type that differ",
      body: { content: "x", format: "text", source_type: "html" },
      path: "body.source_type",
    },
    { name: "source_type file with content", body: { content: "x", source_type: "file" }, path: "body.source_type" },
    { name: "content that is not a string", body: { content: 42, format: "text" }, path: "body.content" },
    { name: "empty content", body: { content: "", format: "text" }, path: "body.content" },
    {
      name: "HTML with no text",
      body: { content: "<script>x()</script><img src=a>", format: "html" },
      path: "body.content",
    },
    {
      name: "a title of 201 characters",
      body: { content: "x", format: "text", title: "t".repeat(201) },
      path: "body.title",
    },
    {
      name: "500,001 characters of text",
      body: { content: `${"abc ".repeat(125_000)}x`, format: "text" },
      path: "body.content",
    },
  ];
  it.each(invalid)("refuses $name with 400 validation_failed", async ({ body, path }) => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, { auth: h.key(), body });
    expectCode(res, 400, "validation_failed");
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect([...h.services.store.references.list({ workspaceId: h.a.ws1, afterId: 0, limit: 10 })]).toEqual([]);
  });

  it("never answers a 5xx, however deeply the HTML nests", async () => {
    const h = makeHarness();
    const deep = (inner: string) => `${"<div>".repeat(80_000)}${inner}${"</div>".repeat(80_000)}`;
    const kept = await h.send("POST", BASE, {
      auth: h.key(),
      body: { content: `<p>Outer</p>${deep("inner")}`, format: "html" },
    });
    expect(kept.status).toBe(201);
    expect(kept.body.content).toBe("Outer");
    const empty = await h.send("POST", BASE, { auth: h.key(), body: { content: deep("inner"), format: "markdown" } });
    expectCode(empty, 400, "validation_failed");
  });

  it("accepts 500,000 characters of text as JSON, and refuses JSON over 1 MiB (DESIGN §3)", async () => {
    const h = makeHarness();
    const exact = `${"abc ".repeat(124_999)}abcd`;
    expect(exact).toHaveLength(500_000);
    const res = await h.send("POST", BASE, { auth: h.key(), body: { content: exact, format: "text" } });
    expect(res.status).toBe(201);
    expect(res.body.word_count).toBe(125_000);
    // 2 MiB of HTML: too large as JSON; such documents are uploaded as files (up to 5 MiB).
    const span = `<span class="${"c".repeat(60)}">word</span> `;
    const html = `<p>${span.repeat(Math.ceil((2 * MiB) / span.length))}</p>`;
    const big = await h.send("POST", BASE, { auth: h.key(), body: { content: html, format: "html", title: "Big" } });
    expectCode(big, 413, "payload_too_large");
    expect(big.body.details.limit_bytes).toBe(MiB);
  });
});

describe("creating reference materials from an uploaded file", () => {
  const files: {
    name: string;
    file: { name: string; type?: string; bytes: string | Uint8Array };
    title: string;
    text: string;
  }[] = [
    {
      name: ".md by extension",
      file: { name: "plan.md", type: "application/octet-stream", bytes: "# Plan\n\n1. Draft\n2. **Review**" },
      title: "plan.md",
      text: "Plan\n\n1. Draft\n2. Review",
    },
    {
      name: ".markdown by extension",
      file: { name: "notes.MARKDOWN", bytes: "Some `code` here." },
      title: "notes.MARKDOWN",
      text: "Some code here.",
    },
    {
      name: ".html by extension",
      file: {
        name: "page.html",
        type: "text/plain",
        bytes: "<h1>Page</h1><script>evil()</script><p>Body &amp; soul</p>",
      },
      title: "page.html",
      text: "Page\n\nBody & soul",
    },
    {
      name: ".htm by extension",
      file: { name: "old.htm", bytes: "<p>Old&nbsp;page</p>" },
      title: "old.htm",
      text: "Old page",
    },
    {
      name: ".txt by extension, BOM and CRLF removed",
      file: { name: "readme.txt", bytes: "\ufeffLine one\r\nLine two <b>not a tag</b>" },
      title: "readme.txt",
      text: "Line one\nLine two <b>not a tag</b>",
    },
    {
      name: "no extension: the claimed type decides (Markdown)",
      file: { name: "NOTES", type: "text/markdown; charset=utf-8", bytes: "## Heading\n\n*text*" },
      title: "NOTES",
      text: "Heading\n\ntext",
    },
    {
      name: "no extension: the claimed type decides (HTML)",
      file: { name: "export", type: "text/html", bytes: "<div>Exported <i>page</i></div>" },
      title: "export",
      text: "Exported page",
    },
    {
      name: "a path in the file name is dropped from the title",
      file: { name: "C:\\docs\\brief.txt", bytes: "Brief" },
      title: "brief.txt",
      text: "Brief",
    },
  ];

  it.each(files)("$name", async ({ file, title, text }) => {
    const h = makeHarness();
    const res = await upload(h, { auth: h.key(), file });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ title, content: text, source_type: "file", workspace_id: h.a.ws1 });
    expect(res.body.word_count).toBe(countWords(text));
    expect(res.body.passage_count).toBe(1);
  });

  it("takes the title, workspace_id and a format override from form fields", async () => {
    const h = makeHarness();
    const res = await upload(h, {
      auth: h.key(),
      file: { name: "data.txt", bytes: "# Heading\n\nBody" },
      fields: { title: "From the form", workspace_id: h.a.ws2, format: "markdown" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ title: "From the form", workspace_id: h.a.ws2, content: "Heading\n\nBody" });
    // An empty title field means the default.
    const untitled = await upload(h, { auth: h.key(), file: { name: "x.txt", bytes: "Text" }, fields: { title: "" } });
    expect(untitled.body.title).toBe("x.txt");
  });

  it("takes source_type as the format override too, and refuses it differing from format", async () => {
    const h = makeHarness();
    const file = { name: "data.txt", bytes: "# Heading\n\nBody" };
    const res = await upload(h, { auth: h.key(), file, fields: { source_type: "markdown" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ content: "Heading\n\nBody", source_type: "file" });
    const both = await upload(h, { auth: h.key(), file, fields: { source_type: "markdown", format: "html" } });
    expectCode(both, 400, "validation_failed");
    expect(both.body.details.issues.map((i: { path: string }) => i.path)).toContain("body.source_type");
  });

  const PNG = new Uint8Array([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe,
  ]);
  const unsupported: { name: string; file: { name: string; type?: string; bytes: string | Uint8Array } }[] = [
    { name: "a PNG image", file: { name: "photo.png", type: "image/png", bytes: PNG } },
    { name: "binary bytes named .txt", file: { name: "notes.txt", type: "text/plain", bytes: PNG } },
    {
      name: "invalid UTF-8 named .md",
      file: { name: "notes.md", bytes: new Uint8Array([0x48, 0x69, 0xc3, 0x28, 0xa0]) },
    },
    { name: "text with NUL bytes named .html", file: { name: "a.html", bytes: "<p>hi</p>\u0000\u0000" } },
    { name: "a PDF", file: { name: "report.pdf", type: "application/pdf", bytes: "%PDF-1.7 text-looking" } },
    { name: "no extension and no type", file: { name: "blob", bytes: "text" } },
  ];
  it.each(unsupported)("refuses $name with 415 unsupported_media_type", async ({ file }) => {
    const h = makeHarness();
    const res = await upload(h, { auth: h.key(), file });
    expectCode(res, 415, "unsupported_media_type");
    expect(res.body.error).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(res.body.details.accepted_extensions).toEqual([".txt", ".md", ".markdown", ".html", ".htm"]);
    expect([...h.services.store.references.list({ workspaceId: h.a.ws1, afterId: 0, limit: 10 })]).toEqual([]);
  });

  it("refuses a body over 5 MiB with 413 payload_too_large, and takes one just under", async () => {
    const h = makeHarness();
    const over = await upload(h, { auth: h.key(), file: { name: "big.txt", bytes: "a".repeat(5 * MiB + 1) } });
    expectCode(over, 413, "payload_too_large");
    expect(over.body.details.limit_bytes).toBe(5 * MiB);
    // Just under the limit, as HTML whose text is within 500,000 characters.
    const span = `<b class="${"c".repeat(90)}">w</b> `;
    const html = span.repeat(Math.floor((5 * MiB - 4096) / span.length));
    const under = await upload(h, { auth: h.key(), file: { name: "big.html", bytes: html } });
    expect(under.status, JSON.stringify(under.body).slice(0, 300)).toBe(201);
  });

  it("refuses an empty file, a file and content together, and a file field that is text", async () => {
    const h = makeHarness();
    expectCode(await upload(h, { auth: h.key(), file: { name: "empty.txt", bytes: "" } }), 400, "validation_failed");
    expectCode(
      await upload(h, { auth: h.key(), file: { name: "a.txt", bytes: "x" }, fields: { content: "y", format: "text" } }),
      400,
      "validation_failed",
    );
    const res = await upload(h, { auth: h.key(), fields: { file: "not a file" } });
    expectCode(res, 400, "validation_failed");
    expect(res.body.details.issues[0].path).toBe("body.file");
  });
});

describe("listing and reading reference materials", () => {
  it("lists a workspace's materials oldest first, with their content (DESIGN §9) and an excerpt, paged by cursor", async () => {
    const h = makeHarness();
    const key = h.key();
    const made: number[] = [];
    for (let i = 0; i < 3; i++) made.push((await createRef(h, key, { title: `r${i}`, content: PROSE })).id);
    await createRef(h, key, { title: "elsewhere", workspace_id: h.a.ws2 });
    const res = await h.send("GET", `${BASE}?limit=2`, { auth: key });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    expect(res.body.has_more).toBe(true);
    const item = res.body.data[0];
    expect(Object.keys(item).sort()).toEqual(
      [
        "content",
        "created_at",
        "excerpt",
        "id",
        "passage_count",
        "source_type",
        "title",
        "word_count",
        "workspace_id",
      ].sort(),
    );
    // The list item is the record (the same fields as reading it), plus the excerpt.
    const one = await h.send("GET", `${BASE}/${item.id}`, { auth: key });
    expect(item).toEqual({ ...one.body, excerpt: item.excerpt });
    expect(item.content).toBe(one.body.content);
    expect(item.excerpt.length).toBeLessThanOrEqual(241);
    expect(item.excerpt).toMatch(/^Remote teams lose hours.*…$/);
    const rest = await h.send("GET", `${BASE}?limit=2&cursor=${res.body.next_cursor}`, { auth: key });
    expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...res.body.data, ...rest.body.data].map((r: { id: number }) => r.id)).toEqual(made);
    const ws2 = await h.send("GET", `${BASE}?workspace_id=${h.a.ws2}`, { auth: key });
    expect(ws2.body.data.map((r: { title: string; excerpt: string }) => [r.title, r.excerpt])).toEqual([
      ["elsewhere", "A short note about testing."],
    ]);
  });

  it("another account's material is 404 and never listed; a bound key cannot reach another workspace's", async () => {
    const h = makeHarness();
    const theirs = await createRef(h, h.key({ account: h.b.id }), { title: "B plans" });
    const ws2 = await createRef(h, h.key(), { title: "ws2 doc", workspace_id: h.a.ws2 });
    for (const auth of [h.key(), await h.login("admin@a.test")]) {
      const res = await h.send("GET", `${BASE}/${theirs.id}`, { auth });
      expectCode(res, 404, "reference_material_not_found");
      expect(JSON.stringify(res.body)).not.toContain("B plans");
    }
    expect((await h.send("GET", BASE, { auth: h.key() })).body.data).toEqual([]);
    const bound = h.key({ workspaceId: h.a.ws1 });
    const res = await h.send("GET", `${BASE}/${ws2.id}`, { auth: bound });
    expectCode(res, 403, "workspace_mismatch");
    expect(res.body.details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
    expectCode(await h.send("GET", `${BASE}?workspace_id=${h.a.ws2}`, { auth: bound }), 403, "workspace_mismatch");
  });

  it.each([
    { method: "GET", who: "an unbound read key" },
    { method: "DELETE", who: "a session" },
  ])("$method by id with $who naming another workspace_id is 404, and a bound key stays 403", async ({ method }) => {
    const h = makeHarness();
    const ref = await createRef(h, h.key(), { title: "ws2 doc", workspace_id: h.a.ws2 });
    const auth = method === "GET" ? h.key({ scopes: ["read"] }) : await sessionOf(h, "admin@a.test");
    const res = await h.send(method, `${BASE}/${ref.id}?workspace_id=${h.a.ws1}`, { auth });
    expectErrorBody(res, 404, "reference_material_not_found");
    expect(JSON.stringify(res.body)).not.toContain("ws2 doc");
    expect(h.services.store.references.byId(ref.id)).toBeDefined();
    expectErrorBody(
      await h.send(method, `${BASE}/${ref.id}?workspace_id=${h.a.ws2}`, { auth: h.key({ workspaceId: h.a.ws1 }) }),
      403,
      "workspace_mismatch",
    );
    expectErrorBody(
      await h.send(method, `${BASE}/${ref.id}`, { auth: h.key({ workspaceId: h.a.ws1 }) }),
      403,
      "workspace_mismatch",
    );
    // Naming the record's own workspace reaches it.
    expect((await h.send(method, `${BASE}/${ref.id}?workspace_id=${h.a.ws2}`, { auth })).status).toBe(200);
  });

  it("a key bound to ws1 cannot create in ws2, by JSON body, query or form field", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const attempts = [
      await h.send("POST", BASE, { auth: key, body: { content: "x", format: "text", workspace_id: h.a.ws2 } }),
      await h.send("POST", `${BASE}?workspace_id=${h.a.ws2}`, { auth: key, body: { content: "x", format: "text" } }),
      await upload(h, { auth: key, file: { name: "a.txt", bytes: "x" }, fields: { workspace_id: h.a.ws2 } }),
    ];
    for (const res of attempts) {
      expectCode(res, 403, "workspace_mismatch");
      expect(res.body.details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
    }
    expect([...h.services.store.references.list({ workspaceId: h.a.ws2, afterId: 0, limit: 10 })]).toEqual([]);
  });
});

describe("DELETE /reference-materials/{referenceId}: every status of spec §4.4", () => {
  interface Row {
    status: number;
    code?: string;
    name: string;
    /** The material's workspace ("ws1" or "ws2" of A, or B's). */
    owner: "ws1" | "ws2" | "b";
    auth: (h: Harness) => Promise<string | undefined> | string | undefined;
    id?: (h: Harness, real: number) => number;
  }
  const rows: Row[] = [
    { status: 200, name: "success with a write key", owner: "ws1", auth: (h) => h.key() },
    {
      status: 200,
      name: "success with a key bound to the material's workspace",
      owner: "ws2",
      auth: (h) => h.key({ workspaceId: h.a.ws2 }),
    },
    { status: 200, name: "success with a web session", owner: "ws2", auth: (h) => h.login("member@a.test") },
    { status: 401, code: "unauthorized", name: "missing credentials", owner: "ws1", auth: () => undefined },
    {
      status: 401,
      code: "unauthorized",
      name: "an unknown key",
      owner: "ws1",
      auth: () => "svc_live_00000000000000000000000000000000",
    },
    { status: 401, code: "unauthorized", name: "a revoked key", owner: "ws1", auth: (h) => revokedKey(h) },
    {
      status: 403,
      code: "insufficient_scope",
      name: "a read-only key",
      owner: "ws1",
      auth: (h) => h.key({ scopes: ["read"] }),
    },
    {
      status: 403,
      code: "workspace_mismatch",
      name: "a key bound to another workspace",
      owner: "ws2",
      auth: (h) => h.key({ workspaceId: h.a.ws1 }),
    },
    {
      status: 404,
      code: "reference_material_not_found",
      name: "a missing material",
      owner: "ws1",
      auth: (h) => h.key(),
      id: () => 999_999,
    },
    {
      status: 404,
      code: "reference_material_not_found",
      name: "another account's material",
      owner: "b",
      auth: (h) => h.key(),
    },
  ];

  function revokedKey(h: Harness): string {
    const key = h.key();
    const row = h.services.store.apiKeys.byHash(hashKey(key))!;
    h.services.store.apiKeys.revoke(row.id, new Date(h.clock.now()).toISOString());
    return key;
  }

  it.each(rows)("$status: $name", async ({ status, code, owner, auth, id }) => {
    const h = makeHarness();
    const creator = owner === "b" ? h.key({ account: h.b.id }) : h.key();
    const ref = await createRef(h, creator, { content: PROSE, workspace_id: owner === "ws2" ? h.a.ws2 : undefined });
    const target = id ? id(h, ref.id) : ref.id;
    const res = await h.send("DELETE", `${BASE}/${target}`, { auth: await auth(h) });
    const stillThere = h.services.store.references.byId(ref.id) !== undefined;
    if (status === 200) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ id: ref.id, deleted: true });
      expect(stillThere).toBe(false);
      expect(h.services.store.references.passagesOf([ref.id])).toEqual([]);
      return;
    }
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(status);
    expect(res.body.error).toBe({ 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND" }[status]);
    if (code) expect(res.body.details.error_code).toBe(code);
    expect(res.body.detail).toEqual(res.body.details);
    if (status === 401) expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    if (code === "insufficient_scope")
      expect(res.body.details).toMatchObject({
        required_scope: "write",
        current_scopes: ["read"],
        upgrade_action: expect.any(String),
      });
    if (code === "workspace_mismatch")
      expect(res.body.details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
    expect(stillThere).toBe(true);
  });

  it("403 workspace_mismatch also for a bound key naming another workspace_id", async () => {
    const h = makeHarness();
    const ref = await createRef(h, h.key());
    const res = await h.send("DELETE", `${BASE}/${ref.id}?workspace_id=${h.a.ws2}`, {
      auth: h.key({ workspaceId: h.a.ws1 }),
    });
    expectCode(res, 403, "workspace_mismatch");
    expect(h.services.store.references.byId(ref.id)).toBeDefined();
  });

  it("a second delete of the same material is 404", async () => {
    const h = makeHarness();
    const ref = await createRef(h, h.key());
    expect((await h.send("DELETE", `${BASE}/${ref.id}`, { auth: h.key() })).status).toBe(200);
    expectCode(await h.send("DELETE", `${BASE}/${ref.id}`, { auth: h.key() }), 404, "reference_material_not_found");
  });
});

describe("references.byIds and passagesOf (for the generator)", () => {
  it("byIds returns the account's materials in the order asked; passagesOf groups passages by material in that order", async () => {
    const h = makeHarness();
    const key = h.key();
    const a1 = await createRef(h, key, { content: PROSE, title: "long" });
    const a2 = await createRef(h, key, { title: "short", workspace_id: h.a.ws2 });
    const theirs = await createRef(h, h.key({ account: h.b.id }), { title: "B" });
    const rows = h.services.store.references.byIds(h.a.id, [a2.id, theirs.id, 424242, a1.id, a2.id]);
    expect(rows.map((r) => r.title)).toEqual(["short", "long"]);
    // Without the text: the generator reads passages, not whole materials.
    expect(rows[1]).toEqual({ id: a1.id, account_id: h.a.id, workspace_id: h.a.ws1, title: "long" });
    const passages = h.services.store.references.passagesOf([a2.id, a1.id]);
    expect(passages[0]).toMatchObject({ reference_id: a2.id, position: 0, text: "A short note about testing." });
    expect(passages.slice(1).every((p) => p.reference_id === a1.id)).toBe(true);
    expect(passages.slice(1).map((p) => p.position)).toEqual(passages.slice(1).map((_, i) => i));
    expect(h.services.store.references.passagesOf([])).toEqual([]);
  });
});
