/** Contents: create (draft), read, list, update, delete, versions, planning (spec §4.3) and publication. */
import * as v from "valibot";
import type { VersionRow } from "../db/contents.js";
import { contentFilter } from "../domain/content-lists.js";
import { type CallerRows, contentNotFound, findContent, serverToday } from "../domain/contents.js";
import { CALENDAR_DAY_PATTERN, isCalendarDay, PLANNED_DATE_PATTERN, plannedDay } from "../domain/planning.js";
import { checkStorage, textBytes } from "../domain/storage.js";
import { requireTemplate } from "../domain/templates.js";
import { contentView, versionView } from "../domain/views/contents.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  describedCheck,
  Integer,
  intString,
  maxChars,
  named,
  PageQuery,
  pageOf,
  RecordWorkspaceId,
  Timestamp,
  WorkspaceIdField,
  WorkspaceQuery,
} from "../http/schemas.js";
import {
  AUTH_ERRORS,
  CONFLICT,
  decodeCursor,
  encodeCursor,
  INPUT_ERRORS,
  NOT_FOUND,
  notACursor,
  page,
  pageInTurns,
} from "./common.js";

const STATUSES = ["draft", "generated", "finalized", "published"] as const;

/** The content record: a piece of writing from draft to publication (named Content in the description). */
export const ContentSchema = named(
  "Content",
  v.object({
    content_id: described(Integer, "The record's id; never given to another record, even after it is deleted."),
    workspace_id: RecordWorkspaceId,
    template_id: described(v.nullable(Integer), "The template it was created or last generated from; null for none."),
    title: described(v.string(), "The title (at most 300 characters)."),
    content: described(v.string(), "The current text: the last generation, or the draft's or an edit's text."),
    finalized_content: described(v.nullable(v.string()), "The text as finalized; null until it is finalized."),
    status: described(
      v.picklist(STATUSES),
      "draft (created by POST /contents), generated, finalized (POST /finalizeContent), published (POST " +
        "/contents/{contentId}/publication).",
    ),
    scheduled_publish_at: described(
      v.nullable(v.string()),
      "The planned date or date-time as it was sent to PATCH /contents/{contentId}/schedule; null when unplanned.",
    ),
    scheduled_publish_day: described(
      v.nullable(v.string()),
      "The planned day (YYYY-MM-DD): the date part of scheduled_publish_at as sent; null when unplanned.",
    ),
    is_overdue: described(
      v.boolean(),
      "True when the planned day is before today (in the server's time zone) and the content is not published.",
    ),
    published_at: described(v.nullable(Timestamp), "When it was published; null until then."),
    version_count: described(Integer, "How many versions (generations and the finalization) it has."),
    created_at: described(Timestamp, "When it was created."),
    updated_at: described(Timestamp, "When it last changed."),
  }),
);

/** A content record as the examples show it: a generated piece of workspace ws_1 planned for no day. */
export const CONTENT_EXAMPLE = {
  content_id: 42,
  workspace_id: "ws_4fT9sK2mQ8zL1xWc",
  template_id: 1,
  title: "Solar panels on flat roofs",
  content: "Flat roofs take solar panels well: ballast mounts hold them without drilling through the membrane.",
  finalized_content: null,
  status: "generated",
  scheduled_publish_at: null,
  scheduled_publish_day: null,
  is_overdue: false,
  published_at: null,
  version_count: 1,
  created_at: "2026-03-02T09:15:00.000Z",
  updated_at: "2026-03-02T09:15:04.000Z",
};

const Day = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD"),
  describedCheck(isCalendarDay, "must be a date YYYY-MM-DD", { format: "date", pattern: CALENDAR_DAY_PATTERN }),
);
const Title = v.pipe(v.string(), maxChars(300), v.description("The title, at most 300 characters."));
const Text = v.pipe(v.string(), maxChars(500_000), v.description("The text, at most 500,000 characters."));
const ContentParams = v.object({ contentId: intString(1, Number.MAX_SAFE_INTEGER, "The content's id (content_id).") });

const ListQuery = v.object({
  ...PageQuery,
  ...WorkspaceQuery,
  status: v.optional(described(v.picklist(STATUSES), "Only contents in this status.")),
  planned_from: v.optional(described(Day, "Only contents planned on this day (YYYY-MM-DD) or later.")),
  planned_to: v.optional(described(Day, "Only contents planned on this day (YYYY-MM-DD) or earlier.")),
  overdue: v.optional(
    described(v.picklist(["true", "false"]), "true: only overdue contents; false: only those not overdue."),
  ),
});

const CreateBody = v.object({
  title: v.optional(Title, ""),
  content: v.optional(Text, ""),
  template_id: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("A template to generate it from later (GET /templates)."),
    ),
  ),
  workspace_id: v.optional(WorkspaceIdField),
});

const UpdateBody = v.object({
  title: v.optional(described(Title, "A new title (any status but published).")),
  content: v.optional(described(Text, "A new text (draft or generated only).")),
  workspace_id: v.optional(WorkspaceIdField),
});

const ScheduleBody = v.object({
  scheduled_publish_at: v.nullable(
    v.pipe(
      v.string(),
      maxChars(64),
      describedCheck(
        (s: string) => plannedDay(s) !== null,
        "must be an ISO 8601 date (YYYY-MM-DD) or date-time (with Z, an offset ±HH:MM, ±HHMM or ±HH, or local), on a " +
          "real calendar day and time",
        { pattern: PLANNED_DATE_PATTERN },
      ),
      v.description(
        "An ISO 8601 date (2030-01-31) or date-time: with Z (2030-01-31T10:00:00Z), an offset ±HH:MM, ±HHMM or " +
          "±HH (2030-01-31T10:00:00+02:00, +0200, +02) or local, without a zone (2030-01-31T10:00:00, " +
          "2030-01-31T10:00:00.250); T, t or a space between date and time; seconds and fractions of a second " +
          "(after a full stop or a comma) are optional; the basic format (20300131) and week or ordinal dates are " +
          "not taken. Years " +
          "0000-9999. A leap second (:60) only at 23:59:60 UTC (2030-12-31T23:59:60Z, 2031-01-01T01:59:60+02:00), " +
          "never in a local value. The planned day is the YYYY-MM-DD portion as sent (no time-zone conversion); " +
          "null removes the planned date.",
      ),
    ),
  ),
  workspace_id: v.optional(WorkspaceIdField),
});

const VersionSchema = named(
  "ContentVersion",
  v.object({
    version: described(Integer, "The version's number, from 1, in the order they were made."),
    kind: described(v.picklist(["generated", "finalized"]), "A generation, or the finalization."),
    title: described(v.string(), "The title this version had."),
    text: described(v.string(), "The text as generated or finalized."),
    model: described(v.nullable(v.string()), "The engine that generated it; null for the finalization."),
    details: described(
      v.unknown(),
      "What else the version keeps (a generation's sources and word count, a finalization's editing time), or null.",
    ),
    created_at: described(Timestamp, "When the version was made."),
  }),
);

/** The caller as plain rows, for the checks a writer-thread operation makes (domain/contents.ts CallerRows). */
export function callerRows(ctx: Ctx): CallerRows {
  return { account: ctx.account, workspace: ctx.workspace, boundWorkspaceId: ctx.principal.boundWorkspaceId };
}

/** Today in the server's time zone. */
export function today(ctx: Ctx): string {
  return serverToday(ctx.services.config.timezone, ctx.services.clock.now());
}

const now = (ctx: Ctx) => new Date(ctx.services.clock.now()).toISOString();

const byIdDocs = { ...AUTH_ERRORS, ...NOT_FOUND("Content") };

/** The content routes: drafts, reading, listing, editing, versions, planning and publication. */
export const contentRoutes = [
  route({
    method: "GET",
    path: "/api/v1/contents",
    operationId: "listContents",
    summary: "List contents of a workspace, oldest first (filters: status, planned-day range, overdue)",
    description:
      "Lists the content records of one workspace in the order they were created, a page at a time (limit, then " +
      "next_cursor as cursor). Filter by status, by planned day (planned_from and planned_to, inclusive; a range " +
      "that ends before it starts is refused) or by overdue to build an editorial calendar. Changes nothing.",
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "required",
    query: ListQuery,
    responses: {
      200: { description: "A page of contents.", schema: pageOf(ContentSchema) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    async handler(ctx: Ctx<unknown, v.InferOutput<typeof ListQuery>>) {
      const day = today(ctx);
      const q = ctx.query;
      const start = decodeCursor<number>(q.cursor, "number") ?? 0;
      // The page's ids in one query, one more for has_more (a planned-day range costs its matches once, not once a
      // row); the rows, of up to 500,000 characters each, one at a time in turns (common.ts pageInTurns), with no
      // statement open between turns (db/contents.ts list reads the ids whole).
      const rows = ctx.services.store.contents.list(
        contentFilter(ctx.workspace.id, q, day, { afterId: start, limit: q.limit + 1 }),
      );
      const next = () => {
        const row = rows.next();
        return row.done ? undefined : row.value;
      };
      try {
        return {
          body: await pageInTurns(
            next,
            q.limit,
            (r) => encodeCursor(r.id),
            (r) => contentView(r, day),
          ),
        };
      } finally {
        rows.return?.();
      }
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/contents",
    operationId: "createContent",
    created: (body: { content_id: number }) => `/api/v1/contents/${body.content_id}`,
    summary: "Create a draft",
    description:
      "Creates a content record in draft status from your own title and text, without generating anything: use it " +
      "to keep a piece written elsewhere, then generate into it (POST /generate with its content_id) or edit it. " +
      "A template_id that is not a built-in template nor one of the account's is refused with 404.",
    bodyExamples: {
      draft: { title: "Solar panels on flat roofs", content: "Notes: ballast mounts, no drilling, check the load." },
      fromTemplate: { title: "Roof checklist", template_id: 1 },
    },
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "required",
    body: CreateBody,
    responses: {
      201: {
        description: "The draft.",
        schema: ContentSchema,
        example: { ...CONTENT_EXAMPLE, template_id: null, status: "draft", version_count: 0 },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Template"),
    },
    async handler(ctx: Ctx<unknown, unknown, v.InferOutput<typeof CreateBody>>) {
      if (ctx.body.template_id !== undefined) requireTemplate(ctx.services.store, ctx.account.id, ctx.body.template_id);
      // On the writer thread (domain/writer.ts): a draft's text is up to a megabyte, and a write on this thread would
      // wait, blocking every request, for the writer's transaction in progress. The body's strings are already as
      // stored (http/body.ts: a lone surrogate is U+FFFD).
      const { title, content } = ctx.body;
      checkStorage(ctx.services.store, ctx.account, textBytes(title, content));
      const row = await ctx.services.writer.run("draftCreate", {
        accountId: ctx.account.id,
        workspaceId: ctx.workspace.id,
        templateId: ctx.body.template_id ?? null,
        title,
        content,
        now: now(ctx),
      });
      return { status: 201, body: contentView({ ...row, content }, today(ctx)) };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/contents/{contentId}",
    operationId: "getContent",
    summary: "Read one content record: current text, status, planned day, version count",
    description:
      "Reads one content record: its current text, its finalized text once finalized, its status, its planned day " +
      "and whether it is overdue. Changes nothing. A record of another account, or not in the workspace named, is 404.",
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    responses: {
      200: { description: "The content.", schema: ContentSchema, example: CONTENT_EXAMPLE },
      ...byIdDocs,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<{ contentId: number }>) {
      return { body: contentView(findContent(ctx.services.store, ctx, ctx.params.contentId), today(ctx)) };
    },
  }),
  route({
    method: "PATCH",
    path: "/api/v1/contents/{contentId}",
    operationId: "updateContent",
    summary: "Change the title of unpublished content, or the text of a draft or generated piece",
    description:
      "Edits a content record in place: a new title while it is not published, a new text while it is a draft or " +
      "generated. Fields left out are kept, and a field equal to what the record has changes nothing, so a record " +
      "read and written back whole is accepted. A new text for finalized or published content, or a new title for " +
      "published content, is refused with 409 invalid_status. Versions are not added: only generations and the " +
      "finalization make versions.",
    bodyExamples: {
      retitle: { title: "Solar panels on flat roofs: what to check first" },
      edit: { content: "Flat roofs take solar panels well. Ballast mounts hold them without drilling." },
    },
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    body: UpdateBody,
    responses: {
      200: { description: "The content.", schema: ContentSchema, example: CONTENT_EXAMPLE },
      ...byIdDocs,
      ...INPUT_ERRORS,
      ...CONFLICT(
        "The text of finalized or published content is fixed, and published content is frozen whole: its title too " +
          "(invalid_status).",
      ),
    },
    async handler(ctx: Ctx<{ contentId: number }, unknown, v.InferOutput<typeof UpdateBody>>) {
      // On the writer thread, as a new draft (above).
      const content = ctx.body.content;
      checkStorage(ctx.services.store, ctx.account, textBytes(ctx.body.title, content));
      const saved = await ctx.services.writer.run("contentEdit", {
        ...callerRows(ctx),
        id: ctx.params.contentId,
        title: ctx.body.title,
        content,
        now: now(ctx),
      });
      return { body: contentView(content === undefined ? saved : { ...saved, content }, today(ctx)) };
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/contents/{contentId}",
    operationId: "deleteContent",
    summary: "Delete a content record with its versions",
    description:
      "Deletes a content record in any status, with its versions and conversions, and takes it out of the knowledge " +
      "graph. Its id is never given to another record. A learning job it started that has not run is dropped.",
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    responses: {
      200: {
        description: "Deleted.",
        schema: v.object({
          content_id: described(Integer, "The deleted content's id."),
          deleted: described(v.literal(true), "Always true."),
        }),
      },
      ...byIdDocs,
      ...INPUT_ERRORS,
    },
    async handler(ctx: Ctx<{ contentId: number }>) {
      const row = findContent(ctx.services.store, ctx, ctx.params.contentId);
      // On the writer thread: the versions go with the content, and a content generated hundreds of times by the
      // on-prem model (500,000 characters each) frees many pages, which would hold this thread.
      if (!(await ctx.services.writer.run("contentRemove", { id: row.id }))) throw contentNotFound(row.id);
      ctx.services.graph.touch(row.workspace_id);
      return { body: { content_id: row.id, deleted: true } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/contents/{contentId}/versions",
    operationId: "listContentVersions",
    summary: "Every generation and the finalization of a content record, oldest first",
    description:
      "Lists what was generated into a content record and what was finalized, oldest first, a page at a time: each " +
      "version keeps its title and text as made, so a writer can compare them or go back to an earlier generation. " +
      "A draft's own text and edits made with PATCH are not versions. Changes nothing.",
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    query: v.object({ ...PageQuery, ...WorkspaceQuery }),
    responses: {
      200: { description: "The versions, oldest first.", schema: pageOf(VersionSchema) },
      ...byIdDocs,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<{ contentId: number }, { limit: number; cursor?: string }>) {
      const row = findContent(ctx.services.store, ctx, ctx.params.contentId);
      // The cursor is the last version given, 8 digits (as issued since the list was paged in memory).
      const after = decodeCursor<string>(ctx.query.cursor, "string");
      if (after !== undefined && !/^\d{1,8}$/.test(after)) throw notACursor();
      const versions = ctx.services.store.contents.versions(row.id, Number(after ?? 0), ctx.query.limit + 1);
      const cursorOf = (ver: VersionRow) => encodeCursor(String(ver.version).padStart(8, "0"));
      return { body: page(versions, ctx.query.limit, cursorOf, versionView) };
    },
  }),
  route({
    method: "PATCH",
    path: "/api/v1/contents/{contentId}/schedule",
    operationId: "scheduleContent",
    summary: "Set, change or clear the editorial planned date; never changes the status nor publishes",
    description:
      "Plans the day a content record is to be published, for the editorial calendar (GET /contents with " +
      "planned_from and planned_to, and is_overdue): a date or a date-time, kept as sent, whose date part is the " +
      "planned day (no time-zone conversion). null removes the plan. Planning never publishes and never changes the " +
      "status: publish with POST /contents/{contentId}/publication. Published content keeps the date it has: another " +
      "is refused with 409 invalid_status.",
    bodyExamples: {
      day: { scheduled_publish_at: "2030-01-31" },
      dateTime: { scheduled_publish_at: "2030-01-31T10:00:00+02:00" },
      clear: { scheduled_publish_at: null },
    },
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    body: ScheduleBody,
    responses: {
      200: {
        description: "The content as confirmed by the server.",
        schema: ContentSchema,
        example: { ...CONTENT_EXAMPLE, scheduled_publish_at: "2030-01-31", scheduled_publish_day: "2030-01-31" },
      },
      ...byIdDocs,
      ...INPUT_ERRORS,
      ...CONFLICT("Published content cannot be planned anew: a date other than the one it has (invalid_status)."),
    },
    async handler(ctx: Ctx<{ contentId: number }, unknown, v.InferOutput<typeof ScheduleBody>>) {
      const at = ctx.body.scheduled_publish_at;
      // On the writer thread, in order with the record's other writes (domain/writer.ts).
      const saved = await ctx.services.writer.run("contentSchedule", {
        ...callerRows(ctx),
        id: ctx.params.contentId,
        at,
        day: at === null ? null : plannedDay(at),
        now: now(ctx),
      });
      return { body: contentView(saved, today(ctx)) };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/contents/{contentId}/publication",
    operationId: "publishContent",
    summary: "The authoritative publication event: finalized content becomes published",
    description:
      "Records that a finalized piece was published: its status becomes published and published_at is set; from " +
      "then on it is frozen (no new title, text or planned day). Call it when the piece goes out, whatever the planned " +
      "day says. Only finalized content can be published: any other status is refused with 409 invalid_status. The " +
      "body is optional.",
    bodyExamples: { empty: {} },
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    body: v.optional(v.object({ workspace_id: v.optional(WorkspaceIdField) })),
    responses: {
      200: {
        description: "The published content.",
        schema: ContentSchema,
        example: {
          ...CONTENT_EXAMPLE,
          finalized_content: CONTENT_EXAMPLE.content,
          status: "published",
          published_at: "2026-03-03T08:00:00.000Z",
          version_count: 2,
        },
      },
      ...byIdDocs,
      ...INPUT_ERRORS,
      ...CONFLICT("Only finalized content can be published (invalid_status)."),
    },
    async handler(ctx: Ctx<{ contentId: number }>) {
      const saved = await ctx.services.writer.run("contentPublish", {
        ...callerRows(ctx),
        id: ctx.params.contentId,
        now: now(ctx),
      });
      return { body: contentView(saved, today(ctx)) };
    },
  }),
];
