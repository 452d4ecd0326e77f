import { describe, expect, it } from "vitest";
import {
  countWords,
  HTML_MAX_DEPTH,
  htmlToText,
  markdownToText,
  normalizeText,
  PASSAGE_MAX_WORDS,
  PASSAGE_MIN_WORDS,
  splitPassages,
  splitSentences,
  toPlainText,
} from "../../src/domain/text.js";
import { EXCERPT_CHARS, excerptOf } from "../../src/domain/views/references.js";
import { sliceWhole } from "../../src/runtime/chars.js";

/** A paragraph of `words` words in sentences of `per` words each. */
function paragraph(words: number, tag = "w", per = 12): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const word = `${tag}${i}`;
    out.push(i % per === 0 ? word.toUpperCase() : word);
    if (i % per === per - 1 || i === words - 1) out[out.length - 1] += ".";
  }
  return out.join(" ");
}

describe("countWords", () => {
  it.each([
    ["", 0],
    ["   \n\t ", 0],
    ["one", 1],
    ["Hello, world!", 2],
    ["don't stop", 2],
    ["a well-known fact", 3],
    ["pi is 3.14 e.g. here", 5],
    ["The U.S. economy", 3],
    ["em — dash – and - hyphen", 4],
    ["a/b and c", 4],
    ["Café naïve über", 3],
    ["中文字", 3],
    ["emoji 🎉 only counts words", 4],
  ])("%j has %i words", (text, n) => {
    expect(countWords(text)).toBe(n);
  });
});

describe("splitSentences", () => {
  it.each([
    ["plain sentences", "One here. Two there! Three? Four.", ["One here.", "Two there!", "Three?", "Four."]],
    ["titles", "Dr. Smith met Mrs. Jones. They talked.", ["Dr. Smith met Mrs. Jones.", "They talked."]],
    [
      "e.g. and i.e.",
      "Use a tool, e.g. A hammer. Or not, i.e. Nothing.",
      ["Use a tool, e.g. A hammer.", "Or not, i.e. Nothing."],
    ],
    ["decimals", "It costs 3.50 dollars. Pi is 3.14159.", ["It costs 3.50 dollars.", "Pi is 3.14159."]],
    ["initials", "J. R. R. Tolkien wrote it. Read it.", ["J. R. R. Tolkien wrote it.", "Read it."]],
    ["dotted acronyms", "The U.S. Army moved. Then it stopped.", ["The U.S. Army moved.", "Then it stopped."]],
    ["numbered references", "See No. 5 on p. 12. Done.", ["See No. 5 on p. 12.", "Done."]],
    ["months", "It shipped Jan. 5 in 2024. Good.", ["It shipped Jan. 5 in 2024.", "Good."]],
    ["'no' ending a sentence", "The answer was no. Then we left.", ["The answer was no.", "Then we left."]],
    ["quotes after the stop", 'He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]],
    ["question inside a sentence", '"Why?" she asked. Nobody knew.', ['"Why?" she asked.', "Nobody knew."]],
    ["ellipsis", "Wait... What happened? Nothing.", ["Wait...", "What happened?", "Nothing."]],
    ["lower case after a stop", "Version 2. and more text. End.", ["Version 2. and more text.", "End."]],
    ["numbers after a stop", "Sales rose 5%. 2024 was big.", ["Sales rose 5%.", "2024 was big."]],
    ["URLs", "Visit example.com today. Thanks.", ["Visit example.com today.", "Thanks."]],
    [
      "list items",
      "Steps:\n1. Open it.\n2. Save it\n- a bullet\n- another",
      ["Steps:", "1. Open it.", "2. Save it", "- a bullet", "- another"],
    ],
    ["blank lines", "First paragraph\n\nSecond one", ["First paragraph", "Second one"]],
    ["ideographic stops", "这是中文。第二句！好", ["这是中文。", "第二句！", "好"]],
    ["no terminal stop", "A fragment without a stop", ["A fragment without a stop"]],
  ])("%s", (_, text, expected) => {
    expect(splitSentences(text)).toEqual(expected);
  });

  it("returns nothing for blank text", () => {
    expect(splitSentences("  \n ")).toEqual([]);
  });
});

describe("htmlToText", () => {
  const page = `<!doctype html><html><head><title>Page title</title>
    <style>p { color: red }</style><script>var secret = "<p>script text</p>";</script></head>
    <body><h1>Main heading</h1><p>Caf&eacute; &amp; bar &lt;tag&gt; &#8212; &#x27;quoted&#x27;&nbsp;here.</p>
    <noscript>Enable JavaScript</noscript><template><p>template text</p></template>
    <ul><li>first item</li><li>second <b>bold</b> item<ul><li>nested</li></ul></li></ul>
    <ol><li>one</li><li>two</li></ol>
    <blockquote><p>A quotation.</p></blockquote>
    <p>Line<br>break and a <a href="https://example.test/x">link</a>.</p>
    <img src="x.png" alt="an image"><svg><text>svg text</text></svg>
    <table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
    <!-- a comment --><p>Last   paragraph
    spread over lines.</p></body></html>`;
  const text = htmlToText(page);

  it("drops tags, scripts, styles and other non-prose elements", () => {
    // "<tag>" is the one decoded from &lt;tag&gt;, text rather than markup.
    expect(text.replace("<tag>", "")).not.toMatch(/[<>]\w|<\/|\/>/);
    for (const hidden of [
      "Page title",
      "color: red",
      "secret",
      "script text",
      "Enable JavaScript",
      "template text",
      "svg text",
      "a comment",
      "example.test",
      "an image",
    ])
      expect(text, hidden).not.toContain(hidden);
  });

  it("decodes entities", () => {
    expect(text).toContain("Café & bar <tag> — 'quoted' here.");
    expect(text).not.toMatch(/&\w+;|&#/);
    expect(text).not.toContain("\u00a0");
  });

  it("keeps paragraph breaks and puts list items on their own lines", () => {
    const paragraphs = text.split("\n\n");
    expect(paragraphs[0]).toBe("Main heading");
    expect(paragraphs).toContain("- first item\n- second bold item\n- nested");
    expect(paragraphs).toContain("1. one\n2. two");
    expect(paragraphs).toContain("A quotation.");
    expect(paragraphs).toContain("Line\nbreak and a link.");
    expect(paragraphs).toContain("Name Value\na 1");
    expect(paragraphs.at(-1)).toBe("Last paragraph spread over lines.");
    expect(text).not.toMatch(/\n{3}/);
  });

  it("survives pathological nesting, leaving out what lies deeper than HTML_MAX_DEPTH", () => {
    const deep = `<p>before</p>${"<div>".repeat(100_000)}lost${"</div>".repeat(100_000)}<p>after</p>`;
    expect(htmlToText(deep)).toBe("before\n\nafter");
    const nested = (n: number) => `${"<div>".repeat(n)}kept${"</div>".repeat(n)}`;
    expect(htmlToText(nested(HTML_MAX_DEPTH - 10))).toBe("kept");
    expect(markdownToText(`# Title\n\n${"<b>".repeat(50_000)}`)).toBe("Title");
    expect(markdownToText(`${">".repeat(100_000)} quoted`)).not.toContain(">");
  });

  it("handles fragments, plain text and broken markup", () => {
    expect(htmlToText("Just text &amp; more")).toBe("Just text & more");
    expect(htmlToText("<p>unclosed <b>bold")).toBe("unclosed bold");
    expect(htmlToText("<script>only()</script><style>x{}</style>")).toBe("");
  });
});

describe("markdownToText", () => {
  const md = [
    "# The title",
    "",
    "Some *emphasis*, **strong**, `code` and a [link](https://example.test) &amp; an &copy; entity.",
    "",
    "> A quoted line.",
    "",
    "- apples",
    "- pears",
    "  - nested",
    "",
    "1. first",
    "2. second",
    "",
    "<script>alert('owned')</script>",
    "",
    '<div class="note">Inline <em>HTML</em> block</div>',
    "",
    "| Col A | Col B |",
    "|---|---|",
    "| 1 | 2 |",
    "",
    "---",
    "",
    "```js",
    "const x = 1;",
    "```",
  ].join("\n");
  const text = markdownToText(md);

  it("renders Markdown to clean text: no markup, no raw HTML, no scripts", () => {
    expect(text).not.toMatch(/[*`#>|]|\]\(|<\/?\w/);
    expect(text).not.toContain("alert");
    expect(text).not.toContain("example.test");
    expect(text.split("\n\n")).toEqual([
      "The title",
      "Some emphasis, strong, code and a link & an © entity.",
      "A quoted line.",
      "- apples\n- pears\n- nested",
      "1. first\n2. second",
      "Inline HTML block",
      "Col A Col B\n1 2",
      "const x = 1;",
    ]);
  });

  // Found by review: html-to-text's own table layout took O(columns²) (minutes for a few hundred bytes of colspan)
  // and recursed on rowspan until the stack overflowed; tables are now their rows, one per line.
  it("reads a table as its rows, whatever its spans, row groups or size", () => {
    expect(
      htmlToText(
        "<div>Before</div><table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a <b>b</b></td><td>1</td></tr></tbody><tfoot><tr><td></td><td>z</td></tr></tfoot></table><p>After</p>",
      ),
    ).toBe("Before\n\nName Value\na b 1\nz\n\nAfter");
    // Cells holding blocks (as Word, Google Docs and Confluence export them), lists, line breaks and tables.
    expect(
      htmlToText(
        "<table><tr><td><p>Name</p></td><td><p>Value</p></td></tr><tr><td><h3>alpha</h3></td><td><div>1</div></td></tr></table>",
      ),
    ).toBe("Name Value\nalpha 1");
    expect(htmlToText("<table><tr><td>multi<br>line</td><td><ul><li>one</li><li>two</li></ul></td></tr></table>")).toBe(
      "multi - one\nline - two",
    );
    expect(
      htmlToText("<table><tr><td><table><tr><td>in1</td><td>in2</td></tr></table></td><td>out</td></tr></table>"),
    ).toBe("in1 in2 out");
    expect(htmlToText(`<table><tr>${"<td colspan=50000>x</td>".repeat(8)}</tr></table>`)).toBe("x x x x x x x x");
    expect(htmlToText('<table><tr><td rowspan="20000">x</td><td>y</td></tr><tr><td>z</td></tr></table>')).toBe(
      "x y\nz",
    );
    expect(htmlToText(`<table>${"<tbody>".repeat(100_000)}<tr><td>deep</td></tr></table>`)).toBe("deep");
    // Cells of several paragraphs keep their blank lines, side by side with their neighbours.
    expect(htmlToText("<table><tr><td><p>A</p><p>B</p></td><td>A2</td></tr></table>")).toBe("A A2\n\nB");
    // A spacer row does not split the table.
    expect(htmlToText("<table><tr><td>a</td></tr><tr><td>&nbsp;</td></tr><tr><td>b</td></tr></table>")).toBe("a\nb");
    // A tall cell beside many empty ones costs its own lines (the row's height times its cells was quadratic).
    const tall = htmlToText(
      `<table><tr><td>${"x<br>".repeat(100_000)}</td>${"<td></td>".repeat(100_000)}</tr></table>`,
    );
    expect(tall).toBe(Array(100_000).fill("x").join("\n"));
    const wide = htmlToText(`<table><tr>${"<td>a</td>".repeat(100_000)}</tr></table>`);
    expect(wide).toBe(Array(100_000).fill("a").join(" "));
    expect(markdownToText(`| ${"c | ".repeat(40_000)}\n|${"---|".repeat(40_000)}\n| ${"1 | ".repeat(40_000)}`)).toBe(
      `${Array(40_000).fill("c").join(" ")}\n${Array(40_000).fill("1").join(" ")}`,
    );
  });

  it("toPlainText dispatches on the format and normalizes plain text", () => {
    expect(toPlainText("# Hi", "markdown")).toBe("Hi");
    expect(toPlainText("<p>Hi</p>", "html")).toBe("Hi");
    expect(toPlainText("# Hi  \r\n\r\n\r\n\r\nThere\u0000\u200b", "text")).toBe("# Hi\n\nThere");
    expect(normalizeText("\n\n  indented\ttext  \n")).toBe("  indented\ttext");
  });
});

describe("splitPassages", () => {
  const words = (passages: string[]) => passages.map(countWords);

  it("returns nothing for blank text and one passage for a short text", () => {
    expect(splitPassages("")).toEqual([]);
    expect(splitPassages(" \n\n ")).toEqual([]);
    expect(splitPassages("Just a few words.")).toEqual(["Just a few words."]);
  });

  it("keeps paragraphs of a good length whole, one per passage", () => {
    const paras = [paragraph(60, "a"), paragraph(90, "b"), paragraph(45, "c")];
    expect(splitPassages(paras.join("\n\n"))).toEqual(paras);
  });

  it("gathers short paragraphs (headings, one-liners) with their neighbours", () => {
    const text = ["Heading", paragraph(20, "a"), paragraph(25, "b"), paragraph(70, "c"), "Closing line."].join("\n\n");
    const passages = splitPassages(text);
    expect(words(passages)).toEqual([46, 72]);
    expect(passages[0].startsWith("Heading\n\nA0")).toBe(true);
    expect(passages[1].endsWith("Closing line.")).toBe(true);
  });

  it("cuts a long paragraph at sentence boundaries into passages of similar size", () => {
    const long = paragraph(400, "x");
    const passages = splitPassages(long);
    expect(passages.length).toBe(3);
    for (const p of passages) {
      expect(countWords(p)).toBeGreaterThanOrEqual(PASSAGE_MIN_WORDS);
      expect(countWords(p)).toBeLessThanOrEqual(PASSAGE_MAX_WORDS);
      expect(p).toMatch(/\.$/); // whole sentences
      expect(p).toMatch(/^X/);
    }
    expect(passages.join(" ")).toBe(long);
  });

  it("cuts a sentence longer than a passage at line breaks, then between words", () => {
    const list = Array.from({ length: 120 }, (_, i) => `item number ${i}`).join("\n");
    const listPassages = splitPassages(list);
    expect(words(listPassages).every((n) => n <= PASSAGE_MAX_WORDS)).toBe(true);
    expect(listPassages.every((p) => p.startsWith("item number"))).toBe(true);
    const run = Array.from({ length: 500 }, (_, i) => `w${i}`).join(" ");
    expect(words(splitPassages(run))).toEqual([125, 125, 125, 125]);
  });

  it("keeps every word, in order, on a realistic mixed document", () => {
    const doc = markdownToText(
      [
        "# Report",
        paragraph(30, "intro"),
        "## Findings",
        paragraph(220, "find", 17),
        "- a point\n- another point",
        paragraph(55, "close"),
      ].join("\n\n"),
    );
    const passages = splitPassages(doc);
    expect(words(passages).reduce((a, b) => a + b, 0)).toBe(countWords(doc));
    expect(passages.join(" ").replace(/\s+/g, " ")).toBe(doc.replace(/\s+/g, " "));
    for (const n of words(passages)) expect(n).toBeLessThanOrEqual(PASSAGE_MAX_WORDS);
    expect(words(passages).filter((n) => n < PASSAGE_MIN_WORDS)).toEqual([]);
  });
});

describe("sliceWhole", () => {
  it("cuts before a surrogate pair it would split, and only then", () => {
    const emoji = "😀";
    expect(sliceWhole(`ab${emoji}`, 3)).toBe("ab");
    expect(sliceWhole(`ab${emoji}`, 4)).toBe(`ab${emoji}`);
    expect(sliceWhole("abcdef", 3)).toBe("abc");
    expect(sliceWhole("ab", 5)).toBe("ab");
    // A lone high surrogate at the very end is the string's own, not a cut.
    expect(sliceWhole("ab\uD83D", 3)).toBe("ab\uD83D");
  });

  it("keeps a reference's excerpt whole when it ends among emoji", () => {
    const text = `${"a".repeat(EXCERPT_CHARS - 1)}${"😀".repeat(20)}`;
    const excerpt = excerptOf(text.slice(0, EXCERPT_CHARS + 1), text.length);
    expect(excerpt.toWellFormed()).toBe(excerpt);
    expect(excerpt.endsWith("…")).toBe(true);
  });
});
