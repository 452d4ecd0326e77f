import { describe, expect, it } from "vitest";
import {
  checkTargets,
  markdownTable,
  measureSample,
  rowOf,
  type Sample,
  type SampleFigures,
  sharedAcrossDirections,
  simulateEdit,
  tableRows,
  voiceCheck,
  voiceRulesLine,
} from "../../bench/lib/writing-figures.js";
import { VOICE_RULES } from "../fixtures/writing/matrix.js";

const CONTEXT = "Our readers are heads of engineering and operations at companies of 50 to 500 people in Europe.";

function sample(over: Partial<Sample>): Sample {
  return {
    template: "Blog post",
    target_words: 100,
    direction: "How to cut cloud costs by 30% without slowing releases",
    refs: "long",
    memories: false,
    title: "Cut cloud costs by 30%",
    text: "# Cut cloud costs by 30%\n\nYou can cut cloud costs by 30% without slowing releases.",
    word_count: 100,
    warnings: [],
    ...over,
  };
}

const options = { rules: VOICE_RULES, context: CONTEXT };

const fig = (over: Partial<SampleFigures>): SampleFigures => ({
  doubled: 0,
  sentences: 10,
  fragments: 0,
  dangling: 0,
  filler: 0,
  coverage: 1,
  withinTarget: null,
  short: false,
  warned: false,
  voice: null,
  pasted: null,
  ...over,
});

describe("one text's figures", () => {
  it("count doubled words, fragments and dangling sentences", () => {
    const f = measureSample(
      sample({
        text: "# Title\n\nThe the team ships releases every week. A sentence about nothing at all for. Consider the logs.",
      }),
      options,
    );
    expect(f.doubled).toBe(1);
    expect(f.sentences).toBe(3);
    expect(f.dangling).toBe(1);
    expect(measureSample(sample({ text: "Start small. Notably, the bill fell." }), options).filler).toBe(2);
    expect(measureSample(sample({ text: "The plan worked. Fast releases and small bills." }), options).fragments).toBe(
      1,
    );
  });

  it("count length against the target only for texts given the long references, and note a warning", () => {
    expect(measureSample(sample({ word_count: 115 }), options).withinTarget).toBe(true);
    expect(measureSample(sample({ word_count: 116 }), options).withinTarget).toBe(false);
    expect(measureSample(sample({ word_count: 84 }), options).withinTarget).toBe(false);
    expect(measureSample(sample({ refs: "short", word_count: 50 }), options).withinTarget).toBeNull();
    const short = measureSample(sample({ refs: "short", word_count: 50, warnings: ["not enough material"] }), options);
    expect([short.short, short.warned]).toEqual([true, true]);
    expect(measureSample(sample({ word_count: 85 }), options).short).toBe(false);
  });

  it("measure coverage of the direction's content words", () => {
    expect(measureSample(sample({}), options).coverage).toBe(1);
    expect(measureSample(sample({ text: "Cloud costs matter." }), options).coverage).toBeLessThan(0.5);
  });

  it("check the voice and the pasting only with the memories", () => {
    const without = measureSample(sample({}), options);
    expect([without.voice, without.pasted]).toEqual([null, null]);
    const pasted = measureSample(
      sample({
        memories: true,
        text: `We write for heads of engineering and operations at companies of 50 to 500 people.`,
      }),
      options,
    );
    // Twelve words in a row of the memory: five runs of eight.
    expect(pasted.pasted).toBe(5);
  });
});

describe("the voice rules", () => {
  const good = "You'll cut costs fast. You don't need a big team. Start with the bill.";

  it("pass a text that keeps every rule", () => {
    expect(voiceCheck(good, VOICE_RULES)).toEqual({
      sentenceLength: true,
      noExclamation: true,
      noAvoided: true,
      addressesYou: true,
      contractions: true,
      all: true,
    });
  });

  it("fail each rule alone", () => {
    const fails = (text: string) =>
      Object.entries(voiceCheck(text, VOICE_RULES))
        .filter(([k, v]) => !v && k !== "all")
        .map(([k]) => k);
    expect(fails(`${good} This sentence has far too many words in it to count as short here.`)).toEqual([
      "sentenceLength",
    ]);
    expect(fails(`${good} Cut it now!`)).toEqual(["noExclamation"]);
    expect(fails(`${good} We're leveraging it.`)).toEqual(["noAvoided"]);
    expect(fails(`${good} We've utilized it.`)).toEqual(["noAvoided"]);
    expect(fails("We'll cut costs fast. Start with the bill.")).toEqual(["addressesYou"]);
    expect(fails("You will cut costs fast. Start with the bill.")).toEqual(["contractions"]);
    expect(voiceCheck("Its cost is the team's.", VOICE_RULES).contractions).toBe(false);
  });
});

describe("the rows and the table", () => {
  it("sum the defects, share the fragments over all sentences and average the coverage", () => {
    const r = rowOf(
      "Email",
      [fig({ doubled: 2, fragments: 1, coverage: 0.5, filler: 3 }), fig({ sentences: 30, fragments: 1, pasted: 4 })],
      [0.1, 0.3],
    );
    expect(r).toMatchObject({ texts: 2, doubled: 2, sentences: 40, fragments: 2, fragmentShare: 0.05, filler: 3 });
    expect(r.coverage).toBe(0.75);
    expect(r.shared).toBeCloseTo(0.2);
    expect([r.pasted, r.pastedTexts, r.contextSamples]).toEqual([4, 1, 1]);
  });

  it("share on-target texts among those with long references, and count short texts that warn", () => {
    const r = rowOf(
      "Email",
      [
        fig({ withinTarget: true }),
        fig({ withinTarget: false, short: true, warned: true }),
        fig({ short: true }),
        fig({}),
      ],
      [],
    );
    expect([r.withinTarget, r.shortTexts, r.shortWarned]).toEqual([0.5, 2, 1]);
    expect(rowOf("Email", [fig({})], []).withinTarget).toBeNull();
  });

  it("share the texts with the voice memory that keep every rule", () => {
    const kept = { sentenceLength: true, noExclamation: true, noAvoided: true, addressesYou: true, contractions: true };
    const r = rowOf(
      "Email",
      [fig({ voice: { ...kept, all: true } }), fig({ voice: { ...kept, all: false } }), fig({})],
      [],
    );
    expect([r.voiceSamples, r.voiceHonoured]).toEqual([2, 0.5]);
    expect(
      rowOf(
        "Email",
        [fig({ voice: { ...kept, contractions: false, all: false } }), fig({ voice: { ...kept, all: true } })],
        [],
      ).voiceRules,
    ).toEqual({
      sentenceLength: 1,
      noExclamation: 1,
      noAvoided: 1,
      addressesYou: 1,
      contractions: 0.5,
    });
    expect(voiceRulesLine(r)).toBe(
      "voice rules kept, each: sentenceLength 100.0%, noExclamation 100.0%, noAvoided 100.0%, addressesYou 100.0%, contractions 100.0%",
    );
  });

  it("compare only texts of one template with the same inputs but another direction", () => {
    const stock = "Here is what you need to know about this topic today.";
    const a = sample({ direction: "Cloud costs", text: `${stock} Cloud bills fell by a third last spring.` });
    const b = sample({ direction: "Water bottles", text: `${stock} Steel bottles keep water cold all day long.` });
    const other = sample({ direction: "Water bottles", refs: "none", text: a.text });
    const shared = sharedAcrossDirections([a, b, other]);
    expect(shared.get("Blog post")).toEqual([0.5]);
  });

  it("give a row per template in order, then the total, in a Markdown table", () => {
    const samples = [sample({ template: "B" }), sample({ template: "A" }), sample({ template: "B" })];
    const rows = tableRows(samples, [fig({ doubled: 1 }), fig({}), fig({ doubled: 2 })]);
    expect(rows.map((r) => [r.template, r.doubled])).toEqual([
      ["B", 3],
      ["A", 0],
      ["**Total**", 3],
    ]);
    const table = markdownTable(rows).split("\n");
    expect(table).toHaveLength(5);
    expect(table[2]).toMatch(/^\| B \| 2 \| 3 \| 0\.0% \(0\/20\) \|/);
  });
});

describe("the targets", () => {
  const clean = rowOf("**Total**", [fig({})], []);

  it("pass a clean total and fail each defect", () => {
    expect(checkTargets(clean, clean).every((t) => t.pass)).toBe(true);
    const failing = (over: Partial<typeof clean>) =>
      checkTargets(clean, { ...clean, ...over })
        .filter((t) => !t.pass)
        .map((t) => t.name);
    expect(failing({ doubled: 1 })).toEqual([
      "after learning: 0 doubled words",
      "learning never increases the defect counts",
    ]);
    expect(failing({ fragmentShare: 0.011 })).toEqual(["after learning: fragments ≤ 1%"]);
    expect(failing({ coverage: 0.89 })).toEqual(["after learning: coverage ≥ 90%"]);
    expect(failing({ withinTarget: 0.79 })).toEqual(["after learning: ≥ 80% within ±15% with enough references"]);
    expect(failing({ shortTexts: 2, shortWarned: 1 })).toEqual(["after learning: every shorter text warns"]);
    expect(failing({ shared: 0.05 })).toEqual(["after learning: shared sentences < 5%"]);
    expect(failing({ voiceHonoured: 0.99 })).toEqual(["after learning: voice rules in every sample"]);
    expect(failing({ pasted: 1 })).toContain("after learning: no pasted context");
  });
});

describe("the editor's simulated edit", () => {
  const out = {
    title: "Why Engineering Managers Should Adopt Decision Logs",
    text:
      "# Why Engineering Managers Should Adopt Decision Logs\n\n" +
      "Remote teams lose decisions. Logs help teams find them. Each entry has five parts. " +
      "Reviews take a day. Many teams start small.",
  };
  const edited = simulateEdit(out, "Why engineering managers should adopt decision logs when going remote");

  it("puts the title in sentence case, deletes the middle sentence and replaces one word by a synonym", () => {
    expect(edited).toBe(
      "# Why engineering managers should adopt decision logs\n\n" +
        "Remote teams lose decisions. Logs support teams find them. Reviews take a day. Many teams start small.",
    );
  });

  it("keeps names and acronyms capitalised in the title", () => {
    const t = simulateEdit(
      { title: "Announce The CSV Export For Quillstack", text: "# Announce The CSV Export For Quillstack\n\nA. B." },
      "Announce the CSV export for Quillstack",
    );
    expect(t.split("\n")[0]).toBe("# Announce the CSV export for Quillstack");
  });
});
