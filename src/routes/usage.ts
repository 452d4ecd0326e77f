/**
 * GET /usage (DESIGN §6, beta, account-level: binding is ignored): the account's per-day counters and each API key's
 * share, over a range of UTC days, including what is counted but not yet written.
 */
import * as v from "valibot";
import { invalidInput } from "../domain/errors.js";
import { CALENDAR_DAY_PATTERN, isCalendarDay } from "../domain/planning.js";
import {
  addDays,
  DEFAULT_USAGE_DAYS,
  daysInRange,
  FIRST_DAY,
  MAX_USAGE_DAYS,
  USAGE_FIELDS,
  utcDay,
} from "../domain/usage.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { describedCheck, named } from "../http/schemas.js";
import { ACCOUNT_LEVEL, AUTH_ERRORS, INPUT_ERRORS } from "./common.js";

const Day = v.pipe(
  v.string(),
  describedCheck(isCalendarDay, "must be a date YYYY-MM-DD", {
    format: "date",
    pattern: CALENDAR_DAY_PATTERN,
  }),
  v.description("A UTC calendar day, YYYY-MM-DD."),
);

const UsageQuery = v.object({
  from: v.optional(
    v.pipe(Day, v.description("First day (inclusive); default: 29 days before `to`, at the earliest 0000-01-01.")),
  ),
  to: v.optional(v.pipe(Day, v.description("Last day (inclusive); default: today (UTC)."))),
});

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
/** What each counter counts. */
const COUNTED: Record<(typeof USAGE_FIELDS)[number], string> = {
  requests: "Authenticated requests answered, whatever their status (an MCP tool call is one).",
  generations: "Contents generated and stored (POST /api/v1/generate, streamed ones included).",
  words_generated: "Words of the texts generated (their word_count).",
  finalizations: "Contents finalized.",
  learning_analyses: "Learning analyses that succeeded (they run in the background, under no key).",
  images: "Images uploaded or generated.",
};
const Counts = Object.fromEntries(
  USAGE_FIELDS.map((f) => [f, v.pipe(Count, v.description(COUNTED[f]))]),
) as unknown as Record<(typeof USAGE_FIELDS)[number], typeof Count>;

const UsageResponse = named(
  "Usage",
  v.pipe(
    v.object({
      from: v.pipe(Day, v.description("The range's first day (inclusive).")),
      to: v.pipe(Day, v.description("The range's last day (inclusive).")),
      totals: v.pipe(
        v.object(Counts),
        v.description("The range's sums, including web-session requests and background learning analyses (no key)."),
      ),
      days: v.pipe(
        v.array(v.object({ day: v.pipe(Day, v.description("The UTC day these counts are of.")), ...Counts })),
        v.description("Every day of the range, oldest first."),
      ),
      keys: v.pipe(
        v.array(
          v.object({
            key_id: v.pipe(v.string(), v.description("The API key's id.")),
            name: v.pipe(
              v.nullable(v.string()),
              v.description("The key's name; null for a key since deleted with its workspace."),
            ),
            ...Counts,
          }),
        ),
        v.description("The API keys with usage in the range, busiest first."),
      ),
    }),
    v.description("The account's counters over a range of UTC days: totals, each day, and each API key's share."),
  ),
);

const USAGE_COUNTS = {
  requests: 42,
  generations: 3,
  words_generated: 2150,
  finalizations: 2,
  learning_analyses: 2,
  images: 1,
};

/** The usage route, registered in src/routes/index.ts. */
export const usageRoutes = [
  route({
    method: "GET",
    path: "/api/v1/usage",
    operationId: "getUsage",
    summary:
      "The account's usage per UTC day and per API key: requests, generations, words generated, finalizations, learning analyses, images (default: the last 30 days; at most 366)",
    description:
      "Reports the account's usage over a range of UTC days: requests, generations, words generated, " +
      "finalizations, learning analyses and images, as totals, per day (every day of the range, zeros included) " +
      "and per API key. Without from and to it covers the last 30 days up to today; a range is at most 366 days. " +
      "What was counted but not yet written is included. An invalid date, from after to, or a longer range is " +
      "400. It changes nothing. " +
      ACCOUNT_LEVEL,
    tag: "Account",
    stability: "beta",
    access: "any",
    query: UsageQuery,
    responses: {
      200: {
        description: "The usage over the range.",
        schema: UsageResponse,
        example: {
          from: "2026-12-01",
          to: "2026-12-01",
          totals: USAGE_COUNTS,
          days: [{ day: "2026-12-01", ...USAGE_COUNTS }],
          keys: [{ key_id: "key_H8C9kEL74gkCnvXw", name: "CI publisher", ...USAGE_COUNTS }],
        },
      },
      ...AUTH_ERRORS,
      400: INPUT_ERRORS[400],
    },
    async handler(ctx: Ctx<Record<string, string>, v.InferOutput<typeof UsageQuery>>) {
      const to = ctx.query.to ?? utcDay(ctx.services.clock.now());
      // The default range stops at the first day that can be written YYYY-MM-DD.
      const from =
        ctx.query.from ??
        (daysInRange(FIRST_DAY, to) < DEFAULT_USAGE_DAYS ? FIRST_DAY : addDays(to, 1 - DEFAULT_USAGE_DAYS));
      const span = daysInRange(from, to);
      if (span < 1) throw invalidInput("query.from", `from must be a day on or before to (${to})`);
      if (span > MAX_USAGE_DAYS)
        throw invalidInput("query.from", `from and to must span at most ${MAX_USAGE_DAYS} days (got ${span})`);
      // Rows a flush is writing are in neither place until it ends.
      await ctx.services.usage.settled();
      return { body: ctx.services.usage.report(ctx.account.id, from, to) };
    },
  }),
];
