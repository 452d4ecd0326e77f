import { describe, expect, it } from "vitest";
import { MAX_OUTPUT_CHARS } from "../../src/domain/conversions/output-limit.js";
import { POST_LIMIT } from "../../src/domain/conversions/thread.js";
import { convert, draft } from "../helpers/conversions.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, generateAndFinalize } from "../helpers/http.js";

const FIELDS = ["content_id", "created_at", "id", "output", "posts", "subject", "target_format", "workspace_id"];

describe("POST /api/v1/conversions", () => {
  it("converts to html with raw HTML escaped, stores the result and reads it back", async () => {
    const h = makeHarness();
    const key = h.key();
    const id = await draft(h, key, {
      title: "Launch",
      content: "# Launch\n\nWe ship **Monday**. <script>alert('pwned')</script>\n\n<iframe src=x></iframe>",
    });
    const res = await convert(h, key, { content_id: id, target_format: "html" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({
      content_id: id,
      workspace_id: h.a.ws1,
      target_format: "html",
      posts: null,
      subject: null,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(res.body.output).toContain("<h1>Launch</h1>");
    expect(res.body.output).toContain("<strong>Monday</strong>");
    expect(res.body.output).not.toMatch(/<script|<iframe/i);
    expect(res.body.output).toContain("&lt;script&gt;");

    const got = await h.send("GET", `/api/v1/conversions/${res.body.id}`, { auth: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("refuses with 422 output_too_large an html conversion whose links repeat a long address past the output limit", async () => {
    const h = makeHarness();
    const key = h.key();
    // 56 KB: one reference definition with a 14,000-character address, used 14,000 times (160 MB of HTML).
    const content = `[a]: https://example.com/${"y".repeat(14_000)}\n\n${"[a] ".repeat(14_000)}`;
    const id = await draft(h, key, { title: "Links", content });
    const res = await convert(h, key, { content_id: id, target_format: "html" });
    // The request was small: a 413 would tell the client to send less, which cannot help.
    const details = expectErrorBody(res, 422, "output_too_large");
    expect(details).toMatchObject({ limit_chars: MAX_OUTPUT_CHARS, target_format: "html" });
    // Nothing stored; the plain text stops repeating the address and is made.
    expect((await h.send("GET", "/api/v1/conversions", { auth: key })).body.data).toEqual([]);
    const plain = await convert(h, key, { content_id: id, target_format: "plain_text" });
    expect(plain.status).toBe(201);
    expect(plain.body.output.length).toBeLessThan(2 * content.length);
  });

  it("makes every format from the same text", async () => {
    const h = makeHarness();
    const key = h.key();
    const sentence = "Remote teams that write a weekly plan ship more often and argue less about priorities.";
    const text = `# Weekly plans\n\nHi team,\n\n${Array.from({ length: 12 }, () => sentence).join(" ")}\n\n- Keep it short\n- Link the details\n\nBest regards,\nJane`;
    const id = await draft(h, key, { title: "Weekly plans", content: text });

    const md = await convert(h, key, { content_id: id, target_format: "markdown" });
    expect(md.body.output).toContain("# Weekly plans\n\nHi team,");

    const plain = await convert(h, key, { content_id: id, target_format: "plain_text" });
    expect(plain.body.output).toMatch(/^Weekly plans\n\nHi team,\n\n/);
    expect(plain.body.output).not.toContain("#");

    const thread = await convert(h, key, { content_id: id, target_format: "social_thread" });
    expect(thread.status).toBe(201);
    const posts = thread.body.posts as string[];
    expect(posts.length).toBeGreaterThan(3);
    posts.forEach((p, i) => {
      expect(p.startsWith(`${i + 1}/${posts.length} `)).toBe(true);
      expect(p.length).toBeLessThanOrEqual(POST_LIMIT);
    });
    expect(thread.body.output).toBe(posts.join("\n\n"));
    expect(thread.body.subject).toBeNull();
    // Whole sentences: each occurrence of the sentence sits in one post.
    expect(posts.join("\n").split(sentence).length - 1).toBe(12);

    const email = await convert(h, key, { content_id: id, target_format: "email" });
    expect(email.body.subject).toBe("Weekly plans");
    expect(email.body.posts).toBeNull();
    expect(email.body.output).toMatch(/^Hi team,\n\n/);
    expect(email.body.output).toMatch(/\n\nBest regards,\nJane$/);
  });

  it("converts the finalized text once content is finalized", async () => {
    const h = makeHarness();
    const key = h.key();
    const { generated: gen } = await generateAndFinalize(
      h,
      key,
      { template_id: 1, user_direction: "Write about planning reviews for remote teams" },
      { text: "# Final words\n\nThis is the text the editor approved.", editSeconds: 30 },
    );
    const res = await convert(h, key, { content_id: gen.body.content_id, target_format: "plain_text" });
    expect(res.body.output).toBe("Final words\n\nThis is the text the editor approved.");
  });

  it("validates its input", async () => {
    const h = makeHarness();
    const key = h.key();
    const id = await draft(h, key, { content: "Hello." });
    for (const body of [
      { content_id: id, target_format: "pdf" },
      { content_id: id },
      { target_format: "html" },
      { content_id: "1", target_format: "html" },
      { content_id: 0, target_format: "html" },
    ])
      expectErrorBody(await convert(h, key, body), 400, "validation_failed");
    expectErrorBody(await convert(h, key, { content_id: 999_999, target_format: "html" }), 404, "content_not_found");
    expectErrorBody(await h.send("GET", "/api/v1/conversions/999999", { auth: key }), 404, "conversion_not_found");
  });
});

describe("GET /api/v1/conversions", () => {
  it("lists a workspace's conversions, oldest first, filtered by content and paged by cursor", async () => {
    const h = makeHarness();
    const key = h.key();
    const one = await draft(h, key, { content: "One." });
    const two = await draft(h, key, { content: "Two." });
    const made: number[] = [];
    for (const [content_id, target_format] of [
      [one, "html"],
      [two, "html"],
      [one, "markdown"],
      [one, "email"],
    ] as const)
      made.push((await convert(h, key, { content_id, target_format })).body.id);
    // Another workspace's conversion stays out of this workspace's list.
    const elsewhere = await draft(h, key, { content: "Elsewhere.", workspace_id: h.a.ws2 });
    await convert(h, key, { content_id: elsewhere, target_format: "html" });

    const all = await h.send("GET", "/api/v1/conversions", { auth: key });
    expect(all.status).toBe(200);
    expect(all.body.data.map((c: { id: number }) => c.id)).toEqual(made);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });

    const first = await h.send("GET", `/api/v1/conversions?content_id=${one}&limit=2`, { auth: key });
    expect(first.body.data.map((c: { id: number }) => c.id)).toEqual([made[0], made[2]]);
    expect(first.body.has_more).toBe(true);
    const rest = await h.send("GET", `/api/v1/conversions?content_id=${one}&limit=2&cursor=${first.body.next_cursor}`, {
      auth: key,
    });
    expect(rest.body.data.map((c: { id: number }) => c.id)).toEqual([made[3]]);
    expect(rest.body.has_more).toBe(false);

    const ws2 = await h.send("GET", `/api/v1/conversions?workspace_id=${h.a.ws2}`, { auth: key });
    expect(ws2.body.data).toHaveLength(1);
    expectErrorBody(await h.send("GET", "/api/v1/conversions?cursor=nope", { auth: key }), 400, "validation_failed");
  });
});
