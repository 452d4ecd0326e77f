/**
 * GET /usage (DESIGN §6, beta, account-level: binding is ignored): the account's per-day counters and each API key's
 * share, over a range of UTC days, including what is counted but not yet written.
 */
import * as v from "valibot";
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
import { invalidInput } from "../http/errors.js";
import { route } from "../http/route.js";
import { describedCheck } from "../http/schemas.js";
import { AUTH_ERRORS, INPUT_ERRORS } from "./common.js";

const Day = v.pipe(
  v.string(),
  describedCheck(isCalendarDay, "Expected a calendar date YYYY-MM-DD.", {
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
const Counts = Object.fromEntries(USAGE_FIELDS.map((f) => [f, Count])) as Record<
  (typeof USAGE_FIELDS)[number],
  typeof Count
>;

const UsageResponse = v.object({
  from: Day,
  to: Day,
  totals: v.pipe(
    v.object(Counts),
    v.description("The range's sums, including web-session requests and background learning analyses (no key)."),
  ),
  days: v.pipe(v.array(v.object({ day: Day, ...Counts })), v.description("Every day of the range, oldest first.")),
  keys: v.pipe(
    v.array(v.object({ key_id: v.string(), name: v.nullable(v.string()), ...Counts })),
    v.description("The API keys with usage in the range, busiest first."),
  ),
});

/** The usage route, registered in src/http/routes.ts. */
export const usageRoutes = [
  route({
    method: "GET",
    path: "/api/v1/usage",
    operationId: "getUsage",
    summary:
      "The account's usage per UTC day and per API key: requests, generations, words generated, finalizations, learning analyses, images (default: the last 30 days; at most 366)",
    tag: "Account",
    stability: "beta",
    access: "any",
    query: UsageQuery,
    responses: {
      200: { description: "The usage over the range.", schema: UsageResponse },
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
      if (span < 1) throw invalidInput("query.from", `Expected a day on or before to (${to}).`);
      if (span > MAX_USAGE_DAYS)
        throw invalidInput("query.from", `The range covers ${span} days; at most ${MAX_USAGE_DAYS} are allowed.`);
      // Rows a flush is writing are in neither place until it ends.
      await ctx.services.usage.settled();
      return { body: ctx.services.usage.report(ctx.account.id, from, to) };
    },
  }),
];
