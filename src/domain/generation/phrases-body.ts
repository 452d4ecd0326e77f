/**
 * The builtin writer's frames for the body of a piece: openings, context, the leads of points and examples. Each
 * frame names its slots ({subject}, {claim}, {action}, {details}, {about}, {audience}, {be}, {have}; a capital
 * first letter capitalises the value), and is used only when the direction fills every slot it names. Frames are
 * grouped by the direction's angle, so a why-piece argues, a how-to guides and an announcement announces.
 */
import type { Frames } from "./frames.js";

/**
 * A line after the opening for a voice memory that asks to address the reader as "you" or to use contractions:
 * short, so that it keeps a sentence limit, and naming the subject's core, so that two pieces do not share it.
 */
export const READER_LINES: Frames = {
  any: [
    "Here's what you should know about {short}.",
    "Here's what {short} means for you.",
    "You don't need long to read about {short}.",
    "Here's why you should care about {short}.",
    "Here's what your team can take from {short}.",
    "Here's what you can expect from {short}.",
  ],
};

/** Opening sentences of a piece. */
export const HOOKS: Frames = {
  claim: [
    "Here is the argument in one line: {claim}.",
    "The short version is that {claim}.",
    "Most people agree with this in principle, and few act on it: {claim}.",
    "This piece makes one case, and makes it plainly: {claim}.",
    "It sounds obvious once it is said out loud: {claim}.",
    "There is a good case that {claim}, and the evidence below makes it.",
    "Ask around and you will hear it often enough: {claim}.",
    "The question is not whether {claim}, but what it takes to get there.",
  ],
  howto: [
    "You can {action}, and it takes fewer changes than most people expect.",
    "Here is how to {action}, one step at a time.",
    "The goal is simple to state: {action}.",
    "If you need to {action}, start here.",
    "Most teams that try to {action} stall at the same places; here is how to get past them.",
    "Here is a practical route to {subject}.",
    "By the end of this, you will know how to {action}.",
    "There is a reliable way to {action}, and it starts with knowing where you stand.",
  ],
  announce: [
    "{Subject} {be} here.",
    "Meet {subject}.",
    "Today we are introducing {subject}.",
    "{Subject} {be} now available.",
    "We are glad to announce {subject}.",
    "Something new has arrived: {subject}.",
    "We built {subject} for the people who asked for it.",
    "There is news this week: {subject}.",
  ],
  lesson: [
    "{Subject} taught us more than any plan did.",
    "Here is what {subject} taught us.",
    "We learned one lesson the hard way from {subject}.",
    "Looking back on {subject}, one lesson stands out.",
    "Nobody warned us about the biggest lesson of {subject}.",
    "We made plenty of mistakes in {subject}, and one of them is worth sharing.",
    "There is one thing we would tell anyone about {subject}.",
    "The most useful lesson from {subject} was not the one we expected.",
  ],
  topic: [
    "{Subject} {be} worth getting right.",
    "This piece looks at {subject}.",
    "Here is what is worth knowing about {subject}.",
    "{Subject} {be} easier to plan than most people think.",
    "Plenty has been written about {subject}; this piece keeps to what the sources show.",
    "Getting {subject} right starts with a few facts.",
    "{Subject} {have} a reputation for being hard, and it need not be.",
    "If {subject} {be} on your list, the notes below will help.",
  ],
};

/** A second opening sentence, when the piece has an audience. */
export const AUDIENCE_LINES: Frames = {
  any: [
    "This is written for {audience}.",
    "It matters most to {audience}.",
    "For {audience}, the stakes are practical.",
    "If you are among the {audience} this concerns, read on.",
    "The notes below are for {audience} in particular.",
    "{Short} matter{s} most to {audience}.",
    "For {audience}, {short} {be} practical.",
    "{Short} {be} a question for {audience}.",
  ],
};

/** The first sentence of a context (background) section. */
export const CONTEXTS: Frames = {
  claim: [
    "Some background explains the case for {subject}.",
    "To see why {subject} matter{s}, start with the situation today.",
    "The reasons are worth laying out before the advice.",
    "The case rests on what the evidence shows, so start there.",
    "It helps to look at what happens without {subject} first.",
    "The background is short, and it matters.",
  ],
  howto: [
    "A little background first, so the steps make sense.",
    "Before the steps, here is where most teams begin.",
    "Knowing why this is hard makes {subject} easier.",
    "Most attempts at {subject} fail for predictable reasons.",
    "Start with an honest look at the situation today.",
  ],
  announce: [
    "Here is the background to {subject}.",
    "{Subject} answer{s} a need we kept hearing about.",
    "The reasons behind {subject} are simple.",
    "Some context on why {subject} exist{s}.",
    "We did not build {subject} in a vacuum.",
  ],
  lesson: [
    "First, the situation we were in.",
    "Some context on how {subject} went.",
    "Our story began well before the launch.",
    "It helps to know where we started.",
    "Here is what was at stake.",
  ],
  topic: [
    "Some background on {subject} helps.",
    "To make sense of {subject}, start with the facts.",
    "The context around {subject} explains most of the advice.",
    "A few facts frame {subject}.",
    "Here is the situation {subject} sit{s} in.",
  ],
};

/** The first sentence of a point section; used at most once a piece. */
export const POINTS: Frames = {
  claim: [
    "The evidence deserves a close look.",
    "The details make the case stronger.",
    "There is also a practical side.",
    "Practice bears this out.",
    "The objections deserve an answer too.",
    "The numbers tell the same story.",
    "What happened next is telling.",
  ],
  howto: [
    "A few details decide whether this works.",
    "This is the part most people skip.",
    "The specifics matter here.",
    "Measure as you go.",
    "Here is what that looks like in practice.",
    "The common mistakes are predictable.",
  ],
  announce: [
    "Here is what {subject} do{es}.",
    "The details matter.",
    "What changes for you is straightforward.",
    "A few specifics are worth knowing.",
    "Here is who benefits most.",
    "The questions people ask first have short answers.",
  ],
  lesson: [
    "What surprised us most was the small stuff.",
    "The numbers tell part of the story.",
    "This part hurt, and it taught us the most.",
    "Here is what changed our minds.",
    "The lesson hides in the details.",
    "What happened next mattered more.",
  ],
  topic: [
    "Start with what matters most.",
    "The practical side comes next.",
    "A few details make the difference.",
    "The trade-offs deserve a look.",
    "The specifics are worth knowing.",
    "Here is what the sources show.",
  ],
};

/** The lead of an example section, before its first fact. */
export const EXAMPLES: Frames = {
  any: [
    "Take one case.",
    "A concrete case makes this clearer.",
    "Here is how it looks in practice.",
    "One example shows the pattern.",
    "Consider a real case.",
    "The specifics help.",
  ],
};

/** The lead of a summary section (a recap or takeaways). */
export const SUMMARIES: Frames = {
  claim: [
    "So the case for {subject} holds.",
    "The evidence for {subject} is consistent.",
    "Put together, the evidence favours {subject}.",
    "That is the case for {subject}, in brief.",
  ],
  howto: [
    "Those are the steps for {subject}.",
    "In short, {subject} takes a handful of steps.",
    "That is the whole method for {subject}.",
    "Follow the steps above, and {subject} becomes routine.",
  ],
  announce: [
    "In short: {subject} {be} ready.",
    "{Subject} {be} available now.",
    "That is {subject} in brief.",
    "That is the news: {subject} {be} ready for you.",
  ],
  lesson: [
    "That is what {subject} taught us.",
    "Those are the lessons of {subject}.",
    "In short, {subject} changed how we work.",
    "The lessons of {subject} still guide what we do.",
  ],
  topic: [
    "That is {subject} in brief.",
    "In short, {subject} reward{s} a little planning.",
    "Those are the facts that matter for {subject}.",
    "So {subject} come{s} down to a few decisions.",
  ],
};
