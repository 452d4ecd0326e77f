import { describe, expect, it } from "vitest";
import { voiceCheck } from "../../../bench/lib/writing-figures.js";
import { generateBuiltin } from "../../../src/domain/generation/builtin.js";
import { tokens } from "../../../src/domain/generation/language.js";
import { isDangling, isFragment, proseSentences } from "../../../src/domain/writing-checks.js";
import {
  builtInTemplates,
  CONTEXT_MEMORY,
  DIRECTIONS,
  matrixInput,
  REFERENCE_CASES,
  VOICE_MEMORY,
  VOICE_RULES,
} from "../../fixtures/writing/matrix.js";

const templates = builtInTemplates();
const memories = [VOICE_MEMORY, CONTEXT_MEMORY];

describe("the builtin writer under the fixture voice memory", () => {
  it.each(templates.map((t) => [t.name, t] as const))("honours every rule in every %s", (_name, template) => {
    for (const d of DIRECTIONS)
      for (const refs of REFERENCE_CASES) {
        const out = generateBuiltin(matrixInput(template, d, refs, memories));
        const check = voiceCheck(out.text, VOICE_RULES);
        const long = proseSentences(out.text).filter((s) => tokens(s).length >= VOICE_RULES.sentenceWordsUnder);
        expect({ direction: d.direction, refs, ...check, long }).toEqual({
          direction: d.direction,
          refs,
          sentenceLength: true,
          noExclamation: true,
          noAvoided: true,
          addressesYou: true,
          contractions: true,
          all: true,
          long: [],
        });
      }
  });

  it("writes the same text for the same input and seed", () => {
    const input = () => matrixInput(templates[0], DIRECTIONS[0], "long", memories);
    expect(generateBuiltin(input()).text).toBe(generateBuiltin(input()).text);
  });

  it("says how many reference sentences it left out when the limit makes a text short", () => {
    const blog = templates.find((t) => t.format === "article") ?? templates[0];
    const out = generateBuiltin(matrixInput(blog, DIRECTIONS[0], "long", memories));
    expect(out.word_count).toBeLessThan(blog.target_words * 0.85);
    expect(out.warnings.join(" ")).toMatch(/\d+ reference sentences were left out: they run past .* limit of 11 words/);
  });

  it("writes a press release's quotation with its speaker on a line of their own", () => {
    const release = templates.find((t) => t.format === "release");
    if (!release) throw new Error("no press release template");
    const out = generateBuiltin(matrixInput(release, DIRECTIONS[2], "long", memories));
    expect(out.text).toMatch(/^“[^”]+”\n— \[Name\], \[Title\] at \[Company\]$/m);
  });

  it("keeps its own sentences whole: no fragment and no dangling sentence in the voiced texts", () => {
    const bad: string[] = [];
    for (const t of templates)
      for (const d of DIRECTIONS) {
        const out = generateBuiltin(matrixInput(t, d, "none", memories));
        bad.push(...proseSentences(out.text).filter((s) => isFragment(s) || isDangling(s)));
      }
    expect(bad).toEqual([]);
  });
});
