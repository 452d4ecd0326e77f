import { describe, expect, it } from "vitest";
import { FILLER_PHRASES, fillerIn } from "../../src/domain/filler.js";

describe("stock filler", () => {
  it("finds phrases case-insensitively, with either apostrophe, counted per occurrence", () => {
    expect(
      fillerIn([
        "In today’s fast-paced world, logs matter.",
        "in today's fast-paced world, again. It is worth noting that it's worth noting.",
      ]),
    ).toEqual([
      { phrase: "in today's fast-paced world", count: 2 },
      { phrase: "it is worth noting", count: 1 },
      { phrase: "it's worth noting", count: 1 },
    ]);
  });

  it("matches whole words only", () => {
    expect(fillerIn(["They restart smallholdings.", "A game-changers list."])).toEqual([]);
    expect(fillerIn(["Start small, then grow."])).toEqual([{ phrase: "start small", count: 1 }]);
  });

  it("fills a gap of a few words of any subject, within one sentence", () => {
    expect(fillerIn(["That is why decision logs keep coming up in reviews."])).toEqual([]);
    expect(fillerIn(["That is why 000 users keeps coming up in conversations."])).toEqual([
      { phrase: "that is why … keeps coming up", count: 1 },
    ]);
    expect(fillerIn(["The teams that do this well treat adopt as a habit, not a project."])).toEqual([
      { phrase: "treat … as a habit, not a project", count: 1 },
    ]);
    expect(fillerIn(["That is why. Logs keeps coming up."])).toEqual([]);
  });

  it("counts a connective as filler only where it opens a sentence", () => {
    expect(fillerIn(["Notably, the bill fell.", "The bill fell notably, by a third."])).toEqual([
      { phrase: "^notably,", count: 1 },
    ]);
  });

  // The stock sentences of the builtin writer before issue 29, as it wrote them (its phrases filled in).
  const STOCK = [
    "In today's fast-paced world, decision logs matters more than ever.",
    "Let's talk about decision logs.",
    "In today's fast-paced world, decision logs has become a priority for every team.",
    "Decision logs is now a practical concern for most organisations.",
    "In today's fast-paced world, decision logs is no longer optional.",
    "If decision logs is not on your list yet, it should be.",
    "In today's fast-paced world, decision logs deserves a clear explanation.",
    "Here is what you need to know about decision logs.",
    "Decision logs is having a moment, and for good reason.",
    "One thing stands out about engineering.",
    "Engineering deserves a closer look.",
    "Another part of the picture is managers.",
    "Teams can utilize this to move faster with less guesswork.",
    "This means you can utilize what you already have instead of starting from scratch.",
    "The practical upshot is fewer surprises and better decisions about decision logs.",
    "That is why 000 users keeps coming up in conversations about decision logs.",
    "Getting this right early saves effort later.",
    "Small changes here tend to compound over time.",
    "It is worth writing down what good looks like before changing anything.",
    "The teams that do this well treat adopt as a habit, not a project.",
    "None of this requires new tools; it requires a clear decision about priorities.",
    "A short review every few weeks keeps the approach honest.",
    "Measuring one or two outcomes is enough to see whether it works.",
    "The first attempt will not be perfect, and that is fine.",
    "Sharing what you learn makes the next round easier for everyone.",
    "Clarity here prevents the same discussion from happening twice.",
    "Start small, measure what changes, and build on what works.",
    "In short, decision logs comes down to engineering managers, going remote, engineering.",
    "Give it a try and let me know how it goes.",
    "Start today: every week without decision logs is a week of lost ground.",
    "Let's make decision logs happen together!",
  ];

  it("holds every stock sentence of the builtin writer before issue 29, so the scorer notices them", () => {
    expect(STOCK.filter((s) => fillerIn([s]).length === 0)).toEqual([]);
    expect(new Set(FILLER_PHRASES).size).toBe(FILLER_PHRASES.length);
  });
});
