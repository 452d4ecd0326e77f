/**
 * The sandbox's operations under /_sandbox/: outside the API (no credentials, never refused by the rate limit, in no
 * description of the API), and in the route table only in sandbox mode. Held by test/sandbox/journal.test.ts and
 * rules.test.ts, the clock's by clock.test.ts.
 */
import * as v from "valibot";
import { iso } from "../domain/clock.js";
import { ApiError, invalidInput, notFound } from "../domain/errors.js";
import { type RouteDef, route } from "../http/route.js";
import { described, intString } from "../http/schemas.js";
import { addDuration, isDuration, type SandboxClock } from "./clock.js";
import type { ClockJobs } from "./clock-jobs.js";
import { fixturesJsonSchema } from "./fixtures-schema.js";
import type { RequestJournal } from "./journal.js";
import { type FaultRules, RuleSchema } from "./rules.js";
import { type KnownStates, SNAPSHOTS_MAX } from "./states.js";

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
        if (!rules.remove(ctx.params.id))
          throw notFound("fault_rule_not_found", `No fault rule ${ctx.params.id}.`, { rule_id: ctx.params.id });
        return { status: 204 };
      },
    }),
  ];
}

/** A snapshot's name: a file name in `<data-dir>/sandbox` on every file system, never the start's (`.start`). */
const SnapshotName = described(
  v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "Letters, digits, `_`, `.` and `-`; 1-64.")),
  "The snapshot's name: letters, digits, `_`, `.`, `-` (not first), at most 64.",
);

/** The 404 of a snapshot that is not, naming it. */
function noSnapshot(name: string): ApiError {
  return notFound("snapshot_not_found", `No snapshot ${name}.`, { snapshot: name });
}

/**
 * The known states' operations (states.ts): reset to the start, save, list, restore and remove named snapshots. A
 * save under a name taken replaces that snapshot (a test's `beforeAll` saving its state again on a rerun).
 */
export function stateRoutes(states: KnownStates, reset: () => Promise<void>): RouteDef[] {
  const common = { tag: "Sandbox", stability: "outside", access: "public" } as const;
  const named = v.strictObject({ name: SnapshotName });
  return [
    route({
      ...common,
      method: "GET",
      path: "/_sandbox/fixtures.schema.json",
      operationId: "sandboxFixturesSchema",
      summary: "The JSON Schema of a `--fixtures` file (sandbox mode)",
      responses: { 200: { description: "docs/sandbox-fixtures.schema.json." } },
      handler: () => ({ body: fixturesJsonSchema() }),
    }),
    route({
      ...common,
      method: "POST",
      path: "/_sandbox/reset",
      operationId: "sandboxReset",
      summary: "Go back to the state the sandbox started from: data, journal, fault rules (sandbox mode)",
      responses: { 204: { description: "Reset." } },
      handler: async () => {
        await reset();
        return { status: 204 };
      },
    }),
    route({
      ...common,
      method: "POST",
      path: "/_sandbox/snapshots",
      operationId: "sandboxSaveSnapshot",
      summary: "Save the data as a named snapshot, replacing one of that name (sandbox mode)",
      body: named,
      created: (body: { name: string }) => `/_sandbox/snapshots/${body.name}`,
      responses: { 201: { description: "The snapshot: `name`, `created_at`, `size_bytes`." } },
      handler: async (ctx) => {
        const { name } = ctx.body;
        if (!states.has(name) && states.count >= SNAPSHOTS_MAX)
          throw invalidInput("body.name", `The sandbox keeps at most ${SNAPSHOTS_MAX} snapshots: delete one first.`);
        return { status: 201, body: await states.save(name) };
      },
    }),
    route({
      ...common,
      method: "GET",
      path: "/_sandbox/snapshots",
      operationId: "sandboxListSnapshots",
      summary: "The named snapshots, oldest first (sandbox mode)",
      responses: { 200: { description: "`{data: [...]}`." } },
      handler: () => ({ body: { data: states.list() } }),
    }),
    route({
      ...common,
      method: "POST",
      path: "/_sandbox/snapshots/{name}/restore",
      operationId: "sandboxRestoreSnapshot",
      summary: "Restore the data of a named snapshot; the journal and fault rules stay (sandbox mode)",
      params: named,
      responses: { 204: { description: "Restored." }, 404: { description: "No such snapshot." } },
      handler: async (ctx) => {
        if (!(await states.restore(ctx.params.name))) throw noSnapshot(ctx.params.name);
        return { status: 204 };
      },
    }),
    route({
      ...common,
      method: "DELETE",
      path: "/_sandbox/snapshots/{name}",
      operationId: "sandboxDeleteSnapshot",
      summary: "Remove a named snapshot (sandbox mode)",
      params: named,
      responses: { 204: { description: "Removed." }, 404: { description: "No such snapshot." } },
      handler: (ctx) => {
        if (!states.remove(ctx.params.name)) throw noSnapshot(ctx.params.name);
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
