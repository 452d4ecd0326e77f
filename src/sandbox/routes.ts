/**
 * The sandbox's operations under /_sandbox/: outside the API (no credentials, never refused by the rate limit, in no
 * description of the API), and in the route table only in sandbox mode. Held by test/sandbox/journal.test.ts.
 */
import * as v from "valibot";
import { type RouteDef, route } from "../http/route.js";
import { described, intString } from "../http/schemas.js";
import type { RequestJournal } from "./journal.js";

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
