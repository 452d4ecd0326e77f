/** Memories (DESIGN §6, beta, workspace-aware): voice and context notes that generation injects. */
import * as v from "valibot";
import { MEMORY_KINDS, type MemoryRow } from "../db/memories.js";
import { iso } from "../domain/clock.js";
import { ApiError } from "../domain/errors.js";
import { FIRST_WORDS, firstWords } from "../domain/first-words.js";
import { checkStorage, textBytes } from "../domain/storage.js";
import { memoryView } from "../domain/views/memories.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  Integer,
  intString,
  maxChars,
  minChars,
  named,
  PageQuery,
  pageOf,
  RecordWorkspaceId,
  Timestamp,
  WorkspaceQuery,
} from "../http/schemas.js";
import { AUTH_ERRORS, checkRecordPlace, decodeCursor, encodeCursor, INPUT_ERRORS, NOT_FOUND, page } from "./common.js";

/** Longest memory title and content, in characters. */
export const MEMORY_LIMITS = { title: 200, content: 20_000 } as const;

const Kind = v.pipe(
  v.picklist(MEMORY_KINDS),
  v.description("voice: how to sound (style, vocabulary, dos and don'ts); context: what to know (facts, audience)."),
);
const Title = v.pipe(
  v.string(),
  v.trim(),
  minChars(1),
  maxChars(MEMORY_LIMITS.title),
  v.description("A name for the memory, trimmed, 1 to 200 characters."),
);
const Content = v.pipe(
  v.string(),
  v.trim(),
  minChars(1),
  maxChars(MEMORY_LIMITS.content),
  v.description("What generation is to follow or know, trimmed, 1 to 20,000 characters."),
);

/** A voice or context note that generation applies (named Memory in the description). */
const Memory = named(
  "Memory",
  v.object({
    id: described(Integer, "The memory's id; never given to another record, even after it is deleted."),
    workspace_id: RecordWorkspaceId,
    kind: Kind,
    title: described(v.string(), "The memory's name."),
    content: described(v.string(), "What generation is to follow or know."),
    created_at: described(Timestamp, "When it was created."),
    updated_at: described(Timestamp, "When it last changed."),
  }),
);
const Deleted = v.object({
  id: described(Integer, "The deleted memory's id."),
  deleted: described(v.literal(true), "Always true."),
});

const MEMORY_EXAMPLE = {
  id: 3,
  workspace_id: "ws_4fT9sK2mQ8zL1xWc",
  kind: "voice",
  title: "House style",
  content: "Short sentences. Say 'installers', never 'technicians'. No exclamation marks.",
  created_at: "2026-03-01T14:25:00.000Z",
  updated_at: "2026-03-01T14:25:00.000Z",
};

const ListQuery = v.object({
  ...PageQuery,
  ...WorkspaceQuery,
  kind: v.optional(described(v.picklist(MEMORY_KINDS), "Only memories of this kind.")),
});
type ListInput = v.InferOutput<typeof ListQuery>;

const CreateBody = v.object({
  kind: Kind,
  title: v.optional(
    described(
      Title,
      `A name for the memory, trimmed, 1 to 200 characters. Default: the content's first words (up to ` +
        `${FIRST_WORDS.words} words or ${FIRST_WORDS.chars} characters, "…" where cut).`,
    ),
  ),
  content: Content,
  ...WorkspaceQuery,
});
type CreateInput = v.InferOutput<typeof CreateBody>;

const UpdateBody = v.object({ kind: v.optional(Kind), title: v.optional(Title), content: v.optional(Content) });
type UpdateInput = v.InferOutput<typeof UpdateBody>;

const MemoryParams = v.object({ id: intString(1, Number.MAX_SAFE_INTEGER, "The memory's id.") });
type ById = Ctx<{ id: number }>;

function memoryNotFound(id: number): ApiError {
  return new ApiError("memory_not_found", `No memory ${id}.`, { memory_id: id });
}

/**
 * A memory of the caller's account by id (404 otherwise), in a workspace the caller may use (403 otherwise) and in
 * the workspace the request names, if it names one (404 otherwise).
 */
function findMemory(ctx: ById): MemoryRow {
  const m = ctx.services.store.memories.byId(ctx.params.id);
  if (!m || m.account_id !== ctx.principal.accountId) throw memoryNotFound(ctx.params.id);
  checkRecordPlace(
    ctx,
    m.workspace_id,
    (ws) => new ApiError("memory_not_found", `No memory ${m.id} in workspace ${ws}.`, { memory_id: m.id }),
  );
  return m;
}

const common = { tag: "Memories", stability: "beta", access: "any" } as const;

/** The memory routes: create, list, read, change and delete memories. */
export const memoryRoutes = [
  route({
    ...common,
    method: "GET",
    path: "/api/v1/memories",
    operationId: "listMemories",
    summary: "List the memories of a workspace, oldest first, optionally of one kind",
    description:
      "Lists the memories of one workspace in the order they were created, a page at a time, all of them or those of " +
      "one kind. Use the ids in POST /generate's memory_ids. Changes nothing.",
    workspace: "required",
    query: ListQuery,
    responses: {
      200: { description: "A page of memories.", schema: pageOf(Memory) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
    },
    handler(ctx: Ctx<Record<string, string>, ListInput>) {
      const rows = ctx.services.store.memories.list({
        workspaceId: ctx.workspace.id,
        kind: ctx.query.kind,
        afterId: decodeCursor<number>(ctx.query.cursor, "number") ?? 0,
        limit: ctx.query.limit + 1,
      });
      const p = page(rows, ctx.query.limit, (m) => encodeCursor(m.id));
      return { body: { ...p, data: p.data.map(memoryView) } };
    },
  }),
  route({
    ...common,
    method: "POST",
    path: "/api/v1/memories",
    operationId: "createMemory",
    created: (body: { id: number }) => `/api/v1/memories/${body.id}`,
    summary: "Create a memory in a workspace (content up to 20,000 characters; title up to 200, else its first words)",
    description:
      "Writes down something generation is to apply when a request names it in memory_ids: a voice memory says how " +
      "to sound (style, words to use or avoid), a context memory what to know (facts, audience). It changes no " +
      "content already written.",
    bodyExamples: {
      voice: {
        kind: "voice",
        title: "House style",
        content: "Short sentences. Say 'installers', never 'technicians'. No exclamation marks.",
      },
      context: { kind: "context", title: "Audience", content: "Owners of commercial buildings with flat roofs." },
      untitled: { kind: "context", content: "Owners of commercial buildings with flat roofs." },
    },
    workspace: "required",
    body: CreateBody,
    responses: {
      201: { description: "The new memory.", schema: Memory, example: MEMORY_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Workspace"),
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, CreateInput>) {
      const title = ctx.body.title ?? firstWords(ctx.body.content);
      checkStorage(ctx.services.store, ctx.account, textBytes(title, ctx.body.content));
      // On the writer thread, as every write of a memory, so that they run in the order asked.
      const m = await ctx.services.writer.run("memoryCreate", {
        accountId: ctx.principal.accountId,
        workspaceId: ctx.workspace.id,
        kind: ctx.body.kind,
        title,
        content: ctx.body.content,
        now: iso(ctx.services.clock.now()),
      });
      return { status: 201, body: memoryView(m) };
    },
  }),
  route({
    ...common,
    method: "GET",
    path: "/api/v1/memories/{id}",
    operationId: "getMemory",
    summary: "Read one memory",
    description: "Reads one memory. Changes nothing. One of another account, or not in the workspace named, is 404.",
    workspace: "optional",
    params: MemoryParams,
    responses: {
      200: { description: "The memory.", schema: Memory, example: MEMORY_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Memory"),
    },
    handler(ctx: ById) {
      return { body: memoryView(findMemory(ctx)) };
    },
  }),
  route({
    ...common,
    method: "PATCH",
    path: "/api/v1/memories/{id}",
    operationId: "updateMemory",
    summary: "Change a memory's kind, title or content (fields left out stay as they are)",
    description:
      "Changes a memory's kind, title or content; fields left out stay as they are, and a body with none changes " +
      "nothing (updated_at included). Later generations that name it use the new text; contents already written " +
      "are not touched.",
    bodyExamples: {
      content: { content: "Short sentences. Say 'installers'. Address the reader as 'you'." },
      kind: { kind: "context" },
    },
    workspace: "optional",
    params: MemoryParams,
    body: UpdateBody,
    responses: {
      200: { description: "The memory as it now is.", schema: Memory, example: MEMORY_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Memory"),
    },
    async handler(ctx: Ctx<{ id: number }, unknown, UpdateInput>) {
      const m = findMemory(ctx);
      const { kind, title, content } = ctx.body;
      // An empty change leaves the memory, and its updated_at, as it is.
      if (kind === undefined && title === undefined && content === undefined) return { body: memoryView(m) };
      checkStorage(ctx.services.store, ctx.account, textBytes(title, content));
      const updated = await ctx.services.writer.run("memoryUpdate", {
        accountId: ctx.account.id,
        id: m.id,
        changes: { kind, title, content },
        now: iso(ctx.services.clock.now()),
      });
      // Deleted meanwhile (a DELETE queued ahead of it).
      if (!updated) throw memoryNotFound(m.id);
      return { body: memoryView(updated) };
    },
  }),
  route({
    ...common,
    method: "DELETE",
    path: "/api/v1/memories/{id}",
    operationId: "deleteMemory",
    summary: "Delete a memory",
    description:
      "Deletes a memory. Contents written with it keep their text; a generation running that names it fails with " +
      "404. Its id is never given to another record.",
    workspace: "optional",
    params: MemoryParams,
    responses: {
      200: { description: "Deleted.", schema: Deleted },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Memory"),
    },
    async handler(ctx: ById) {
      const m = findMemory(ctx);
      if (!(await ctx.services.writer.run("memoryRemove", { id: m.id }))) throw memoryNotFound(m.id);
      return { body: { id: m.id, deleted: true } };
    },
  }),
];
