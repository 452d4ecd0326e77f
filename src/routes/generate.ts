/** POST /generate (spec §4.1) and POST /finalizeContent (spec §4.2): the two stable operations of the lifecycle. */
import * as v from "valibot";
import { findContent, generationInput, requireStatus } from "../domain/contents.js";
import { ApiError } from "../domain/errors.js";
import type { GenerationOutput } from "../domain/generation/builtin.js";
import { type GenerationStream, pickEngine } from "../domain/generation/engines.js";
import { checkStorage, textBytes } from "../domain/storage.js";
import { finalizationView, generationView } from "../domain/views/contents.js";
import type { Ctx } from "../http/context.js";
import { errorBody, toApiError } from "../http/errors.js";
import { route } from "../http/route.js";
import {
  described,
  Integer,
  maxChars,
  minChars,
  named,
  offeredModel,
  Timestamp,
  WorkspaceIdField,
} from "../http/schemas.js";
import { AUTH_ERRORS, CONFLICT, INPUT_ERRORS, NOT_FOUND, TASK_ERRORS, UPSTREAM_ERRORS } from "./common.js";
import { CONTENT_EXAMPLE, ContentSchema, callerRows, today } from "./contents.js";

const Id = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));
const Ids = v.pipe(v.array(Id), v.maxLength(50));

const GenerateBody = v.object({
  template_id: described(Id, "The template to follow (GET /templates: the built-in ones and the account's)."),
  user_direction: described(
    v.pipe(v.string(), v.trim(), minChars(1), maxChars(5000)),
    "What to write: the subject, the angle, the reader; trimmed, 1 to 5,000 characters.",
  ),
  content_id: v.optional(
    described(
      Id,
      "A draft or generated content to generate into (a new version; its workspace is used). Left out, a new " +
        "content record is created.",
    ),
  ),
  memory_ids: v.optional(described(Ids, "Memories (voice and context notes) to apply, at most 50, of the workspace.")),
  reference_material_ids: v.optional(
    described(Ids, "Reference materials to draw facts from and cite, at most 50, of the workspace."),
  ),
  workspace_id: v.optional(WorkspaceIdField),
  model: v.optional(
    described(
      v.pipe(v.string(), minChars(1), maxChars(200), offeredModel("text")),
      "The engine to write with: one this server offers (GET /models lists them); left out, the default one.",
    ),
  ),
  seed: v.optional(
    described(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 32 - 1)),
      "Makes the builtin engine's choices repeatable: the same request and seed give the same text.",
    ),
  ),
  stream: v.optional(
    described(v.boolean(), "true: answer text/event-stream, the text as it is written, then the record."),
  ),
});

/** What POST /generate answers: the content record written, with the engine, the sources cited and the words. */
const GenerateResponse = named(
  "GenerateResponse",
  v.object({
    ...ContentSchema.entries,
    model: described(v.string(), "The engine that wrote it (GET /models)."),
    sources: described(
      v.array(
        v.object({
          reference_material_id: described(Integer, "The reference material the passage is from."),
          passage: described(v.string(), "The passage drawn on."),
        }),
      ),
      "The reference passages the text draws on.",
    ),
    word_count: described(Integer, "Words in the generated text."),
    warnings: described(
      v.array(v.string()),
      "What the engine could not do as asked, in plain sentences: for example a text shorter than the template's " +
        "target because the references hold too few words. Empty when there is nothing to say.",
    ),
  }),
);

const GENERATE_EXAMPLE = {
  ...CONTENT_EXAMPLE,
  model: "builtin",
  sources: [{ reference_material_id: 7, passage: "Flat roofs need ballast mounts." }],
  word_count: 15,
  warnings: [
    "The references hold 6 words; the text is 15 words of the 1,000 the template asks for. Add reference material for a fuller draft.",
  ],
};

const FinalizeBody = v.object({
  content_id: described(Id, "The generated content to finalize."),
  finalized_content: described(
    v.pipe(v.string(), minChars(1), maxChars(500_000)),
    "The text as the writer left it after editing, 1 to 500,000 characters.",
  ),
  edit_seconds: v.optional(
    described(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(30 * 86_400)),
      "How long the writer spent editing, in seconds (0 to 30 days). Left out: unknown, and learning leaves this " +
        "finalization out of the editing time and speed (the edits themselves are learned all the same).",
    ),
  ),
  workspace_id: v.optional(WorkspaceIdField),
});

/** What POST /finalizeContent answers: the finalized text and the learning job it started, if any. */
const FinalizeResponse = named(
  "FinalizeResponse",
  v.object({
    content_id: described(Integer, "The finalized content."),
    finalized_content: described(v.string(), "The finalized text, as stored."),
    status: described(v.literal("finalized"), "Always finalized."),
    updated_at: described(Timestamp, "When it was finalized."),
    learning_job_id: described(
      v.nullable(v.string()),
      "The learning job started (GET /learning-jobs/{id}); null when learning is off or the month's analyses are spent.",
    ),
    learning_triggered: described(v.boolean(), "Whether a learning job was started."),
  }),
);

const encoder = new TextEncoder();
const sse = (event: string, data: unknown) => encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

/**
 * Answers text/event-stream: `delta` events with the text as it is produced, then `done` with the stored record
 * (the content is stored once complete), or `error` with the coded error body (nothing is stored).
 *
 * The stream pulls: the next piece is asked of the engine only when the client has taken the last event (the
 * queue holds one), so a slow client slows the model server's reads instead of piling events up in memory. A
 * client that leaves cancels the stream, which ends the engine's generator; ctx.request.signal, passed to the
 * engine, covers the time a read is waiting on the model server.
 */
function streamGeneration(
  ctx: Ctx,
  stream: GenerationStream,
  save: (output: GenerationOutput) => Promise<{ status: number; body: unknown }>,
): Response {
  const pieces = stream.pieces[Symbol.asyncIterator]();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await pieces.next();
          if (cancelled) return;
          if (!next.done) {
            controller.enqueue(sse("delta", { text: next.value }));
            return;
          }
          const output = await stream.result();
          // The answer's finish may have waited on the pool: a client gone meanwhile gets nothing stored.
          if (cancelled) return;
          const saved = await save(output);
          // `done` acknowledges the stored record: once it is on disk, as any write's answer (db/durability.ts).
          await ctx.services.durability.sync();
          controller.enqueue(sse("done", saved.body));
        } catch (e) {
          // Nobody is left to tell (the failure is the client's going away).
          if (cancelled) return;
          const err = toApiError(e);
          if (!(e instanceof ApiError))
            ctx.services.logger.error("stream failed", { trace_id: ctx.traceId, error: String(e) });
          controller.enqueue(sse("error", { ...errorBody(err, ctx.traceId), status: err.status }));
        }
        controller.close();
      },
      cancel() {
        cancelled = true;
        // Not awaited: a pending read ends with the request's signal, and the generator's cleanup runs after it.
        pieces.return?.(undefined).catch(() => {});
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}

/** The generation routes: generate a piece and finalize it. */
export const generateRoutes = [
  route({
    method: "POST",
    path: "/api/v1/generate",
    operationId: "generate",
    created: (body: { content_id: number }) => `/api/v1/contents/${body.content_id}`,
    summary: "Generate content from a template and a direction, with memories and reference materials",
    description:
      "Writes a piece from a template and your direction, applying the memories named and the workspace's voice " +
      "profile, and drawing facts from the reference materials named (cited in sources). Without content_id it " +
      "creates a content record in generated status (201, with Location); with content_id it generates into that " +
      "draft or generated record as a new version (200), replacing its title and text. The next steps are to edit " +
      "and then POST /finalizeContent. Refusals: a template, memory, reference material or content that is not the " +
      "caller's or not in the workspace is 404 with missing_ids; a finalized or published content 409 " +
      "invalid_status; an engine not offered (GET /models) 400. With stream: true the answer is server-sent events " +
      "and its status is 200 either way.",
    bodyExamples: {
      newContent: {
        template_id: 1,
        user_direction: "A short post for building owners on why flat roofs suit solar panels.",
        memory_ids: [1],
        reference_material_ids: [1],
      },
      regenerate: {
        template_id: 1,
        user_direction: "Shorter, and open with the cost of drilling through a roof membrane.",
        content_id: 1,
        seed: 7,
      },
    },
    tag: "Generation",
    stability: "stable",
    access: "any",
    workspace: "required",
    // With content_id the workspace is the content's.
    workspaceUnless: "content_id",
    body: GenerateBody,
    responses: {
      200: {
        description:
          "A new version of the given content record. With stream: true (new record or not) the answer is text/event-stream: events `delta` {text}, then `done` (this body) or `error` (the coded error body with its HTTP `status` added).",
        schema: GenerateResponse,
        example: { ...GENERATE_EXAMPLE, version_count: 2 },
        alsoContent: {
          "text/event-stream": {
            type: "string",
            description:
              "Server-sent events: delta {text}…, then done (the generate response) or error (the error body and its `status`).",
          },
        },
      },
      201: { description: "A new content record.", schema: GenerateResponse, example: GENERATE_EXAMPLE },
      ...AUTH_ERRORS,
      400: {
        ...INPUT_ERRORS[400],
        description:
          "Invalid input (details.error_code says which); `workspace_required`: no content_id, no workspace_id, a key bound to none and an account without a default workspace.",
      },
      ...NOT_FOUND("Template, memory, reference material or content"),
      ...CONFLICT("The content named by content_id is finalized or published (invalid_status)."),
      ...TASK_ERRORS,
      ...UPSTREAM_ERRORS,
    },
    async handler(ctx: Ctx<unknown, unknown, v.InferOutput<typeof GenerateBody>>) {
      const store = ctx.services.store;
      const req = ctx.body;
      const engine = pickEngine(ctx.services.engines, req.model);
      let workspace = ctx.workspace;
      if (req.content_id !== undefined) {
        // Check before the engine runs, so a bad id answers at once; saveGeneration checks again.
        const row = findContent(store, ctx, req.content_id);
        requireStatus(row, ["draft", "generated"], "generate into");
        workspace = store.workspaces.byId(row.workspace_id)!;
      }
      const input = generationInput(store, ctx, workspace, req, ctx.services.location);
      // On the writer thread, as finalizations: a write here would wait, blocking every request, for the writer's
      // transaction in progress (domain/writer.ts).
      const save = async (generated: GenerationOutput) => {
        // Answered as stored: a lone surrogate in a model's answer is stored as U+FFFD (the body's are already).
        const output = { ...generated, title: generated.title.toWellFormed(), text: generated.text.toWellFormed() };
        // The text is stored twice: the content's and its version's.
        checkStorage(store, ctx.account, 2 * textBytes(output.title, output.text));
        const { row, created } = await ctx.services.writer.run("saveGeneration", {
          ...callerRows(ctx),
          target: workspace,
          req,
          output,
          model: engine.id,
          nowMs: ctx.services.clock.now(),
        });
        ctx.services.usage.countFor(ctx.principal, { generations: 1, words_generated: output.word_count });
        return {
          status: created ? 201 : 200,
          body: generationView(row, output, engine.id, today(ctx)),
        };
      };
      if (req.stream) return streamGeneration(ctx, await engine.stream(input, ctx.request.signal), save);
      return await save(await engine.generate(input, ctx.request.signal));
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/finalizeContent",
    operationId: "finalizeContent",
    summary: "Save the final edited version of generated content and start learning analysis in the background",
    description:
      "Saves the text as the writer left it: the content becomes finalized (a version is added) and, unless learning " +
      "is off or the month's analyses are spent, a learning job starts after the answer, comparing the generated and " +
      "the finalized text and folding what changed into the workspace's voice profile for later generations (watch " +
      "it with GET /learning-jobs/{id}). Only generated content can be finalized: any other status is refused with " +
      "409 invalid_status and the text is untouched.",
    bodyExamples: {
      edited: {
        content_id: 1,
        finalized_content:
          "Flat roofs suit solar panels. Ballast mounts hold them in place, so nobody drills through the membrane.",
        edit_seconds: 240,
      },
    },
    tag: "Generation",
    stability: "stable",
    access: "any",
    workspace: "optional",
    body: FinalizeBody,
    responses: {
      200: {
        description: "Finalized.",
        schema: FinalizeResponse,
        example: {
          content_id: 42,
          finalized_content: "Flat roofs suit solar panels. Ballast mounts hold them in place.",
          status: "finalized",
          updated_at: "2026-03-02T10:02:00.000Z",
          learning_job_id: "lj_7Hq2kP9xR3mN5vB1",
          learning_triggered: true,
        },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Content"),
      ...CONFLICT("The content is not in generated status (invalid_status); its text is untouched."),
    },
    async handler(ctx: Ctx<unknown, unknown, v.InferOutput<typeof FinalizeBody>>) {
      // On the writer thread: its write() calls to the WAL can wait for the disk (domain/writer.ts).
      // Already as stored: the body parser made a lone surrogate U+FFFD (http/body.ts).
      const text = ctx.body.finalized_content;
      // Stored twice: the finalized text and its version.
      checkStorage(ctx.services.store, ctx.account, 2 * textBytes(text));
      const done = await ctx.services.writer.run("finalize", {
        ...callerRows(ctx),
        req: { content_id: ctx.body.content_id, finalized_content: text, edit_seconds: ctx.body.edit_seconds ?? null },
        nowMs: ctx.services.clock.now(),
      });
      ctx.services.usage.countFor(ctx.principal, { finalizations: 1 });
      // The job is committed with the finalization; the runner picks it up after the answer.
      if (done.jobId) setImmediate(() => ctx.services.learning.kick());
      ctx.services.graph.touch(done.workspaceId, { kind: "content", id: done.contentId, version: done.version });
      return { body: finalizationView(done, text) };
    },
  }),
];
