/**
 * The sandbox's operations under /_sandbox/: outside the API (no credentials, never refused by the rate limit, in no
 * description of the API), and in the route table only in sandbox mode. Held by test/sandbox/journal.test.ts and
 * rules.test.ts.
 */
import * as v from "valibot";
import { notFound } from "../domain/errors.js";
import { type RouteDef, route } from "../http/route.js";
import { described, intString } from "../http/schemas.js";
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
        if (!rules.remove(ctx.params.id))
          throw notFound("fault_rule_not_found", `No fault rule ${ctx.params.id}.`, { rule_id: ctx.params.id });
        return { status: 204 };
      },
    }),
  ];
}
