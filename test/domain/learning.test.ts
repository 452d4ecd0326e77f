import { describe, expect, it } from "vitest";
import { type GenerationInput, generateBuiltin } from "../../src/domain/generation/builtin.js";
import { tokens } from "../../src/domain/generation/language.js";
import { applySubstitutions, emptyTraits, parseTraits } from "../../src/domain/generation/voice.js";
import { analyzeEdit, certainEdits } from "../../src/domain/learning/analyze.js";
import { foldAnalysis } from "../../src/domain/learning/fold.js";
import { readability } from "../../src/domain/readability.js";
import { proseSentences } from "../../src/domain/writing-checks.js";

const input = (seed: number, voice: GenerationInput["voice"] = null): GenerationInput => ({
  template: {
    id: 1,
    name: "Blog post",
    format: "article",
    tone: "professional",
    target_words: 300,
    sections: [
      { key: "title", heading: null, role: "headline", words: 10 },
      { key: "intro", heading: null, role: "hook", words: 60 },
      { key: "body", heading: "Why it matters", role: "point", words: 120 },
      { key: "close", heading: "Next steps", role: "cta", words: 30 },
    ],
  },
  direction: "Write a blog post about written planning reviews for remote engineering teams",
  memories: [],
  passages: [
    {
      reference_material_id: 3,
      reference_title: "the planning study",
      text: "Remote teams that hold a weekly written planning review ship 23% more features per quarter. The review takes under an hour when the agenda is shared in advance.",
    },
  ],
  voice,
  seed,
});

describe("learning analysis", () => {
  it("finds substitutions, removed and added phrases, and the change in sentence length and readability", () => {
    const generated =
      "In today's fast-paced world, teams utilize planning. We utilize reviews every week, and we utilize written agendas because they help everyone stay aligned across time zones.";
    const finalized =
      "Teams use planning. We use reviews every week. We use written agendas. They keep everyone aligned.";
    const r = analyzeEdit({ generated, finalized, edit_seconds: 90 });
    expect(r.substitutions).toContainEqual({ from: "utilize", to: "use", count: 3 });
    expect(r.removed_phrases.join(" | ")).toMatch(/In today's fast-paced world/);
    expect(r.sentence_length.after).toBeLessThan(r.sentence_length.before);
    expect(r.readability.after.flesch_reading_ease).toBeGreaterThan(r.readability.before.flesch_reading_ease);
    expect(r.edit_seconds).toBe(90);
    expect(r.words_changed_per_minute).toBeGreaterThan(0);
  });

  it("folds results into traits that carry their evidence, and a contrary substitution wins only with as much", () => {
    const first = analyzeEdit({ generated: "We utilize it.", finalized: "We use it.", edit_seconds: 10 });
    let traits = foldAnalysis(emptyTraits(), first, 0, { contentId: 1 });
    traits = foldAnalysis(traits, first, 1, { contentId: 2 });
    expect(traits.substitutions).toEqual([{ from: "utilize", to: "use", count: 2, samples: 2, content_ids: [1, 2] }]);
    // The same content again is the same sample: it does not count twice.
    traits = foldAnalysis(traits, first, 2, { contentId: 2 });
    expect(traits.substitutions[0]).toMatchObject({ count: 2, samples: 2 });
    // One contrary sample does not outweigh two: it waits, contested, and is not applied.
    const contrary = analyzeEdit({ generated: "We utilize it.", finalized: "We employ it.", edit_seconds: 10 });
    traits = foldAnalysis(traits, contrary, 3, { contentId: 3 });
    expect(traits.substitutions).toMatchObject([{ from: "utilize", to: "use", samples: 2 }]);
    expect(traits.contested_substitutions).toMatchObject([{ from: "utilize", to: "employ", samples: 1 }]);
    expect(applySubstitutions("We utilize it.", traits)).toBe("We use it.");
    // A second one makes as many: the newer takes its place, and the older waits in turn.
    traits = foldAnalysis(traits, contrary, 4, { contentId: 4 });
    expect(traits.substitutions).toMatchObject([{ from: "utilize", to: "employ", samples: 2, content_ids: [3, 4] }]);
    expect(traits.contested_substitutions).toMatchObject([{ from: "utilize", to: "use", samples: 2 }]);
    expect(applySubstitutions("We utilize it.", traits)).toBe("We employ it.");
    expect(traits.average_edit_seconds).toBe(10);
  });

  it("weighs an unknown editing time as no sample: no speed, and the mean editing time stays as it was", () => {
    const unknown = analyzeEdit({ generated: "We utilize it.", finalized: "We use it.", edit_seconds: null });
    expect(unknown).toMatchObject({ edit_seconds: null, words_changed_per_minute: null, words_added: 1 });
    expect(unknown.substitutions).toMatchObject([{ from: "utilize", to: "use" }]);
    const first = foldAnalysis(emptyTraits(), unknown, 0, { contentId: 1 });
    expect(first.average_edit_seconds).toBeNull();
    expect(first.substitutions).toMatchObject([{ from: "utilize", to: "use", samples: 1 }]);
    const timed = analyzeEdit({ generated: "We utilize it.", finalized: "We use it.", edit_seconds: 40 });
    const second = foldAnalysis(first, timed, 1, { contentId: 2 });
    expect(second.average_edit_seconds).toBe(40);
    expect(foldAnalysis(second, unknown, 2, { contentId: 3 }).average_edit_seconds).toBe(40);
  });

  it("reads traits stored without evidence as one sample each, and weighs them so", () => {
    const stored = JSON.stringify({ ...emptyTraits(), substitutions: [{ from: "utilize", to: "use", count: 4 }] });
    const traits = parseTraits(stored);
    expect(traits.substitutions).toEqual([{ from: "utilize", to: "use", count: 4, samples: 1, content_ids: [] }]);
    const contrary = analyzeEdit({ generated: "We utilize it.", finalized: "We employ it.", edit_seconds: 10 });
    // One sample against one: the newer wins the tie.
    expect(foldAnalysis(traits, contrary, 1, { contentId: 9 }).substitutions).toMatchObject([{ to: "employ" }]);
  });

  it("keeps a phrase on the side with more samples when it is both deleted and added", () => {
    const kept = "Written plans help remote teams decide. Teams that write decisions down ship sooner.";
    const remove = analyzeEdit({
      generated: `${kept} Start small, measure what changes.`,
      finalized: kept,
      edit_seconds: 10,
    });
    expect(remove.removed_phrases).toEqual(["Start small, measure what changes"]);
    let traits = foldAnalysis(emptyTraits(), remove, 0, { contentId: 1 });
    traits = foldAnalysis(traits, remove, 1, { contentId: 2 });
    const add = analyzeEdit({
      generated: kept,
      finalized: `${kept} Start small, measure what changes.`,
      edit_seconds: 10,
    });
    traits = foldAnalysis(traits, add, 2, { contentId: 3 });
    expect(traits.avoided_phrases.map((p) => p.phrase)).toEqual(["Start small, measure what changes"]);
    expect(traits.preferred_phrases).toEqual([]);
  });

  it("makes the next generation follow the learned voice", () => {
    // The writer edits what the engine really wrote: a word of the reference ("agenda" → "outline"), and a short
    // sentence of the engine's own, deleted.
    const seed = 3;
    const before = generateBuiltin(input(seed));
    expect(before.text).toMatch(/\bagenda\b/);
    // Learning keeps deleted phrases of up to 12 words; one without inner punctuation is matched as written.
    const opening = proseSentences(before.text).find((s) => tokens(s).length <= 12 && /^[\p{L} ]+\.$/u.test(s)) ?? "";
    expect(opening).not.toBe("");
    const edited = before.text.replace(/\bagenda\b/g, "outline").replace(`${opening} `, "");
    const result = analyzeEdit({ generated: before.text, finalized: edited, edit_seconds: 120 });
    expect(result.substitutions).toContainEqual(expect.objectContaining({ from: "agenda", to: "outline" }));
    const traits = foldAnalysis(emptyTraits(), result, 0);
    const after = generateBuiltin(input(seed, traits));
    expect(after.text).not.toMatch(/\bagenda\b/i);
    expect(after.text).toMatch(/\boutline\b/);
    expect(after.text).not.toContain(opening);
    // Same input and seed, same text.
    expect(generateBuiltin(input(seed, traits)).text).toBe(after.text);
  });

  it("scores readability with the Flesch formulas", () => {
    const r = readability("The cat sat on the mat. It was happy.");
    expect(r.sentences).toBe(2);
    expect(r.words).toBe(9);
    expect(r.flesch_reading_ease).toBeGreaterThan(90);
    expect(readability("").words).toBe(0);
  });
});

describe("analysis of a rewrite", () => {
  it("counts words instead of aligning them past MAX_EDITS, and still finds the substitutions of an edit", () => {
    const vocabulary = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split(
      " ",
    );
    const text = (seed: number, n: number) =>
      Array.from({ length: n }, (_, i) => vocabulary[(i * 7 + seed * 13 + ((i * i) % 11)) % vocabulary.length]).join(
        " ",
      );
    const generated = text(1, 3000);
    const rewritten = text(5, 2800);
    const result = analyzeEdit({ generated, finalized: rewritten, edit_seconds: 600 });
    expect(result.words_before).toBe(3000);
    expect(result.words_after).toBe(2800);
    expect(result.substitutions).toEqual([]);
    expect(result.removed_phrases).toEqual([]);
    expect(result.added_phrases).toEqual([]);
    // Kept, removed and added add up on both sides.
    const kept = result.words_before - result.words_removed;
    expect(result.words_after - result.words_added).toBe(kept);
    expect(kept).toBeGreaterThan(0);
    expect(result.retained_ratio).toBeCloseTo(kept / 3000, 2);

    // A rewrite in other words altogether: counted as such without a diff (certainEdits is past the bound).
    const other = text(2, 2000).replace(/[a-z]+/g, (w) => `${w}x`);
    expect(certainEdits(generated.split(" "), other.split(" "))).toBe(5000);
    const counted = analyzeEdit({ generated, finalized: other, edit_seconds: 600 });
    expect(counted).toMatchObject({ words_before: 3000, words_after: 2000, words_removed: 3000, words_added: 2000 });
    expect(counted.retained_ratio).toBe(0);
    expect(counted.substitutions).toEqual([]);

    // A light edit of a long text is still aligned word by word.
    const edited = `${generated} We utilize it.`.replace("We utilize it.", "We use it.");
    const light = analyzeEdit({ generated: `${generated} We utilize it.`, finalized: edited, edit_seconds: 60 });
    expect(light.substitutions).toEqual([{ from: "utilize", to: "use", count: 1 }]);
  });
});
