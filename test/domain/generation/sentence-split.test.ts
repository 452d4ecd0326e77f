import { describe, expect, it } from "vitest";
import { sentenceWords, splitToLimit } from "../../../src/domain/generation/sentence-split.js";
import { isDangling, isFragment } from "../../../src/domain/writing-checks.js";

/** Every piece a sentence of its own, within the limit. */
function expectSentences(pieces: string[], max: number): void {
  for (const s of pieces) {
    expect(sentenceWords(s), s).toBeLessThanOrEqual(max);
    expect(isFragment(s), s).toBe(false);
    expect(isDangling(s), s).toBe(false);
  }
}

describe("splitToLimit", () => {
  it("gives a name's who-clause a sentence of its own and names the subject again", () => {
    const { sentences, whole } = splitToLimit(
      "Priya Raman, who leads the platform group of 22 engineers, counted 31 decisions last quarter.",
      11,
    );
    expect(sentences).toEqual([
      "Priya Raman leads the platform group of 22 engineers.",
      "Priya Raman counted 31 decisions last quarter.",
    ]);
    expect(whole).toBe(true);
  });

  it("states a title set off after a name as a sentence", () => {
    const { sentences } = splitToLimit("Samuel Okafor, our designer, moved bank connection to the second week.", 9);
    expect(sentences).toEqual([
      "Samuel Okafor is our designer.",
      "Samuel Okafor moved bank connection to the second week.",
    ]);
    expectSentences(sentences, 9);
  });

  it("repeats a short subject when the second half of an 'and' has none", () => {
    const { sentences } = splitToLimit(
      "Halden Systems closed its office in Leeds, and moved its 140 engineers to remote work.",
      11,
    );
    expect(sentences).toEqual([
      "Halden Systems closed its office in Leeds.",
      "Halden Systems moved its 140 engineers to remote work.",
    ]);
  });

  it("repeats the name that ends a leading phrase rather than guessing a pronoun", () => {
    const { sentences } = splitToLimit(
      "In February 2025 Halden Systems closed its office in Leeds and moved its 140 engineers to remote work.",
      11,
    );
    expect(sentences).toEqual([
      "In February 2025 Halden Systems closed its office in Leeds.",
      "Halden Systems moved its 140 engineers to remote work.",
    ]);
  });

  it("keeps a passive's auxiliary for a second participle", () => {
    const { sentences } = splitToLimit(
      "The choice was taken on a video call with four people, and reopened two weeks later by a fifth engineer.",
      11,
    );
    expect(sentences).toEqual([
      "The choice was taken on a video call with four people.",
      "The choice was reopened two weeks later by a fifth engineer.",
    ]);
  });

  it("opens a 'which' clause with 'This' and a 'because' clause with 'This is because'", () => {
    expect(
      splitToLimit("The team wrote every decision down, which cut repeated meetings by half.", 9).sentences,
    ).toEqual(["The team wrote every decision down.", "This cut repeated meetings by half."]);
    expect(
      splitToLimit("Decisions were reopened every week because nobody could find the reasoning.", 8).sentences,
    ).toEqual(["Decisions were reopened every week.", "This is because nobody could find the reasoning."]);
  });

  it("keeps numbers and names exact and counts words as the length rule does", () => {
    expect(sentenceWords("It reached 10,000 users.")).toBe(5);
    const { sentences } = splitToLimit(
      "Fernhill Labs reached 10,000 active users on 14 November 2025, and the team grew to eleven people.",
      11,
    );
    expect(sentences.join(" ")).toContain("10,000 active users on 14 November 2025");
    expect(sentences.join(" ")).toContain("Fernhill Labs");
    expectSentences(sentences, 11);
  });

  it("leaves a long sentence with no joint whole and says so", () => {
    const s = "Within three months the engineering managers noticed a pattern they had not seen in the office.";
    expect(splitToLimit(s, 11)).toEqual({ sentences: [s], whole: false });
  });
});
