/**
 * The builtin writer's frames for the end of a piece and its set forms: calls to action, closing questions, a
 * press release's quotation, the steps written without material, and the leads that attribute a
 * reference passage to its source. Slots as in phrases-body.ts.
 */
import type { Frames } from "./frames.js";

/** A closing call to action. */
export const CTAS: Frames = {
  claim: [
    "Try it with one team for a month, then decide with what you saw.",
    "Pick one decision this week and put the idea to the test.",
    "Share this with one person who should hear the case, and ask what they think.",
    "Start with {subject} on one project and compare the results after a month.",
    "Bring the argument to your next planning meeting and see where it lands.",
    "If you have evidence the other way, send it; the case should survive it.",
  ],
  howto: [
    "Pick the first step and do it this week.",
    "Start with the first step today, and measure before you change anything else.",
    "Save this for the day you start on {subject}.",
    "Try the steps on one small case first, then widen them.",
    "Book an hour this week to start; the first step needs no more.",
    "Send this to whoever on your team will work on {subject} with you.",
  ],
  announce: [
    "Try {subject} today and tell us what you think.",
    "See {subject} for yourself: [URL].",
    "Find out more about {subject} at [URL].",
    "{Subject} {be} ready when you are; give it a try.",
    "Get started with {subject} at [URL].",
    "Reply with your questions about {subject}, and we will answer each one.",
  ],
  lesson: [
    "Take the lesson that fits your team and try it on your next launch.",
    "If you are about to launch, write down what you expect, and compare afterwards.",
    "Borrow whichever lesson fits, and tell us how it goes.",
    "Share the lesson with the team that launches next.",
    "Keep notes on your own launch; they will be worth more than this post.",
  ],
  topic: [
    "Start with one small change and see what it does.",
    "Use the points above as a checklist the next time {subject} come{s} up.",
    "Pick the one point that fits your situation and act on it this week.",
    "Read the sources above to go deeper into {subject}.",
    "Share this with someone who is planning {subject}.",
    "Write down your next step on {subject} before you close this page.",
  ],
};

/** A closing question that invites replies (a LinkedIn post, a thread). */
export const QUESTIONS: Frames = {
  claim: [
    "Do you agree with the case for {subject}?",
    "Has your own experience with {subject} matched this?",
    "What would it take for your team to act on this?",
    "Where has this held true for you, and where has it not?",
    "What is the strongest argument against it?",
  ],
  howto: [
    "How would you go about {subject}?",
    "What has worked for you in {subject}?",
    "Which step would you try first?",
    "What did I miss?",
    "Which of these steps has worked for your team?",
  ],
  announce: [
    "What would you use {subject} for first?",
    "Which part of {subject} matters most to you?",
    "What should we add to {subject} next?",
    "How would {subject} fit into your week?",
  ],
  lesson: [
    "What did your own first launch teach you?",
    "Which lesson would you add?",
    "What would you have done differently?",
    "Has a launch ever taught you something similar?",
  ],
  topic: [
    "What has your experience with {subject} been?",
    "Where do you start with {subject}?",
    "What would you add about {subject}?",
    "What is the hardest part of {subject} for you?",
  ],
};

/** A spokesperson's words in a press release (placeholders stand for the person). */
export const QUOTES: Frames = {
  announce: [
    "We built {subject} because our customers asked for it, and we will keep improving it with them.",
    "{Subject} {be} the result of a year of listening to the people who use our work every day.",
    "Our aim with {subject} is simple: less effort for the people who rely on us.",
    "We are proud of {subject}, and prouder of the customers who shaped the work.",
    "Every part of {subject} came from a conversation with a customer.",
    "Customers told us what they needed, and {subject} {be} our answer.",
  ],
  claim: [
    "We have seen what {subject} can do ourselves.",
    "{Subject} {be} a simple idea, and it works.",
    "The evidence convinced us, and we think it will convince others too.",
    "We did not expect results this clear.",
    "Our experience with {subject} is plain: it pays off.",
  ],
  howto: [
    "We wrote this guide because so many teams ask us about {subject}.",
    "Teams ask us about {subject} every week; this is our answer.",
    "None of these steps is hard on its own, and together they add up.",
    "We tried most of the wrong ways first, so others can skip them.",
  ],
  lesson: [
    "We would rather share what {subject} taught us than pretend it went to plan.",
    "We got a lot wrong along the way, and we are better for it.",
    "The hardest lessons were the most useful ones.",
    "Every team we know has a story like this; this one is ours.",
  ],
  topic: [
    "We hope this helps anyone working on {subject}.",
    "{Subject} {be} something our team thinks about every day.",
    "There is more to {subject} than most people expect, and the details are worth it.",
    "We wanted to put the facts about {subject} in one place.",
  ],
  // Short enough for a voice memory's sentence limit.
  any: ["We're proud of {short}.", "We've learned a lot from {short}.", "We built {short} with our customers."],
};

/** A customer's words in a case study (placeholders stand for the person). */
export const CUSTOMER_QUOTES: Frames = {
  any: [
    "We can see the difference every week, and so can our customers.",
    "The change was smaller than we feared and the results bigger than we hoped.",
    "It changed how the whole team works, not just the numbers.",
    "We would make the same decision again tomorrow.",
  ],
};

/** Steps written when there is no reference material for them: the first, middle and last step's variants. */
export const STEP_FALLBACKS: Frames[] = [
  {
    howto: [
      "Write down where things stand today, so you can see later what {subject} changed.",
      "Measure the starting point before you start on {subject}.",
      "Agree with your team on the number that will say whether it worked.",
    ],
    announce: [
      "Sign up or sign in at [URL].",
      "Open your account settings at [URL].",
      "Find {subject} in your account.",
    ],
  },
  {
    howto: [
      "Choose the one change you expect to matter most and make it first.",
      "Make one change at a time, so you know which one worked.",
      "Try the change on one small team or service before the rest.",
    ],
    announce: [
      "Turn on {subject} for your team.",
      "Set up {subject} in a few clicks.",
      "Try {subject} on your own work.",
    ],
  },
  {
    howto: [
      "Check the result against what you wrote down, and keep what worked.",
      "Compare the numbers after a month and decide what to keep.",
      "Share what changed with the team, then widen what worked.",
    ],
    announce: [
      "Share what you make with your team.",
      "Tell us what you think of {subject}.",
      "Invite your team to use it.",
    ],
  },
];

/**
 * The leads that attribute a reference passage's sentence to its source ({source} is its title; {s} the verb's
 * ending, none after a title that reads as a plural, such as "Field notes").
 */
export const ATTRIBUTIONS = [
  "According to {source}, ",
  "As {source} put{s} it, ",
  "{source} observe{s} that ",
  "{source} report{s} that ",
  "In the words of {source}, ",
  "{source} point{s} out that ",
];
