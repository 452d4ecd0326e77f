/** The builtin writer (src/domain/generation/builtin.ts): determinism, each template's form, length, and its prose. */
import { describe, expect, it } from "vitest";
import { generateBuiltin } from "../../../src/domain/generation/builtin.js";
import { wordCount } from "../../../src/domain/generation/language.js";
import { emptyTraits } from "../../../src/domain/generation/voice.js";
import {
  directionCoverage,
  doubledWords,
  isDangling,
  isFragment,
  proseSentences,
  sharedSentences,
} from "../../../src/domain/writing-checks.js";
import {
  BOTTLE_REFERENCE,
  builtInTemplates,
  DIRECTIONS,
  inputOf,
  LOGS_REFERENCE,
  passagesOf,
} from "./writer-inputs.js";

const templates = builtInTemplates();
const template = (name: string) => {
  const t = templates.find((x) => x.name === name);
  if (!t) throw new Error(`no template ${name}`);
  return t;
};
const logs = passagesOf(LOGS_REFERENCE, "the Halden notes");
const bottle = passagesOf(BOTTLE_REFERENCE, "the Kestrel product sheet", 2);
const [WHY, LESSON, EXPORT, HOWTO, BOTTLE] = DIRECTIONS;

describe("generateBuiltin: determinism and sources", () => {
  it("writes the same text for the same input and seed, and another for another seed", () => {
    const input = inputOf(template("Blog post"), WHY, logs, 11);
    const first = generateBuiltin(input);
    expect(generateBuiltin({ ...input }).text).toBe(first.text);
    expect(generateBuiltin({ ...input, seed: 12 }).text).not.toBe(first.text);
  });

  it("cites the passages it uses, and keeps their sentences' words exact", () => {
    const out = generateBuiltin(inputOf(template("Blog post"), WHY, logs));
    expect(out.sources.length).toBeGreaterThan(0);
    for (const s of out.sources) {
      expect(s.reference_material_id).toBe(1);
      expect(logs.map((p) => p.text)).toContain(s.passage);
    }
    expect(out.text).toContain("In those six weeks it wrote 47 entries.");
    expect(out.text).toMatch(/fell from 2\.6 per week to 0\.4 per week/);
    // Woven in with attribution, not pasted as a block.
    expect(out.text).toMatch(
      /(?:According to|As|In the words of) the Halden notes|the Halden notes (?:observe|report|point out)/i,
    );
  });

  it("writes none of the old engine's stock filler, nor a template's slot", () => {
    for (const t of templates) {
      const out = generateBuiltin(inputOf(t, WHY, logs));
      expect(out.text).not.toMatch(/fast-paced world|\butilize\b|Consider adopt|\{\w+\}|A Practical Guide/);
    }
  });
});

describe("generateBuiltin: each template's form", () => {
  it("gives a press release its dateline, a quotation attributed to placeholders and an About part", () => {
    const out = generateBuiltin(inputOf(template("Press release"), EXPORT, logs));
    expect(out.text.startsWith("FOR IMMEDIATE RELEASE\n\n# ")).toBe(true);
    expect(out.text).toMatch(/^\[City\], \[Date\] — \S/m);
    expect(out.text).toMatch(/^“[^”]+” said \[Name\], \[Title\] at \[Company\]\.$/m);
    expect(out.text).toMatch(
      /^## About the organisation\n\n\[Company\] \[does what, for whom\]\. It was founded in \[year\] and is based in \[City\]\.\n\nMedia contact: /m,
    );
    expect(out.text.endsWith("###")).toBe(true);
  });

  it("gives an email a subject line, a greeting and a sign-off", () => {
    const out = generateBuiltin(inputOf(template("Email"), HOWTO, logs));
    expect(out.text).toMatch(/^Subject: How to cut cloud costs by 30% without slowing releases\n\nHi \[Name\],\n\n\S/);
    expect(out.text).toMatch(/\n\nBest regards,\n\[Your name\]$/);
  });

  it("numbers a how-to's steps", () => {
    const out = generateBuiltin(inputOf(template("How-to guide"), HOWTO, logs));
    const steps = out.text.match(/^\d+\. \S.*$/gm) ?? [];
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps.map((s) => Number.parseInt(s, 10))).toEqual(steps.map((_, i) => i + 1));
    // Without references, a how-to still has steps, written from its task.
    const bare = generateBuiltin(inputOf(template("How-to guide"), HOWTO, []));
    expect(bare.text).toMatch(/^1\. .+\n2\. .+\n3\. .+$/m);
  });

  it("leaves out a step the voice profile avoids, and numbers the steps left anew", () => {
    const input = inputOf(template("How-to guide"), HOWTO, []);
    const steps = (text: string) => text.match(/^\d+\. .*$/gm) ?? [];
    const before = steps(generateBuiltin(input).text);
    const avoided = before[1].replace(/^\d+\. /, "").replace(/\.$/, "");
    const voice = { ...emptyTraits(), avoided_phrases: [{ phrase: avoided, count: 1, samples: 1, content_ids: [1] }] };
    const after = steps(generateBuiltin({ ...input, voice }).text);
    expect(after).toHaveLength(before.length - 1);
    expect(after.map((s) => Number.parseInt(s, 10))).toEqual(after.map((_, i) => i + 1));
    expect(after.every((s) => /^\d+\. \S/.test(s))).toBe(true);
  });

  it("lists a product's benefits as bullets of a label and a feature", () => {
    const out = generateBuiltin(inputOf(template("Product description"), BOTTLE, bottle));
    const bullets = out.text.match(/^- \*\*[^*]+\*\*: \S.*$/gm) ?? [];
    expect(bullets.length).toBeGreaterThanOrEqual(3);
    expect(out.text).toContain("**Why you will love it**");
    // A label says what the sentence says the product does, from its verb: not a run of its first nouns.
    expect(bullets).toContain(
      "- **Holds 750 millilitres**: It holds 750 millilitres, weighs 340 grams empty and stands 26 centimetres tall.",
    );
    expect(out.text).toContain("- **Made of recycled polypropylene**: The lid is made of recycled polypropylene");
  });

  it("opens a LinkedIn post on its hook, without a title, and closes it with a question", () => {
    const out = generateBuiltin(inputOf(template("LinkedIn post"), WHY, logs));
    expect(out.text.startsWith(out.title)).toBe(false);
    expect(out.text.trim().endsWith("?")).toBe(true);
    expect(out.text.split("\n")[0].length).toBeLessThan(300);
  });

  it("numbers a thread's posts and keeps each within 280 characters", () => {
    const out = generateBuiltin(inputOf(template("Social thread"), LESSON, logs));
    const posts = out.text.split("\n\n");
    expect(posts.length).toBeGreaterThan(2);
    posts.forEach((p, i) => {
      expect(p.startsWith(`${i + 1}/${posts.length} `)).toBe(true);
      expect(p.length).toBeLessThanOrEqual(280);
    });
  });
});

describe("generateBuiltin: length", () => {
  it("reaches the target within 15% when the references hold enough words, and warns of nothing", () => {
    for (const name of ["Email", "LinkedIn post", "Product description"]) {
      const t = template(name);
      for (const d of DIRECTIONS) {
        const out = generateBuiltin(inputOf(t, d, logs));
        expect(Math.abs(out.word_count - t.target_words), `${name}: ${d}`).toBeLessThanOrEqual(t.target_words * 0.15);
        expect(out.warnings).toEqual([]);
        expect(out.word_count).toBe(wordCount(out.text));
      }
    }
  });

  it("is shorter with less material, and says how much shorter and why", () => {
    const out = generateBuiltin(inputOf(template("Blog post"), BOTTLE, bottle));
    expect(out.word_count).toBeLessThan(850);
    expect(out.warnings).toEqual([
      `The references hold 131 words; the text is ${out.word_count.toLocaleString("en-US")} words of the 1,000 the template asks for. Add reference material for a fuller draft.`,
    ]);
    const bare = generateBuiltin(inputOf(template("Blog post"), BOTTLE, []));
    expect(bare.warnings[0]).toMatch(/^No reference material was given; the text is \d+ words of the 1,000/);
    // Without material the piece says what the direction supports, not sentences about nothing.
    expect(bare.word_count).toBeLessThan(120);
  });
});

describe("generateBuiltin: the prose over a matrix of templates and directions", () => {
  const cells = templates.flatMap((t) =>
    DIRECTIONS.flatMap((d) => [
      { t, d, refs: "references", out: generateBuiltin(inputOf(t, d, [...logs, ...bottle])) },
      { t, d, refs: "none", out: generateBuiltin(inputOf(t, d, [])) },
    ]),
  );

  it("doubles no word, leaves no slot empty and no sentence dangling", () => {
    for (const { t, d, refs, out } of cells) {
      expect(out.text, `${t.name} / ${d} / ${refs}`).not.toMatch(/ [.,;:?]|\*\*: \.|how to \./);
      expect(doubledWords(out.text), `${t.name} / ${d} / ${refs}`).toEqual([]);
      expect(doubledWords(out.title)).toEqual([]);
      for (const s of proseSentences(out.text)) expect(isDangling(s), s).toBe(false);
    }
  });

  it("writes at most 1% fragments (sentences without a verb)", () => {
    const sentences = cells.flatMap((c) => proseSentences(c.out.text));
    const fragments = sentences.filter(isFragment);
    expect(fragments.length, fragments.join("\n")).toBeLessThanOrEqual(sentences.length * 0.01);
  });

  it("covers the direction's content words, its numbers and named things intact", () => {
    for (const { t, d, out } of cells) {
      expect(directionCoverage(d, out.text), `${t.name} / ${d}`).toBeGreaterThanOrEqual(0.8);
      for (const kept of ["10,000", "30%", "new export feature", "CSV and PDF", "24 hours"])
        if (d.includes(kept)) expect(out.text, `${t.name} / ${d}`).toContain(kept);
    }
  });

  it("never copies the direction mid-sentence with its capital, nor cuts a number", () => {
    for (const { d, out } of cells) {
      expect(out.text).not.toMatch(/(?<![\d,])000\b/);
      const capitalised = d.split(" ").slice(0, 3).join(" ");
      expect(out.text).not.toMatch(new RegExp(`\\p{Ll}[,;]? ${capitalised}`, "u"));
    }
  });

  it("shares fewer than 5% of its sentences between two directions on one template", () => {
    // Each direction with references of its own (or none), as two users' pieces would be.
    const own = (d: string) => (d === WHY ? logs : d === BOTTLE ? bottle : []);
    for (const t of templates) {
      const outs = DIRECTIONS.map((d) => ({ d, out: generateBuiltin(inputOf(t, d, own(d))) }));
      let shared = 0;
      let pairs = 0;
      for (const a of outs)
        for (const b of outs)
          if (a !== b) {
            shared += sharedSentences({ text: a.out.text, direction: a.d }, { text: b.out.text, direction: b.d });
            pairs++;
          }
      expect(shared / pairs, t.name).toBeLessThan(0.05);
    }
  });
});
