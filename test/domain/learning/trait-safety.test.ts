/**
 * A trait applied to a later draft never produces a doubled word, a fragment or a broken sentence: every trait the
 * analysis takes from a set of ordinary edits, and the junk an older analysis learned, applied to sample drafts the
 * way generation applies them, leaves sentences that writing-checks.ts finds whole.
 */
import { describe, expect, it } from "vitest";
import { simulateEdit } from "../../../bench/lib/writing-figures.js";
import { type GenerationInput, generateBuiltin } from "../../../src/domain/generation/builtin.js";
import {
  applySubstitutions,
  emptyTraits,
  fitSentenceLength,
  isOnlyAvoided,
  removeAvoided,
  type VoiceTraits,
} from "../../../src/domain/generation/voice.js";
import { analyzeEdit } from "../../../src/domain/learning/analyze.js";
import { foldAnalysis } from "../../../src/domain/learning/fold.js";
import { splitSentences } from "../../../src/domain/text.js";
import { doubledWords, isDangling, isFragment, proseSentences } from "../../../src/domain/writing-checks.js";
import { builtInTemplates, DIRECTIONS, type Direction, matrixInput } from "../../fixtures/writing/matrix.js";

/** Ordinary edits: (generated, finalized). */
const EDITS: [string, string][] = [
  [
    "In today's fast-paced world, teams utilize planning. We utilize reviews every week, and we utilize written agendas.",
    "Teams use planning. We use reviews every week. We use written agendas.",
  ],
  [
    "# Why Why Engineering Managers Should Adopt Written Decision Logs When Matters Now\n\nLet's talk about Why engineering managers should adopt written decision logs when. Consider adopt. Teams that keep a decision log spend less time in meetings.",
    "# Why Engineering Managers Should Adopt a Written Decision Log When Going Remote\n\nLet's talk about why engineering managers should adopt written decision logs when teams go remote. Teams that keep a decision log spend less time in meetings.",
  ],
  [
    "Our tool helps teams plan their week. The tool keeps a record of every decision. Start small, measure what changes.",
    "Our platform helps teams plan their week. The platform keeps a record of every decision.",
  ],
  [
    "Technicians install the panels in a day. Our technicians are certified. It is important to note that the warranty lasts ten years.",
    "Installers install the panels in a day. Our installers are certified. The warranty lasts ten years.",
  ],
  [
    "Needless to say, the release ships on Monday. Customers can leverage the new export feature right away.",
    "The release ships on Monday. Customers can use the new export feature right away. In short, it saves an hour a week.",
  ],
  [
    "We use AI daily in planning. It helps the team stay aligned across time zones.",
    "We use generative artificial intelligence daily in planning. It helps the team stay aligned across time zones.",
  ],
];

/** Drafts a later generation could write, the traits' words in every position: start, end, beside themselves. */
const DRAFTS = [
  "In today's fast-paced world, teams utilize planning to ship sooner. Teams utilize the tool every day.",
  "The platform tool helps remote teams decide. Our tool is the tool that teams utilize.",
  "Consider adopt. Teams that keep a decision log spend less time in meetings.",
  "Technicians arrive at nine. An expert technicians team installs the panels. Call our technicians.",
  "Needless to say, customers leverage the export. It is important to note that the warranty lasts ten years.",
  "Start small, measure what changes. We use AI daily, and it helps the team stay aligned across time zones, which keeps every decision on record for the whole company.",
  "Let's talk about why engineering managers should adopt written decision logs when teams go remote.",
  "1. Utilize the weekly checklist.\n2. Consider adopt.\n3. Share the tool with everyone.",
];

/** Junk an analysis before sentence alignment learned from the edit, still stored in old profiles. */
const LEGACY: VoiceTraits = {
  ...emptyTraits(),
  substitutions: [
    { from: "logs when", to: "log", count: 1 },
    { from: "the", to: "a", count: 3 },
    { from: "tool", to: "tool for", count: 1 },
  ],
  avoided_phrases: [
    { phrase: "managers should adopt written", count: 1 },
    { phrase: "teams", count: 1 },
  ],
  preferred_phrases: [{ phrase: "Teams Going remote Start a", count: 1 }],
  target_sentence_words: 8,
};

/** A draft as generation polishes it (builtin.ts finishPiece): sentences dropped, trimmed, split, substituted. */
function polish(draft: string, traits: VoiceTraits): string {
  return draft
    .split("\n")
    .map((line) => {
      const marker = /^\d+\.\s+/.exec(line)?.[0] ?? "";
      if (marker) return applySubstitutions(removeAvoided(line, traits), traits);
      return splitSentences(line)
        .filter((s) => !isOnlyAvoided(s, traits))
        .map((s) => removeAvoided(s, traits))
        .flatMap((s) => fitSentenceLength(s, traits))
        .map((s) => applySubstitutions(s, traits))
        .join(" ");
    })
    .filter((line) => line.trim() !== "" && !/^\d+\.\s*$/.test(line))
    .join("\n");
}

/** The defects writing-checks.ts finds in a text. */
function defects(text: string): string[] {
  const sentences = proseSentences(text);
  return [
    ...doubledWords(text).map((d) => `doubled: ${d}`),
    ...sentences.filter(isFragment).map((s) => `fragment: ${s}`),
    ...sentences.filter(isDangling).map((s) => `dangling: ${s}`),
  ];
}

function learnedFrom(edits: [string, string][]): VoiceTraits {
  return edits.reduce(
    (traits, [generated, finalized], i) =>
      foldAnalysis(traits, analyzeEdit({ generated, finalized, edit_seconds: 60 }), i, { contentId: i + 1 }),
    emptyTraits(),
  );
}

describe("traits applied to later drafts", () => {
  it("the drafts are whole to begin with", () => {
    // ("Consider adopt." has a verb, if not the right form: the checks let it pass, the writers delete it.)
    for (const d of DRAFTS) expect(defects(d), d).toEqual([]);
  });

  it("every trait the analysis takes from the edits leaves every draft whole", () => {
    const all = learnedFrom(EDITS);
    expect(all.substitutions.map((s) => `${s.from}→${s.to}`).sort()).toEqual(
      [
        "ai→generative artificial intelligence",
        "leverage→use",
        "technicians→installers",
        "tool→platform",
        "utilize→use",
      ].sort(),
    );
    expect(all.avoided_phrases.map((p) => p.phrase).sort()).toEqual(
      ["Consider adopt", "In today's fast-paced world", "Needless to say", "Start small, measure what changes"].sort(),
    );
    const each = EDITS.map((e) => learnedFrom([e]));
    for (const traits of [all, ...each])
      for (const draft of DRAFTS) {
        const out = polish(draft, { ...traits, target_sentence_words: 8 });
        expect(defects(out), `${draft}\n→ ${out}`).toEqual([]);
      }
  });

  it("applies them where they belong", () => {
    const all = learnedFrom(EDITS);
    expect(polish(DRAFTS[0], all)).toBe("Teams use planning to ship sooner. Teams use the platform every day.");
    expect(polish(DRAFTS[2], all)).toBe("Teams that keep a decision log spend less time in meetings.");
    // "The platform tool": the substitution would double a word there, and is left out only there.
    expect(polish(DRAFTS[1], all)).toBe(
      "The platform tool helps remote teams decide. Our platform is the platform that teams use.",
    );
    // The article agrees with the replacement.
    expect(polish(DRAFTS[3], all)).toContain("An expert installers team");
    expect(
      applySubstitutions("An expert joins.", {
        ...emptyTraits(),
        substitutions: [{ from: "expert", to: "specialist", count: 1 }],
      }),
    ).toBe("A specialist joins.");
  });

  it("the junk an older analysis stored changes no draft into a broken one", () => {
    for (const draft of DRAFTS) {
      const out = polish(draft, LEGACY);
      expect(defects(out), `${draft}\n→ ${out}`).toEqual([]);
    }
    // Neither the clause-cutting substitution, nor a phrase from the middle of a clause, is applied.
    expect(polish(DRAFTS[6], LEGACY)).toBe(DRAFTS[6]);
  });
});

/** The blog post template's input on a direction of the writing matrix, with its long reference. */
const blogPost = builtInTemplates()[0];
const input = (d: Direction, seed: number, voice: VoiceTraits | null): GenerationInput => ({
  ...matrixInput(blogPost, d, "long", [], voice),
  seed,
});

describe("a learning round on generated drafts", () => {
  it.each(DIRECTIONS.slice(0, 3).map((d) => [d.direction, d] as const))(
    "never adds a defect to the next generation: %s",
    (_, direction) => {
      let learned = 0;
      for (const seed of [1, 2, 3]) {
        const draft = generateBuiltin(input(direction, seed, null));
        const before = draft.text;
        // The writing benchmark's ordinary edit: the title in sentence case, a sentence deleted, a word replaced.
        const edited = simulateEdit(draft, direction.direction);
        const result = analyzeEdit({ generated: before, finalized: edited, edit_seconds: 60 });
        const traits = foldAnalysis(emptyTraits(), result, 0, { contentId: seed });
        const after = generateBuiltin(input(direction, seed, traits)).text;
        expect(defects(after).length, `${before}\n---\n${after}`).toBeLessThanOrEqual(defects(before).length);
        for (const d of doubledWords(after)) expect(doubledWords(before)).toContain(d);
        learned += traits.substitutions.length + traits.avoided_phrases.length;
      }
      // The round learned something to apply.
      expect(learned).toBeGreaterThan(0);
    },
  );
});

describe("evidence in application", () => {
  it("a profile that learned from many edits does not apply what a single edit showed", () => {
    const traits: VoiceTraits = {
      ...emptyTraits(),
      substitutions: [
        { from: "utilize", to: "use", count: 9, samples: 6 },
        { from: "leverage", to: "exploit", count: 1, samples: 1 },
      ],
      avoided_phrases: [{ phrase: "Needless to say", count: 1, samples: 1 }],
    };
    expect(applySubstitutions("We utilize and leverage it.", traits)).toBe("We use and leverage it.");
    // Avoided phrases hold no mature entry: the one seen once applies.
    expect(removeAvoided("Needless to say, the release ships on Monday.", traits)).toBe("The release ships on Monday.");
    const young = { ...traits, substitutions: [{ from: "leverage", to: "exploit", count: 1, samples: 1 }] };
    expect(applySubstitutions("We leverage it.", young)).toBe("We exploit it.");
  });
});
