/** Inputs of the builtin writer's tests: the built-in templates, directions and small reference texts, inline. */
import type { GenerationInput } from "../../../src/domain/generation/builtin.js";
import type { Passage } from "../../../src/domain/generation/retrieval.js";
import { ingestText } from "../../../src/domain/text.js";

import type { Template } from "../../fixtures/writing/matrix.js";

/** The built-in templates and their type, from the writing matrix's fixtures (one reader of the migration). */
export { builtInTemplates, type Template } from "../../fixtures/writing/matrix.js";

/** Varied directions: an argument, a lesson, an announcement with details, a how-to with a number, a product. */
export const DIRECTIONS = [
  "Why engineering managers should adopt written decision logs when going remote",
  "Share a lesson from shipping our first product to 10,000 users",
  "Announce the new export feature: CSV and PDF exports for every plan from 3 March",
  "How to cut cloud costs by 30% without slowing releases",
  "Introduce the Stainless steel water bottle that keeps drinks cold for 24 hours",
];

/** A reference of about 340 words on decision logs. */
export const LOGS_REFERENCE = [
  "In February 2025 Halden Systems closed its office in Leeds and moved its 140 engineers to remote work. Within three months the engineering managers noticed that decisions were still being made, but nobody could say where. Priya Raman, who leads the platform group of 22 engineers, counted 31 decisions in one quarter that were revisited because the reasoning could not be found.",
  "A decision log is a short written record of one decision, kept where everyone can find it. Each entry names the decision, the options considered, the reasons and the people consulted. Entries are reviewed like code, through a pull request, with a review window of 24 hours so that every time zone has a working day to comment.",
  "The platform group tried decision logs for six weeks from June 2025. In those six weeks it wrote 47 entries. Decisions revisited because the reasoning was lost fell from 2.6 per week to 0.4 per week. The median time from a proposal to a decision rose from 1.5 days to 2 days at first, then fell back as people learned to write shorter entries.",
  "Managers also changed how they ran meetings. Tomasz Wójcik, who manages a data team of nine people, cut his recurring meetings from 11 hours a week to 6 hours a week. New engineers now read the last 30 entries of their team's log in their first week, and their managers rated them productive after a median of 7 weeks, against 11 weeks before the logs.",
  "Not every decision needs an entry. Decisions that can be undone within a day and that affect only the team making them stay out of the log. About 70 per cent of day-to-day choices fall under that threshold, so the logs stay short enough to read.",
].join("\n\n");

/** A reference of about 180 words on a water bottle. */
export const BOTTLE_REFERENCE = [
  "The Kestrel Everyday is a double-walled stainless steel water bottle that keeps drinks cold for 24 hours and hot for 12 hours. It holds 750 millilitres, weighs 340 grams empty and stands 26 centimetres tall.",
  "Kestrel tested the bottle in its Bristol laboratory at a room temperature of 22 degrees Celsius. Filled with water at 4 degrees and closed, the bottle held the water below 10 degrees for 24 hours. Filled with ice and water, ice was still present after 36 hours.",
  "The lid is made of recycled polypropylene and has no paper or rubber parts that trap smells. The bottle fits standard car cup holders and goes on sale on 1 April 2026 at a price of 32 pounds, with a five-year guarantee against dents that break the vacuum seal.",
].join("\n\n");

/** A reference's passages as a generation reads them, named by `title`. */
export function passagesOf(text: string, title: string, id = 1): Passage[] {
  return ingestText({ text, format: "markdown" }).passages.map((p) => ({
    reference_material_id: id,
    reference_title: title,
    text: p.text,
  }));
}

/** The input of one generation. */
export function inputOf(
  template: Template,
  direction: string,
  passages: Passage[],
  seed = 7,
  more: Partial<GenerationInput> = {},
): GenerationInput {
  return { template, direction, memories: [], passages, voice: null, seed, ...more };
}
