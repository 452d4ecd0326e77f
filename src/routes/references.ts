/**
 * Reference materials (DESIGN §6, beta, workspace-aware): source content that generation draws from and
 * cites. Text, Markdown or HTML arrives as JSON or as an uploaded file and is stored as plain text split
 * into passages.
 */
import * as v from "valibot";
import { type ReferenceRow, SOURCE_TYPES } from "../db/references.js";
import { iso } from "../domain/clock.js";
import { ApiError } from "../domain/errors.js";
import {
  type Ingested,
  REFERENCE_FORMATS,
  REFERENCE_LIMITS,
  type ReferenceSource,
  rawCharLimit,
  referenceRecord,
  referenceSource,
  unreadableSource,
} from "../domain/references.js";
import { checkStorage, textBytes } from "../domain/storage.js";
import { referenceSummaryView, referenceView } from "../domain/views/references.js";
import { isUploadedFile, type UploadedFile } from "../http/body.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  describedCheck,
  exactlyOneOf,
  Integer,
  intString,
  maxChars,
  named,
  PageQuery,
  pageOf,
  RecordWorkspaceId,
  Timestamp,
  WorkspaceQuery,
} from "../http/schemas.js";
import { TaskLimitError } from "../runtime/task-pool.js";
import {
  AUTH_ERRORS,
  checkRecordPlace,
  decodeCursor,
  encodeCursor,
  INPUT_ERRORS,
  NOT_FOUND,
  page,
  TASK_ERRORS,
} from "./common.js";

/** A source document generation draws facts from (named ReferenceMaterial in the description). */
const Reference = named(
  "ReferenceMaterial",
  v.object({
    id: described(Integer, "The material's id; never given to another record, even after it is deleted."),
    workspace_id: RecordWorkspaceId,
    title: described(v.string(), "The title: as sent, else the file's name, else the text's first line."),
    content: v.pipe(v.string(), v.description("The material as plain text.")),
    source_type: described(v.picklist(SOURCE_TYPES), "The format it was sent in (text, markdown or html)."),
    word_count: described(Integer, "Words in the plain text."),
    passage_count: v.pipe(Integer, v.description("The passages (whole paragraphs or sentences) generation can cite.")),
    created_at: described(Timestamp, "When it was added."),
  }),
);
const ReferenceSummary = named(
  "ReferenceMaterialSummary",
  v.object({
    ...Reference.entries,
    excerpt: v.pipe(v.string(), v.description("The start of the plain text (at most 240 characters), for a preview.")),
  }),
);
const Deleted = v.object({
  id: described(Integer, "The deleted material's id."),
  deleted: described(v.literal(true), "Always true."),
});

const REFERENCE_EXAMPLE = {
  id: 7,
  workspace_id: "ws_4fT9sK2mQ8zL1xWc",
  title: "Roof mounting notes",
  content: "Flat roofs need ballast mounts. Ballast holds the panels without drilling through the membrane.",
  source_type: "markdown",
  word_count: 15,
  passage_count: 2,
  created_at: "2026-03-01T14:20:00.000Z",
};

const CreateFields = v.object({
  title: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      maxChars(REFERENCE_LIMITS.titleChars),
      v.description("Defaults to the file's name, else to the text's first line."),
    ),
  ),
  content: v.optional(v.pipe(v.string(), v.description("The material (JSON), in the given format."))),
  format: v.optional(
    v.pipe(
      v.picklist(REFERENCE_FORMATS),
      v.description(
        "The format of content; default: text. With a file, overrides its extension and type (default: told by " +
          "them).",
      ),
    ),
  ),
  source_type: v.optional(
    v.pipe(
      v.picklist(REFERENCE_FORMATS),
      v.description(
        "Another name for format (records name their format source_type). Send either, or both alike. A record's " +
          "content is plain text already: sent again, it is read as text.",
      ),
    ),
  ),
  file: v.optional(
    v.pipe(
      v.custom<UploadedFile>(isUploadedFile, "must be a file part (multipart/form-data)"),
      v.description("The material as a UTF-8 .txt, .md, .markdown, .html or .htm file (multipart/form-data)."),
    ),
  ),
  ...WorkspaceQuery,
});
const CreateBody = v.pipe(
  CreateFields,
  // Content without a format is text (domain/references.ts referenceSource, DEFAULT_FORMAT).
  exactlyOneOf(["content", "file"], "Send exactly one of content or file (multipart/form-data)."),
  v.forward(
    describedCheck<v.InferOutput<typeof CreateFields>>(
      (b) => b.format === undefined || b.source_type === undefined || b.format === b.source_type,
      "format and source_type name the same thing: send one of them, or both alike.",
      {
        anyOf: [
          { not: { properties: { format: true, source_type: true }, required: ["format", "source_type"] } },
          ...REFERENCE_FORMATS.map((f) => ({ properties: { format: { const: f }, source_type: { const: f } } })),
        ],
      },
    ),
    ["source_type"],
  ),
);
type CreateInput = v.InferOutput<typeof CreateBody>;

const ListQuery = v.object({ ...PageQuery, ...WorkspaceQuery });
type ListInput = v.InferOutput<typeof ListQuery>;

const ReferenceParams = v.object({
  referenceId: intString(1, Number.MAX_SAFE_INTEGER, "The reference material's id."),
});
type ById = Ctx<{ referenceId: number }>;

/** The converted text of a material, on the worker pool: a failure other than the processing limit is a 400. */
async function ingestOnPool(ctx: Ctx, source: ReferenceSource): Promise<Ingested> {
  try {
    // Conversion and passage splitting of a large document take long enough to run on the worker pool.
    return await ctx.services.pool.run("ingestText", { format: source.format, text: source.text });
  } catch (e) {
    if (e instanceof TaskLimitError) throw e;
    throw unreadableSource(source);
  }
}

function referenceNotFound(id: number): ApiError {
  return new ApiError("reference_material_not_found", `No reference material ${id}.`, { reference_material_id: id });
}

/**
 * A reference material of the caller's account by id (404 otherwise), in a workspace the caller may use (403
 * otherwise) and in the workspace the request names, if it names one (404 otherwise).
 */
function findReference(ctx: ById): ReferenceRow {
  const id = ctx.params.referenceId;
  const r = ctx.services.store.references.byId(id);
  if (!r || r.account_id !== ctx.principal.accountId) throw referenceNotFound(id);
  checkRecordPlace(
    ctx,
    r.workspace_id,
    (ws) =>
      new ApiError("reference_material_not_found", `No reference material ${id} in workspace ${ws}.`, {
        reference_material_id: id,
      }),
  );
  return r;
}

const common = { tag: "Reference materials", stability: "beta", access: "any" } as const;

/** The reference-material routes: add, list, read and delete materials. */
export const referenceRoutes = [
  route({
    ...common,
    method: "GET",
    path: "/api/v1/reference-materials",
    operationId: "listReferenceMaterials",
    summary: "List the reference materials of a workspace, oldest first, with their plain text and an excerpt",
    description:
      "Lists the reference materials of one workspace in the order they were added, a page at a time, each with its " +
      "plain text and an excerpt for a preview; a page ends early when its texts are large. Use the ids in POST " +
      "/generate's reference_material_ids. Changes nothing.",
    workspace: "required",
    query: ListQuery,
    responses: {
      200: { description: "A page of reference materials.", schema: pageOf(ReferenceSummary) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
    },
    handler(ctx: Ctx<Record<string, string>, ListInput>) {
      const rows = ctx.services.store.references.list({
        workspaceId: ctx.workspace.id,
        afterId: decodeCursor<number>(ctx.query.cursor, "number") ?? 0,
        limit: ctx.query.limit + 1,
      });
      // Materials carry up to 500,000 characters each: the page ends early by size, and the rows past it are not
      // read (common.ts page).
      return { body: page(rows, ctx.query.limit, (r) => encodeCursor(r.id), referenceSummaryView) };
    },
  }),
  route({
    ...common,
    method: "POST",
    path: "/api/v1/reference-materials",
    operationId: "createReferenceMaterial",
    created: (body: { id: number }) => `/api/v1/reference-materials/${body.id}`,
    summary:
      "Add a reference material: JSON {content, format: text (default)|markdown|html} or a multipart/form-data file " +
      "(.txt, .md, .markdown, .html, .htm; UTF-8), up to 5 MiB; stored as plain text of at most 500,000 characters",
    description:
      "Adds a source document to a workspace: the facts generation draws on and cites when a request names it in " +
      "reference_material_ids. Send JSON with content and its format (text, markdown or html; text when left out; " +
      "source_type is another name for format), or upload a file as multipart/form-data (its format told by its extension, else its type). " +
      "The material is stored as plain text, split into passages, and taken into the workspace's knowledge graph " +
      "after the answer. Sending both content and a file, or neither, is refused with 400; a file that is not UTF-8 " +
      "text, Markdown or HTML with 415. Before conversion, text is held to " +
      `${rawCharLimit("text").toLocaleString("en-US")} characters and Markdown to ` +
      `${rawCharLimit("markdown").toLocaleString("en-US")} (400 past them, unconverted): more could not become ` +
      `${REFERENCE_LIMITS.contentChars.toLocaleString("en-US")} characters of plain text.`,
    bodyExamples: {
      markdown: {
        title: "Roof mounting notes",
        content: "# Mounting\n\nFlat roofs need ballast mounts. Ballast holds the panels without drilling.",
        format: "markdown",
      },
      text: { content: "Our installers finish a flat-roof job in two days.", format: "text" },
    },
    workspace: "required",
    upload: { maxBytes: REFERENCE_LIMITS.bodyBytes },
    body: CreateBody,
    responses: {
      201: { description: "The new reference material.", schema: Reference, example: REFERENCE_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
      ...TASK_ERRORS,
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, CreateInput>) {
      const source = referenceSource(ctx.body);
      const record = referenceRecord(ctx.body, source, await ingestOnPool(ctx, source));
      // Stored twice: the text and its passages.
      checkStorage(ctx.services.store, ctx.account, 2 * textBytes(record.title, record.content));
      // On the writer thread (domain/writer.ts): up to 500,000 characters and their passages.
      const stored = await ctx.services.writer.run("referenceCreate", {
        accountId: ctx.principal.accountId,
        workspaceId: ctx.workspace.id,
        ...record,
        now: iso(ctx.services.clock.now()),
      });
      const row = { ...stored, content: record.content };
      ctx.services.graph.touch(row.workspace_id, { kind: "reference", id: row.id, version: 0 });
      return { status: 201, body: referenceView(row) };
    },
  }),
  route({
    ...common,
    method: "GET",
    path: "/api/v1/reference-materials/{referenceId}",
    operationId: "getReferenceMaterial",
    summary: "Read one reference material with its plain text",
    description:
      "Reads one reference material with its plain text and passage count. Changes nothing. One of another account, " +
      "or not in the workspace named, is 404.",
    workspace: "optional",
    params: ReferenceParams,
    responses: {
      200: { description: "The reference material.", schema: Reference, example: REFERENCE_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Reference material"),
    },
    handler(ctx: ById) {
      return { body: referenceView(findReference(ctx)) };
    },
  }),
  route({
    ...common,
    method: "DELETE",
    path: "/api/v1/reference-materials/{referenceId}",
    operationId: "deleteReferenceMaterial",
    summary: "Delete a reference material and its passages",
    description:
      "Deletes a reference material with its passages and takes it out of the knowledge graph at once. Contents " +
      "generated from it keep their text; a generation running that names it fails with 404. Its id is never given " +
      "to another record.",
    workspace: "optional",
    params: ReferenceParams,
    responses: {
      200: { description: "Deleted.", schema: Deleted },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Reference material"),
    },
    async handler(ctx: ById) {
      const r = findReference(ctx);
      // On the writer thread: a reference's text (up to 500,000 characters) and its passages free many pages.
      if (!(await ctx.services.writer.run("referenceRemove", { id: r.id }))) throw referenceNotFound(r.id);
      ctx.services.graph.touch(r.workspace_id);
      return { body: { id: r.id, deleted: true } };
    },
  }),
];
