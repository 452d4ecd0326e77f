/**
 * The sandbox's operations under /_sandbox/: outside the API (no credentials, never refused by the rate limit, in no
 * description of the API), and in the route table only in sandbox mode. Held by test/sandbox/journal.test.ts and
 * rules.test.ts, and the clock's by clock.test.ts.
 */
import * as v from "valibot";
import { iso } from "../domain/clock.js";
import { ApiError } from "../domain/errors.js";
import { type RouteDef, route } from "../http/route.js";
import { described, intString } from "../http/schemas.js";
import { addDuration, isDuration, type SandboxClock } from "./clock.js";
import type { ClockJobs } from "./clock-jobs.js";
import type { RequestJournal } from "./journal.js";
import { type FaultRules, RuleSchema } from "./rules.js";

/** The journal's filters: each optional, all of them together. */
const JournalQuery = v.strictObject({
  path: v.optional(described(v.pipe(v.string(), v.maxLength(2000)), "The path, `*` for any characters.")),
  method: v.optional(described(v.pipe(v.string(), v.regex(/^[A-Za-z]{1,10}$/)), "The method (any case).")),
  key_id: v.optional(described(v.pipe(v.string(), v.maxLength(100)), "The id of the key that called (key_…).")),
  status: v.optional(intString(100, 599, "The status answered.")),
});

/** The journal's operations: read it (filtered, newest first) and clear it. */
export function journalRoutes(journal: RequestJournal): RouteDef[] {
  return [
    route({
      method: "GET",
      path: "/_sandbox/requests",
      operationId: "sandboxListRequests",
      summary: "The requests the server received, newest first (sandbox mode)",
      tag: "Sandbox",
      stability: "outside",
      access: "public",
      query: JournalQuery,
      responses: { 200: { description: "The journal's entries that pass the filters: `{data: [...]}`." } },
      handler: (ctx) => ({ body: { data: journal.list(ctx.query) } }),
    }),
    route({
      method: "DELETE",
      path: "/_sandbox/requests",
      operationId: "sandboxClearRequests",
      summary: "Forget every request of the journal (sandbox mode)",
      tag: "Sandbox",
      stability: "outside",
      access: "public",
      responses: { 204: { description: "Cleared." } },
      handler: () => {
        journal.clear();
        return { status: 204 };
      },
    }),
  ];
}

/** The fault rules' operations: list, add, clear, remove one. */
export function faultRoutes(rules: FaultRules): RouteDef[] {
  const common = { tag: "Sandbox", stability: "outside", access: "public" } as const;
  return [
    route({
      ...common,
      method: "GET",
      path: "/_sandbox/faults",
      operationId: "sandboxListFaults",
      summary: "The fault rules, in the order they are tried (sandbox mode)",
      responses: { 200: { description: "`{data: [...]}`." } },
      handler: () => ({ body: { data: rules.list() } }),
    }),
    route({
      ...common,
      method: "POST",
      path: "/_sandbox/faults",
      operationId: "sandboxAddFault",
      summary: "Add a fault rule: what it matches, what it answers, how often (sandbox mode)",
      body: RuleSchema,
      responses: { 201: { description: "The rule, with its id." } },
      handler: (ctx) => ({ status: 201, body: rules.add(ctx.body) }),
    }),
    route({
      ...common,
      method: "DELETE",
      path: "/_sandbox/faults",
      operationId: "sandboxClearFaults",
      summary: "Remove every fault rule (sandbox mode)",
      responses: { 204: { description: "Cleared." } },
      handler: () => {
        rules.clear();
        return { status: 204 };
      },
    }),
    route({
      ...common,
      method: "DELETE",
      path: "/_sandbox/faults/{id}",
      operationId: "sandboxRemoveFault",
      summary: "Remove one fault rule (sandbox mode)",
      params: v.strictObject({ id: v.pipe(v.string(), v.maxLength(100)) }),
      responses: { 204: { description: "Removed." }, 404: { description: "No such rule." } },
      handler: (ctx) => {
        // No code of the API's error table is a sandbox rule's: the path names nothing, as a route that is not.
        if (!rules.remove(ctx.params.id)) throw new ApiError("route_not_found", `No fault rule ${ctx.params.id}.`);
        return { status: 204 };
      },
    }),
  ];
}

/** The test clock's body: advance by a duration or set an instant (not both), and freeze or let it run. */
const ClockBody = v.pipe(
  v.strictObject({
    advance: v.optional(
      described(
        v.pipe(v.string(), v.maxLength(100), v.check(isDuration, "must be an ISO 8601 duration (P31D, PT61S)")),
        "How far to move the clock forward: an ISO 8601 duration (`P31D`, `PT61S`, `P1M`).",
      ),
    ),
    set: v.optional(
      described(
        v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 date-time")),
        "The instant to move the clock to.",
      ),
    ),
    freeze: v.optional(described(v.boolean(), "true stops the clock where it is; false lets it run on from there.")),
  }),
  v.check((b) => b.advance === undefined || b.set === undefined, "give advance or set, not both"),
);

/** The test clock's state, as GET and POST answer it. */
function clockView(clock: SandboxClock) {
  return { now: iso(clock.now()), offset_ms: clock.offset(), frozen: clock.frozen };
}

/** The test clock's operations: read it; advance, set, freeze it (running the periodic jobs it passes). */
export function clockRoutes(clock: SandboxClock, jobs: ClockJobs): RouteDef[] {
  const common = { tag: "Sandbox", stability: "outside", access: "public" } as const;
  return [
    route({
      ...common,
      method: "GET",
      path: "/_sandbox/clock",
      operationId: "sandboxGetClock",
      summary: "The server's clock: its time, how far ahead of real time, whether frozen (sandbox mode)",
      responses: { 200: { description: "`{now, offset_ms, frozen}`." } },
      handler: () => ({ body: clockView(clock) }),
    }),
    route({
      ...common,
      method: "POST",
      path: "/_sandbox/clock",
      operationId: "sandboxMoveClock",
      summary: "Advance or set the server's clock, or freeze it (sandbox mode)",
      body: ClockBody,
      responses: { 200: { description: "`{now, offset_ms, frozen, jobs_run}`." } },
      handler: async (ctx) => {
        const from = clock.now();
        const to = targetOf(ctx.body, from);
        if (to < from)
          throw new ApiError("validation_failed", "The test clock does not move backward.", {
            issues: [{ path: "body.set", message: `is before the clock's time, ${iso(from)}` }],
          });
        clock.set(to);
        if (ctx.body.freeze !== undefined) clock.freeze(ctx.body.freeze);
        const jobsRun = to > from ? await jobs.runDue(from, to) : [];
        return { body: { ...clockView(clock), jobs_run: jobsRun } };
      },
    }),
  ];
}

/** Where a body moves the clock from `from`. */
function targetOf(body: { advance?: string; set?: string }, from: number): number {
  if (body.advance !== undefined) return addDuration(from, body.advance);
  if (body.set !== undefined) return Date.parse(body.set);
  return from;
}
