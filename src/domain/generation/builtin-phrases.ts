/** The stock phrases the builtin engine writes with, by tone and by the part of a piece they fill. */

/** Openers by tone; "In today's fast-paced world" is the kind of stock phrase writers delete, and learning notices. */
export const OPENERS: Record<string, string[]> = {
  conversational: ["In today's fast-paced world, {topic} matters more than ever.", "Let's talk about {topic}."],
  professional: [
    "In today's fast-paced world, {topic} has become a priority for every team.",
    "{Topic} is now a practical concern for most organisations.",
  ],
  persuasive: [
    "In today's fast-paced world, {topic} is no longer optional.",
    "If {topic} is not on your list yet, it should be.",
  ],
  informative: [
    "In today's fast-paced world, {topic} deserves a clear explanation.",
    "Here is what you need to know about {topic}.",
  ],
  enthusiastic: [
    "In today's fast-paced world, {topic} is where the excitement is!",
    "{Topic} is having a moment, and for good reason.",
  ],
};

/** Leads of a point section, each naming the current key phrase. */
export const POINT_LEADS = [
  "One thing stands out about {kw}.",
  "Consider {kw}.",
  "{Kw} deserves a closer look.",
  "Then there is {kw}.",
  "Another part of the picture is {kw}.",
];

/** Sentences that carry a section when its facts run out; each is used at most once a piece. */
export const ELABORATIONS = [
  "Teams can utilize this to move faster with less guesswork.",
  "This means you can utilize what you already have instead of starting from scratch.",
  "The practical upshot is fewer surprises and better decisions about {topic}.",
  "That is why {kw} keeps coming up in conversations about {topic}.",
  "Getting this right early saves effort later.",
  "Small changes here tend to compound over time.",
  "It is worth writing down what good looks like before changing anything.",
  "The teams that do this well treat {kw} as a habit, not a project.",
  "None of this requires new tools; it requires a clear decision about priorities.",
  "A short review every few weeks keeps the approach honest.",
  "Measuring one or two outcomes is enough to see whether it works.",
  "The first attempt will not be perfect, and that is fine.",
  "Sharing what you learn makes the next round easier for everyone.",
  "Clarity here prevents the same discussion from happening twice.",
];

/** Leads of the steps of a steps section, in order (the last repeats). */
export const STEP_LEADS = [
  "Start with {kw}",
  "Then look at {kw}",
  "Next, review {kw}",
  "After that, revisit {kw}",
  "Finally, check {kw}",
];
/** Steps written when no fact is left for one. */
export const STEP_FALLBACKS = [
  "Decide what success with {topic} looks like and write it down.",
  "Pick one place to try it and agree on a date to review the results.",
  "Share the results and adjust before rolling it out further.",
  "Make the new approach the default, then revisit it next quarter.",
];

/** What may come before a fact (most often nothing). */
export const CONNECTIVES = ["", "", "In fact, ", "Notably, ", "What is more, ", "Importantly, "];

/** Calls to action by tone. */
export const CTAS: Record<string, string[]> = {
  conversational: ["Give it a try and let me know how it goes.", "Why not start with {topic} this week?"],
  professional: [
    "Contact our team to discuss how {topic} fits your plans.",
    "Start with one pilot project on {topic} and measure the results.",
  ],
  persuasive: [
    "Start today: every week without {topic} is a week of lost ground.",
    "Don't wait. Make {topic} part of your plan now.",
  ],
  informative: [
    "Use these points as a checklist the next time {topic} comes up.",
    "Read the sources above to go deeper into {topic}.",
  ],
  enthusiastic: ["Jump in and see what {topic} can do for you!", "Let's make {topic} happen together!"],
};
