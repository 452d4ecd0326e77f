/**
 * Conversions (DESIGN §6, beta, workspace-aware): a content's current text (its finalized text once
 * finalized) as HTML, normalised Markdown, plain text, a numbered social thread or an email, stored as made.
 */
import * as v from "valibot";
import { type ConversionRow, conversionView, TARGET_FORMATS } from "../db/conversions.js";
import { iso } from "../domain/clock.js";
import { findContent } from "../domain/contents.js";
import { MAX_OUTPUT_CHARS, POST_LIMIT } from "../domain/conversions.js";
import type { Ctx } from "../http/context.js";
import { ApiError } from "../http/errors.js";
import { route } from "../http/route.js";
import { Integer, intString, PageQuery, pageOf, Timestamp, WorkspaceQuery } from "../http/schemas.js";
import { AUTH_ERRORS, decodeCursor, encodeCursor, err, INPUT_ERRORS, NOT_FOUND, page } from "./common.js";

const Conversion = v.object({
  id: Integer,
  content_id: Integer,
  workspace_id: v.string(),
  target_format: v.picklist(TARGET_FORMATS),
  output: v.pipe(
    v.string(),
    v.description("The converted text; for social_thread the posts separated by blank lines; for email the body."),
  ),
  posts: v.pipe(
    v.nullable(v.array(v.string())),
    v.description(`social_thread: numbered posts "1/n …" of at most ${POST_LIMIT} characters each; else null.`),
  ),
  subject: v.pipe(v.nullable(v.string()), v.description("email: the subject line; else null.")),
  created_at: Timestamp,
});

const Id = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));

const CreateBody = v.object({
  content_id: Id,
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

const ListQuery = v.object({ ...PageQuery, ...WorkspaceQuery, content_id: v.optional(intString(1)) });
type ListInput = v.InferOutput<typeof ListQuery>;

const ConversionParams = v.object({ id: intString(1) });
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

export const conversionRoutes = [
  route({
    ...common,
    method: "GET",
    path: "/api/v1/conversions",
    operationId: "listConversions",
    summary: "List the conversions of a workspace, oldest first (filter: content_id)",
    workspace: "required",
    query: ListQuery,
    responses: {
      200: { description: "A page of conversions.", schema: pageOf(Conversion) },
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
    workspace: "optional",
    body: CreateBody,
    responses: {
      201: { description: "The conversion.", schema: Conversion },
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
        text: content.finalized_content ?? content.content,
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
    workspace: "optional",
    params: ConversionParams,
    responses: {
      200: { description: "The conversion.", schema: Conversion },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Conversion"),
    },
    handler(ctx: ById) {
      return { body: conversionView(findConversion(ctx)) };
    },
  }),
];
