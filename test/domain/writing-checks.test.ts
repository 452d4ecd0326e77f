import { describe, expect, it } from "vitest";
import {
  directionCoverage,
  directionRepeats,
  directionWords,
  doubledWords,
  isDangling,
  isFragment,
  pastedRuns,
  proseSentences,
  repeatedPhrases,
  sentenceVariety,
  sharedSentences,
} from "../../src/domain/writing-checks.js";

describe("the defects an editor sees at once", () => {
  it("takes the prose sentences of Markdown, without headings, markers or a sign-off", () => {
    const text =
      "# Decision logs\n\nSubject: A note\n\nTeams lose decisions. Logs keep them.\n\n" +
      "- Each entry is short.\n1. Write it first.\n> Raman said it plainly.\n\nBest regards,\nThe team";
    expect(proseSentences(text)).toEqual([
      "Teams lose decisions.",
      "Logs keep them.",
      "Each entry is short.",
      "Write it first.",
      "Raman said it plainly.",
    ]);
  });

  it("finds words written twice in a row, case ignored, and not across punctuation", () => {
    expect(doubledWords("Why Why Engineering. The the team. That, that is fine. Bora Bora")).toEqual([
      "why why",
      "the the",
      "bora bora",
    ]);
    expect(doubledWords("He had had enough? No: no.")).toEqual(["had had"]);
  });

  it("calls a sentence without a verb a fragment, with or without the parse", () => {
    expect(isFragment("A year of remote engineering management.")).toBe(true);
    expect(isFragment("The numbers in one place.")).toBe(true);
    expect(isFragment("Halden moved its engineers home.")).toBe(false);
    // An auxiliary or a contraction settles it without parsing.
    expect(isFragment("The plan is short.")).toBe(false);
    expect(isFragment("It’s short.")).toBe(false);
  });

  it("finds sentences cut short on a function word", () => {
    expect(isDangling("Let's talk about why managers should adopt logs when.")).toBe(true);
    expect(isDangling("Our first product to.")).toBe(true);
    expect(isDangling("Managers adopt logs when they go remote.")).toBe(false);
  });

  it("measures a direction's content words in a text, numbers whole and stems compared", () => {
    const direction = "Share a lesson from shipping our first product to 10,000 users";
    expect(directionWords(direction)).toEqual(["lesson", "shipping", "first", "product", "10,000", "users"]);
    expect(directionCoverage(direction, "The lesson of shipping a first product to 10,000 users.")).toBe(1);
    expect(directionCoverage(direction, "Shipped our first products to 000 user")).toBeCloseTo(4 / 6);
    expect(directionCoverage("", "anything")).toBe(1);
  });

  it("shares sentences of one shape between texts of two directions", () => {
    const a = {
      direction: "cloud costs",
      text: "Here is what you need to know about cloud costs. Bills fell by a third.",
    };
    const b = {
      direction: "water bottles",
      text: "Here is what you need to know about water bottles. Steel keeps it cold.",
    };
    expect(sharedSentences(a, b)).toBe(0.5);
    expect(sharedSentences(a, { ...b, text: "Steel keeps it cold all day." })).toBe(0);
    // A form's sentence with placeholders to fill in is the same in every piece by design: not stock prose.
    const form = "It was founded in [year] and is based in [City].";
    expect(sharedSentences({ ...a, text: `${a.text} ${form}` }, { ...b, text: `${b.text} ${form}` })).toBe(0.5);
  });

  it("finds runs of eight or more words of a memory pasted into a text", () => {
    const memory = "Our readers are heads of engineering at companies of 50 to 500 people in Europe.";
    expect(pastedRuns(memory, "We write for heads of engineering at companies of 50 to 500 people.")).toHaveLength(3);
    expect(pastedRuns(memory, "We write for engineering heads at mid-sized European companies.")).toEqual([]);
  });
});

describe("repetition and variety", () => {
  it("finds repeated phrases as long as they run, never across a sentence boundary", () => {
    const sentences = [
      "Written decision logs when going remote help managers.",
      "Managers like written decision logs when going remote.",
      "Written decision logs keep the reasoning.",
      "Remote. Going on.",
    ];
    // Six repeated words each: alphabetical among equals.
    expect(repeatedPhrases(sentences)).toEqual([
      { phrase: "written decision logs", count: 3 },
      { phrase: "written decision logs when going remote", count: 2 },
    ]);
    // "ship weekly plans" and "weekly plans change" repeat only across the first two sentences' boundary.
    expect(
      repeatedPhrases(["Teams ship weekly.", "Plans change often.", "Teams ship weekly plans change often."]),
    ).toEqual([
      { phrase: "plans change often", count: 2 },
      { phrase: "teams ship weekly", count: 2 },
    ]);
  });

  it("leaves out repeated runs of function words", () => {
    expect(repeatedPhrases(["It is one of the best.", "This is one of the best."])).toEqual([
      { phrase: "is one of the best", count: 2 },
    ]);
    expect(repeatedPhrases(["And it was in the end.", "But it was in the end."])).toEqual([]);
  });

  it("counts each restatement of the direction once, however long it runs", () => {
    const direction = "Why engineering managers should adopt written decision logs when going remote";
    const text =
      "# Why Engineering Managers Should Adopt Written Decision Logs When\n\n" +
      "Let's talk about why engineering managers should adopt written decision logs when. " +
      "Managers should adopt written decision logs. Logs help.";
    expect(directionRepeats(direction, text)).toBe(3);
    expect(directionRepeats(direction, "Decision logs help remote managers.")).toBe(0);
    // A direction of fewer than three words is not looked for.
    expect(directionRepeats("Logs", "Logs logs logs.")).toBe(0);
  });

  it("measures the spread of sentence lengths and the most common opener", () => {
    const alike = sentenceVariety(["Teams write plans.", "Teams ship often.", "Teams read logs."]);
    expect(alike).toEqual({
      sentences: 3,
      average_words: 3,
      length_spread: 0,
      top_opener: { word: "teams", share: 1 },
    });
    const varied = sentenceVariety([
      "Short.",
      "This one runs on for quite a few more words than that.",
      "Then a middle one.",
    ]);
    expect(varied.length_spread).toBeGreaterThan(0.5);
    expect(varied.top_opener).toEqual({ word: "short", share: 0.333 });
    expect(sentenceVariety([])).toEqual({ sentences: 0, average_words: 0, length_spread: 0, top_opener: null });
  });
});
