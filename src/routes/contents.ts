/** Contents: create (draft), read, list, update, delete, versions, planning (spec §4.3) and publication. */
import * as v from "valibot";
import type { ContentStatus, VersionRow } from "../db/contents.js";
import { type CallerRows, contentNotFound, contentView, findContent, serverToday } from "../domain/contents.js";
import { CALENDAR_DAY_PATTERN, isCalendarDay, PLANNED_DATE_PATTERN, plannedDay } from "../domain/planning.js";
import type { Ctx } from "../http/context.js";
import { ApiError, invalidInput } from "../http/errors.js";
import { route } from "../http/route.js";
import {
  describedCheck,
  Integer,
  intString,
  maxChars,
  PageQuery,
  pageOf,
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
} from "./common.js";

const STATUSES = ["draft", "generated", "finalized", "published"] as const;

/** DESIGN §9's content record. */
export const ContentSchema = v.object({
  content_id: Integer,
  workspace_id: v.string(),
  template_id: v.nullable(Integer),
  title: v.string(),
  content: v.string(),
  finalized_content: v.nullable(v.string()),
  status: v.picklist(STATUSES),
  scheduled_publish_at: v.nullable(v.string()),
  scheduled_publish_day: v.nullable(v.string()),
  is_overdue: v.boolean(),
  published_at: v.nullable(Timestamp),
  version_count: Integer,
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Day = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, "Expected YYYY-MM-DD."),
  describedCheck(isCalendarDay, "Not a calendar date.", { format: "date", pattern: CALENDAR_DAY_PATTERN }),
);
const Title = v.pipe(v.string(), maxChars(300));
const Text = v.pipe(v.string(), maxChars(500_000));
const ContentParams = v.object({ contentId: intString() });

const ListQuery = v.object({
  ...PageQuery,
  ...WorkspaceQuery,
  status: v.optional(v.picklist(STATUSES)),
  planned_from: v.optional(Day),
  planned_to: v.optional(Day),
  overdue: v.optional(v.picklist(["true", "false"])),
});

const CreateBody = v.object({
  title: v.optional(Title, ""),
  content: v.optional(Text, ""),
  template_id: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  workspace_id: v.optional(WorkspaceIdField),
});

const UpdateBody = v.object({
  title: v.optional(Title),
  content: v.optional(Text),
  workspace_id: v.optional(WorkspaceIdField),
});

const ScheduleBody = v.object({
  scheduled_publish_at: v.nullable(
    v.pipe(
      v.string(),
      maxChars(64),
      describedCheck(
        (s: string) => plannedDay(s) !== null,
        "Expected an ISO 8601 date (YYYY-MM-DD) or date-time (with Z, an offset ±HH:MM, ±HHMM or ±HH, or local), on a real " +
          "calendar day and time.",
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

const VersionSchema = v.object({
  version: Integer,
  kind: v.picklist(["generated", "finalized"]),
  title: v.string(),
  text: v.string(),
  model: v.nullable(v.string()),
  details: v.unknown(),
  created_at: Timestamp,
});

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

export const contentRoutes = [
  route({
    method: "GET",
    path: "/api/v1/contents",
    operationId: "listContents",
    summary: "List contents of a workspace, oldest first (filters: status, planned-day range, overdue)",
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
    handler(ctx: Ctx<unknown, v.InferOutput<typeof ListQuery>>) {
      const day = today(ctx);
      const q = ctx.query;
      // An empty range is a mistake in the request, as it is for /usage (a 200 with no data hid it).
      if (q.planned_from && q.planned_to && q.planned_from > q.planned_to)
        throw invalidInput("query.planned_from", `Expected a day on or before planned_to (${q.planned_to}).`);
      const rows = ctx.services.store.contents.list({
        workspaceId: ctx.workspace.id,
        status: q.status as ContentStatus | undefined,
        plannedFrom: q.planned_from,
        plannedTo: q.planned_to,
        overdueBefore: q.overdue === "true" ? day : undefined,
        notOverdueOn: q.overdue === "false" ? day : undefined,
        afterId: decodeCursor<number>(q.cursor, "number") ?? 0,
        limit: q.limit + 1,
      });
      return {
        body: page(
          rows,
          q.limit,
          (r) => encodeCursor(r.id),
          (r) => contentView(r, day),
        ),
      };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/contents",
    operationId: "createContent",
    created: (body: { content_id: number }) => `/api/v1/contents/${body.content_id}`,
    summary: "Create a draft",
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "required",
    body: CreateBody,
    responses: {
      201: { description: "The draft.", schema: ContentSchema },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Template"),
    },
    async handler(ctx: Ctx<unknown, unknown, v.InferOutput<typeof CreateBody>>) {
      const store = ctx.services.store;
      if (ctx.body.template_id !== undefined) {
        const t = store.templates.byId(ctx.body.template_id);
        if (!t || (t.account_id !== null && t.account_id !== ctx.account.id))
          throw new ApiError("template_not_found", `Template not found: ${ctx.body.template_id}.`, {
            missing_ids: [ctx.body.template_id],
          });
      }
      // On the writer thread (domain/writer.ts): a draft's text is up to a megabyte, whose write here waited,
      // blocking every request, for the writer's transaction in progress. The body's strings are already as stored
      // (http/body.ts: a lone surrogate is U+FFFD).
      const { title, content } = ctx.body;
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
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    responses: { 200: { description: "The content.", schema: ContentSchema }, ...byIdDocs, ...INPUT_ERRORS },
    handler(ctx: Ctx<{ contentId: number }>) {
      return { body: contentView(findContent(ctx.services.store, ctx, ctx.params.contentId), today(ctx)) };
    },
  }),
  route({
    method: "PATCH",
    path: "/api/v1/contents/{contentId}",
    operationId: "updateContent",
    summary: "Change the title of unpublished content, or the text of a draft or generated piece",
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    body: UpdateBody,
    responses: {
      200: { description: "The content.", schema: ContentSchema },
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
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    responses: {
      200: { description: "Deleted.", schema: v.object({ content_id: Integer, deleted: v.literal(true) }) },
      ...byIdDocs,
      ...INPUT_ERRORS,
    },
    async handler(ctx: Ctx<{ contentId: number }>) {
      const row = findContent(ctx.services.store, ctx, ctx.params.contentId);
      // On the writer thread: the versions go with the content, and a content generated hundreds of times by the
      // on-prem model (500,000 characters each) took the HTTP thread's time for every page they freed.
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
      const view = (ver: VersionRow) => ({
        version: ver.version,
        kind: ver.kind,
        title: ver.title,
        text: ver.text,
        model: ver.model,
        details: ver.details ? JSON.parse(ver.details) : null,
        created_at: ver.created_at,
      });
      const cursorOf = (ver: VersionRow) => encodeCursor(String(ver.version).padStart(8, "0"));
      return { body: page(versions, ctx.query.limit, cursorOf, view) };
    },
  }),
  route({
    method: "PATCH",
    path: "/api/v1/contents/{contentId}/schedule",
    operationId: "scheduleContent",
    summary: "Set, change or clear the editorial planned date; never changes the status nor publishes",
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    body: ScheduleBody,
    responses: {
      200: { description: "The content as confirmed by the server.", schema: ContentSchema },
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
    tag: "Contents",
    stability: "beta",
    access: "any",
    workspace: "optional",
    params: ContentParams,
    body: v.optional(v.object({ workspace_id: v.optional(WorkspaceIdField) })),
    responses: {
      200: { description: "The published content.", schema: ContentSchema },
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
