/**
 * Conversions (DESIGN §6, beta, workspace-aware): a content's current text (its finalized text once
 * finalized) as HTML, normalised Markdown, plain text, a numbered social thread or an email, stored as made.
 */
import * as v from "valibot";
import { type ConversionRow, TARGET_FORMATS } from "../db/conversions.js";
import { iso } from "../domain/clock.js";
import { findContent, workingText } from "../domain/contents.js";
import { MAX_OUTPUT_CHARS } from "../domain/conversions/output-limit.js";
import { POST_LIMIT } from "../domain/conversions/thread.js";
import { ApiError } from "../domain/errors.js";
import { checkStorage, textBytes } from "../domain/storage.js";
import { conversionView } from "../domain/views/conversions.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  Integer,
  intString,
  named,
  PageQuery,
  pageOf,
  RecordWorkspaceId,
  Timestamp,
  WorkspaceQuery,
} from "../http/schemas.js";
import { AUTH_ERRORS, decodeCursor, encodeCursor, err, INPUT_ERRORS, NOT_FOUND, page } from "./common.js";

/** A content's text in another format, stored as made (named Conversion in the description). */
const Conversion = named(
  "Conversion",
  v.object({
    id: described(Integer, "The conversion's id; never given to another record, even after it is deleted."),
    content_id: described(Integer, "The content converted."),
    workspace_id: RecordWorkspaceId,
    target_format: described(v.picklist(TARGET_FORMATS), "The format it was converted to."),
    output: v.pipe(
      v.string(),
      v.description("The converted text; for social_thread the posts separated by blank lines; for email the body."),
    ),
    posts: v.pipe(
      v.nullable(v.array(v.string())),
      v.description(`social_thread: numbered posts "1/n …" of at most ${POST_LIMIT} characters each; else null.`),
    ),
    subject: v.pipe(v.nullable(v.string()), v.description("email: the subject line; else null.")),
    created_at: described(Timestamp, "When it was made (later edits of the content do not change it)."),
  }),
);

const CONVERSION_EXAMPLE = {
  id: 5,
  content_id: 42,
  workspace_id: "ws_4fT9sK2mQ8zL1xWc",
  target_format: "social_thread",
  output: "1/2 Flat roofs suit solar panels.\n\n2/2 Ballast mounts hold them in place: no drilling.",
  posts: ["1/2 Flat roofs suit solar panels.", "2/2 Ballast mounts hold them in place: no drilling."],
  subject: null,
  created_at: "2026-03-03T08:05:00.000Z",
};

const Id = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));

const CreateBody = v.object({
  content_id: described(Id, "The content to convert: its current text, or its finalized text once finalized."),
  target_format: v.pipe(
    v.picklist(TARGET_FORMATS),
    v.description(
      "html (raw HTML in the text is escaped), markdown (normalised), plain_text, social_thread " +
        "(numbered posts split at sentence boundaries), email (subject and plain-text body).",
    ),
  ),
  ...WorkspaceQuery,
});
type CreateInput = v.InferOutput<typeof CreateBody>;

const ListQuery = v.object({
  ...PageQuery,
  ...WorkspaceQuery,
  content_id: v.optional(intString(1, Number.MAX_SAFE_INTEGER, "Only the conversions of this content.")),
});
type ListInput = v.InferOutput<typeof ListQuery>;

const ConversionParams = v.object({ id: intString(1, Number.MAX_SAFE_INTEGER, "The conversion's id.") });
type ById = Ctx<{ id: number }>;

/** A conversion of the caller's account by id (404 otherwise), in a workspace the caller may use (403 otherwise). */
function findConversion(ctx: ById): ConversionRow {
  const id = ctx.params.id;
  const c = ctx.services.store.conversions.byId(id);
  if (!c || c.account_id !== ctx.account.id)
    throw new ApiError("conversion_not_found", `No conversion ${id}.`, { conversion_id: id });
  ctx.checkRecordWorkspace(c.workspace_id);
  // An explicit workspace_id that is not the record's: the record is not in that workspace.
  if (ctx.workspace && ctx.workspace.id !== c.workspace_id)
    throw new ApiError("conversion_not_found", `No conversion ${id} in workspace ${ctx.workspace.id}.`, {
      conversion_id: id,
    });
  return c;
}

const common = { tag: "Conversions", stability: "beta", access: "any" } as const;

/** The conversion routes: turn a content into another format, list and read the results. */
export const conversionRoutes = [
  route({
    ...common,
    method: "GET",
    path: "/api/v1/conversions",
    operationId: "listConversions",
    summary: "List the conversions of a workspace, oldest first (filter: content_id)",
    description:
      "Lists the stored conversions of one workspace in the order they were made, a page at a time, all of them or " +
      "those of one content. Conversions go with their content when it is deleted. Changes nothing.",
    workspace: "required",
    query: ListQuery,
    responses: {
      200: {
        description: "A page of conversions.",
        schema: pageOf(Conversion),
        example: { data: [CONVERSION_EXAMPLE], has_more: false, next_cursor: null },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
    },
    handler(ctx: Ctx<Record<string, string>, ListInput>) {
      const rows = ctx.services.store.conversions.list({
        workspaceId: ctx.workspace.id,
        contentId: ctx.query.content_id,
        afterId: decodeCursor<number>(ctx.query.cursor, "number") ?? 0,
        limit: ctx.query.limit + 1,
      });
      return { body: page(rows, ctx.query.limit, (r) => encodeCursor(r.id), conversionView) };
    },
  }),
  route({
    ...common,
    method: "POST",
    path: "/api/v1/conversions",
    operationId: "createConversion",
    created: (body: { id: number }) => `/api/v1/conversions/${body.id}`,
    summary:
      "Convert a content's current text (its finalized text once finalized) to html, markdown, plain_text, " +
      "social_thread or email, and store the result",
    description:
      "Converts a content's text, read as Markdown, and stores the result: html (raw HTML escaped, no javascript: " +
      "links), markdown (tidied), plain_text (marks removed, links as text and address), social_thread (numbered " +
      "posts of at most 280 characters, whole sentences) or email (a subject and a plain-text body). Use it to " +
      "publish the piece elsewhere. The content is not changed. Converting the same text to the same format again " +
      "stores nothing new: the conversion stored before is answered again, with its id; a changed text is a new " +
      "conversion, counted against the account's storage quota (507 storage_quota_exceeded). An output longer than 8,000,000 characters is " +
      "refused with 422 output_too_large.",
    bodyExamples: {
      thread: { content_id: 1, target_format: "social_thread" },
      html: { content_id: 1, target_format: "html" },
    },
    workspace: "optional",
    body: CreateBody,
    responses: {
      201: { description: "The conversion.", schema: Conversion, example: CONVERSION_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Content"),
      422: err(
        "Processing the input took more than the processing time one request may use (processing_limit_exceeded), " +
          "or the conversion would be longer than a conversion may be (output_too_large).",
      ),
    },
    async handler(ctx: Ctx<unknown, unknown, CreateInput>) {
      const store = ctx.services.store;
      const content = findContent(store, ctx, ctx.body.content_id);
      // Long texts take a while to parse and split: the pool keeps that off the request thread.
      const converted = await ctx.services.pool.run("convertContent", {
        title: content.title,
        text: workingText(content),
        target_format: ctx.body.target_format,
      });
      if ("tooLargeChars" in converted)
        throw new ApiError(
          "output_too_large",
          `The ${ctx.body.target_format} of this content would be over ${MAX_OUTPUT_CHARS} characters, the most a ` +
            "conversion may have (links that repeat a long address or title are the usual cause).",
          { limit_chars: MAX_OUTPUT_CHARS, target_format: ctx.body.target_format },
        );
      // The content may have been deleted while the pool worked: it must still be there to be referred to, also
      // when the writer thread stores the conversion (it deletes contents too).
      const current = findContent(store, ctx, content.id);
      checkStorage(store, ctx.account, textBytes(converted.output, converted.subject, ...(converted.posts ?? [])));
      const stored = await ctx.services.writer.run("conversionCreate", {
        accountId: ctx.account.id,
        workspaceId: current.workspace_id,
        contentId: current.id,
        targetFormat: ctx.body.target_format,
        output: converted.output,
        posts: converted.posts,
        subject: converted.subject,
        now: iso(ctx.services.clock.now()),
      });
      return { status: 201, body: conversionView({ ...stored, output: converted.output }) };
    },
  }),
  route({
    ...common,
    method: "GET",
    path: "/api/v1/conversions/{id}",
    operationId: "getConversion",
    summary: "Read one conversion",
    description:
      "Reads one stored conversion. Changes nothing. One of another account, or not in the workspace named, is 404.",
    workspace: "optional",
    params: ConversionParams,
    responses: {
      200: { description: "The conversion.", schema: Conversion, example: CONVERSION_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Conversion"),
    },
    handler(ctx: ById) {
      return { body: conversionView(findConversion(ctx)) };
    },
  }),
];
