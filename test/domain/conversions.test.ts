import { describe, expect, it } from "vitest";
import { emailOf } from "../../src/domain/conversions/email.js";
import { markdownToHtml } from "../../src/domain/conversions/html.js";
import { markdownBlocks, markdownToPlain } from "../../src/domain/conversions/markdown-blocks.js";
import { normalizeMarkdown } from "../../src/domain/conversions/normalize.js";
import { MAX_OUTPUT_CHARS } from "../../src/domain/conversions/output-limit.js";
import { POST_LIMIT, socialThread } from "../../src/domain/conversions/thread.js";
import { convertContent } from "../../src/domain/conversions.js";
import { Rng } from "../../src/domain/generation/language.js";
import { splitSentences } from "../../src/domain/text.js";

const thread = (markdown: string) => socialThread(markdownBlocks(markdown));
const NUMBERED = /^(\d+)\/(\d+) /;
const body = (post: string) => post.replace(NUMBERED, "");

/** Checks the numbering "i/n " of every post and the limit, numbering included. */
function expectWellFormed(posts: string[], context: string): void {
  posts.forEach((post, i) => {
    const m = NUMBERED.exec(post);
    expect(m, `${context}: post ${i} numbered`).not.toBeNull();
    expect(Number(m![1]), context).toBe(i + 1);
    expect(Number(m![2]), context).toBe(posts.length);
    expect(post.length, `${context}: post ${i} is ${post.length} long`).toBeLessThanOrEqual(POST_LIMIT);
    expect([...post].length, context).toBeLessThanOrEqual(POST_LIMIT);
    expect(body(post).trim(), `${context}: post ${i} has text`).not.toBe("");
    expect(/[\ud800-\udbff]$/.test(post), `${context}: no surrogate pair cut`).toBe(false);
  });
}

describe("html", () => {
  it("escapes raw HTML: a <script> in the content comes out as text", () => {
    const html = markdownToHtml(
      'Hello <script>alert("x")</script> and <img src=x onerror=alert(1)>\n\n<div>block</div>',
    );
    expect(html).not.toMatch(/<script|<img|<div/i);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain("&lt;div&gt;block&lt;/div&gt;");
  });

  it("renders Markdown, and does not make links of unsafe schemes", () => {
    const html = markdownToHtml(
      "# Title\n\nSome **bold** text.\n\n- one\n- two\n\n[x](javascript:alert(1)) [ok](https://example.com)",
    );
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<li>one</li>");
    expect(html).toContain('<a href="https://example.com">ok</a>');
    expect(html).not.toContain('href="javascript:');
  });
});

describe("markdown", () => {
  it("normalises the text as Markdown without changing its meaning", () => {
    const input =
      "Title\r\n=====\r\n\r\n\r\n\r\nIntro line   \r\nafter a hard break\r\n##Not a heading\r\n## Section ##\r\n* one\r\n* two\r\n\r\n***\r\n\r\n```\r\n* code stays\r\n\r\n\r\n```\r\nLast\u0007 line.   ";
    const out = normalizeMarkdown(input);
    expect(out).toBe(
      [
        "# Title",
        "",
        "Intro line\\",
        "after a hard break",
        "##Not a heading",
        "",
        "## Section",
        "",
        "- one",
        "- two",
        "",
        "---",
        "",
        "```",
        "* code stays",
        "",
        "",
        "```",
        "",
        "Last line.",
      ].join("\n"),
    );
    // Same document: the HTML of both is equal.
    expect(markdownToHtml(out)).toBe(markdownToHtml(input.split(String.fromCharCode(7)).join("")));
  });

  it("leaves bullets alone when the text mixes them (each kind is its own list)", () => {
    const input = "* one\n+ two\n- three";
    expect(normalizeMarkdown(input)).toBe(input);
    expect(markdownToHtml(normalizeMarkdown(input))).toBe(markdownToHtml(input));
  });
});

describe("plain_text", () => {
  it("strips Markdown: marks go, links keep their address, raw HTML keeps only its visible text", () => {
    const text = markdownToPlain(
      "# Launch\n\nWe **ship** on _Monday_ with [the guide](https://example.com/guide) and https://example.com.\n\n- one\n- two\n  1. nested\n\n<script>alert(1)</script>\n\nA <b>bold</b> <script>hidden()</script>end.\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    );
    expect(text).toBe(
      [
        "Launch",
        "",
        "We ship on Monday with the guide (https://example.com/guide) and https://example.com.",
        "",
        "- one",
        "- two",
        "  1. nested",
        "",
        "A bold end.",
        "",
        "a | b",
        "1 | 2",
      ].join("\n"),
    );
  });
});

/** Text of `n` sentences of random words from a seeded generator, with extremes mixed in. */
function randomDocument(rng: Rng, index: number): string {
  const words = ["team", "plan", "a", "review", "🚀", "naïve", "東京", "well-known", "e.g.", "3.5", "x"];
  const paragraphs: string[] = [];
  const paragraphCount = 1 + Math.floor(rng.next() * 8);
  for (let p = 0; p < paragraphCount; p++) {
    const sentences: string[] = [];
    const sentenceCount = 1 + Math.floor(rng.next() * 12);
    for (let s = 0; s < sentenceCount; s++) {
      const r = rng.next();
      // Mostly short sentences; some longer than a post; some with a "word" longer than a post.
      const length = r < 0.7 ? 3 + Math.floor(rng.next() * 20) : r < 0.9 ? 50 + Math.floor(rng.next() * 120) : 5;
      const ws = Array.from({ length }, () => rng.pick(words));
      if (r >= 0.9) ws.splice(2, 0, "w".repeat(250 + Math.floor(rng.next() * 400)));
      if (r >= 0.95) ws.splice(1, 0, "😀".repeat(200));
      sentences.push(`${ws.join(" ").replace(/^./, (c) => c.toUpperCase())}${rng.pick([".", "!", "?"])}`);
    }
    paragraphs.push(sentences.join(index % 3 === 0 ? "\n" : " "));
  }
  if (index % 4 === 0) paragraphs.splice(1, 0, "## A heading");
  return paragraphs.join(index % 5 === 0 ? "\r\n\r\n" : "\n\n");
}

describe("social_thread", () => {
  it("keeps every post, numbering included, within 280 characters over many varied inputs", () => {
    const rng = new Rng(20260115);
    for (let i = 0; i < 300; i++) {
      const doc = randomDocument(rng, i);
      const posts = thread(doc);
      expectWellFormed(posts, `input ${i}`);
      // Nothing lost or reordered: the posts hold the text's characters in order.
      const squash = (s: string) => s.replace(/\s+/g, "");
      expect(squash(posts.map(body).join("")), `input ${i}`).toBe(squash(markdownToPlain(doc)));
    }
  });

  it("splits at sentence boundaries: each sentence lies whole in one post", () => {
    const sentences = Array.from(
      { length: 40 },
      (_, i) => `Sentence number ${i + 1} says something useful about weekly planning for remote teams.`,
    );
    const posts = thread(sentences.join(" "));
    expectWellFormed(posts, "sentences");
    expect(posts.length).toBeGreaterThan(5);
    for (const s of sentences) expect(posts.filter((p) => p.includes(s))).toHaveLength(1);
    for (const p of posts) {
      expect(body(p)).toMatch(/^Sentence number \d+/);
      expect(p).toMatch(/teams\.$/);
    }
    // Packed: no post would have had room for the next post's first sentence.
    for (let i = 0; i + 1 < posts.length; i++) {
      const next = splitSentences(body(posts[i + 1]))[0];
      expect(posts[i].length + 1 + next.length).toBeGreaterThan(POST_LIMIT - 6);
    }
  });

  it("splits a sentence longer than a post at word boundaries", () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`);
    const posts = thread(`${words.join(" ")}.`);
    expectWellFormed(posts, "long sentence");
    expect(posts.length).toBeGreaterThan(3);
    const seen = posts.flatMap((p) => body(p).split(" "));
    expect(seen.join(" ")).toBe(`${words.join(" ")}.`);
  });

  it("widens the numbering for ten or more posts and keeps the limit", () => {
    const text = Array.from({ length: 600 }, (_, i) => `Point ${i} is short but it matters a lot to us.`).join(" ");
    const posts = thread(text);
    expect(posts.length).toBeGreaterThanOrEqual(100);
    expectWellFormed(posts, "hundreds");
    expect(posts.at(-1)).toMatch(new RegExp(`^${posts.length}/${posts.length} `));
  });

  it("starts a post at each heading and renumbers a text that already is a thread", () => {
    const posts = thread("# Title\n\nOne. Two.\n\n## Next\n\nThree.");
    expect(posts).toEqual(["1/2 Title\nOne. Two.", "2/2 Next\nThree."]);
    expect(thread("1/2 First post here.\n\n2/2 Second post here.")).toEqual([
      "1/1 First post here.\n\nSecond post here.",
    ]);
    expect(thread("")).toEqual([]);
  });
});

describe("email", () => {
  it("takes the subject from a Subject: line, else the title, else the first heading, else the first sentence", () => {
    expect(emailOf("Ignored title", "Subject: Q3 **update**\n\nHi team,\n\nNumbers are in.").subject).toBe("Q3 update");
    expect(emailOf("The title", "# A heading\n\nHello.").subject).toBe("The title");
    expect(emailOf("", "# A heading\n\nHello.").subject).toBe("A heading");
    expect(emailOf("", "Hello there. More text.").subject).toBe("Hello there.");
    expect(emailOf("", `${"word ".repeat(60)}end.`).subject.length).toBeLessThanOrEqual(100);
  });

  it("keeps the greeting and the sign-off on their own lines; the title heading leaves the body", () => {
    const text =
      "# Launch plan\n\nHi Sam,\n\nThe launch moves to **Monday**.\nPlease confirm.\n\nBest regards,\nJane Doe";
    const { subject, body: mail } = emailOf("Launch plan", text);
    expect(subject).toBe("Launch plan");
    expect(mail).toBe("Hi Sam,\n\nThe launch moves to Monday.\nPlease confirm.\n\nBest regards,\nJane Doe");
    const converted = convertContent({ title: "Launch plan", text, target_format: "email" });
    expect(converted).toEqual({ output: mail, posts: null, subject: "Launch plan" });
  });
});

/** A conversion that is expected to succeed. */
function converted(input: Parameters<typeof convertContent>[0]) {
  const c = convertContent(input);
  if ("tooLargeChars" in c) throw new Error(`refused: ${c.tooLargeChars} characters`);
  return c;
}

describe("convertContent", () => {
  it("gives posts only for social_thread and a subject only for email", () => {
    const text = "# T\n\nHello world. Bye.";
    for (const f of ["html", "markdown", "plain_text"] as const) {
      const c = converted({ title: "T", text, target_format: f });
      expect(c.posts).toBeNull();
      expect(c.subject).toBeNull();
    }
    const t = converted({ title: "T", text, target_format: "social_thread" });
    expect(t.posts).toEqual(["1/1 T\nHello world. Bye."]);
    expect(t.output).toBe(t.posts!.join("\n\n"));
  });
});

// Found by review: inputs a content may hold (500,000 characters) that took minutes or hundreds of megabytes.
describe("conversions of hostile texts", () => {
  // One definition with a long address, used 14,000 times: 56 KB of text.
  const definition = `[a]: https://example.com/${"y".repeat(14_000)}`;
  const repeated = `${definition}\n\n${"[a] ".repeat(14_000)}`;

  it("writes a repeated address again, until repeats add up to the text's own length", () => {
    const plain = markdownToPlain(
      "See [the guide](https://example.com/guide), then [the guide](https://example.com/guide) again.\n\nAnd [the guide](https://example.com/guide).",
    );
    expect(plain).toBe(
      "See the guide (https://example.com/guide), then the guide (https://example.com/guide) again.\n\nAnd the guide (https://example.com/guide).",
    );
    // Was 196 MB (14,000 times the address): now the address, then repeats as long as the text in all.
    const out = markdownToPlain(repeated);
    expect(out.length).toBeLessThan(2 * repeated.length);
    expect(out.split("https://").length - 1).toBe(1 + Math.floor(repeated.length / 14_020));
    // Short addresses used many times: written again while the repeats fit in the text's length.
    const short = `[a]: https://e.co/${"z".repeat(30)}\n\n${"[a] ".repeat(10_000)}`;
    const written = markdownToPlain(short).split("https://").length - 1;
    expect(written).toBe(1 + Math.floor(short.length / "https://e.co/".concat("z".repeat(30)).length));
  });

  it("refuses HTML whose links' addresses or titles pass MAX_OUTPUT_CHARS, before building it", () => {
    const c = convertContent({ title: "T", text: repeated, target_format: "html" });
    expect(c).toEqual({ tooLargeChars: expect.any(Number) });
    expect((c as { tooLargeChars: number }).tooLargeChars).toBeGreaterThan(MAX_OUTPUT_CHARS);
    // A title repeated by every use of its definition (this one would pass V8's longest string).
    const titled = `[a]: https://e.com/x "${"T".repeat(250_000)}"\n\n${"[a] ".repeat(62_000)}`;
    expect(convertContent({ title: "T", text: titled, target_format: "html" })).toEqual({
      tooLargeChars: expect.any(Number),
    });
    // The same links a few times convert as before.
    const few = converted({ title: "T", text: `${definition}\n\n[a] [a]`, target_format: "html" });
    expect(few.output.split('href="https://example.com/y').length).toBe(3);
  });

  it("keeps the text of 200,000 links, each with its own address", () => {
    const text = Array.from({ length: 200_000 }, (_, i) => `[a](b${i})`).join(" ");
    const plain = markdownToPlain(text);
    expect(plain).toBe(Array.from({ length: 200_000 }, (_, i) => `a (b${i})`).join(" "));
  });

  it("keeps a code block of 500,000 blank lines to its content", () => {
    const out = markdownToPlain(`\`\`\`\n${"\n".repeat(500_000)}x\n\`\`\``);
    expect(out).toBe("x");
  });
});
