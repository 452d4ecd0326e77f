/**
 * The MCP tools: each one is an operation of this API, named for an agent, with a zod input that mirrors the
 * operation's path, query and body (test/http/mcp.test.ts keeps the two in step with the route table).
 */
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { TARGET_FORMATS } from "../db/conversions.js";
import { MEMORY_KINDS } from "../db/memories.js";
import { RENDER_LIMITS } from "../domain/images/render.js";
import type { Method } from "../http/route.js";
import { MAX_CURSOR_CHARS } from "../http/schemas.js";

/** One tool and the operation it calls. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  method: Method;
  /** The route's path, with `{param}` placeholders. */
  path: string;
  /** The tool argument that fills each path placeholder. */
  pathArgs?: Record<string, string>;
  /** Arguments: path arguments, then query fields (GET, DELETE) or body fields (POST, PUT, PATCH). */
  input: Record<string, z.ZodType>;
  annotations: ToolAnnotations;
  /** Fields of the operation the tool leaves out on purpose (checked against the route table). */
  omits?: readonly string[];
}

const Id = z.number().int().min(1);
const Ids = z.array(Id).max(50);
const Text = (max: number) => z.string().max(max);

const workspace = {
  workspace_id: z
    .string()
    .max(64)
    .optional()
    .describe(
      "Workspace to act in (ws_…). Default: the key's bound workspace, else the workspace_id of the /mcp URL, else " +
        "the account's default workspace. A key bound to another workspace gets workspace_mismatch.",
    ),
};

const page = {
  limit: z.number().int().min(1).max(100).optional().describe("Page size, 1–100 (default 20)."),
  cursor: z.string().max(MAX_CURSOR_CHARS).optional().describe("The next_cursor of the previous page."),
};

const contentId = { content_id: Id.describe("The content record's id.") };
const memoryId = { memory_id: Id.describe("The memory's id (see list_memories).") };
const memoryKind = z.enum(MEMORY_KINDS);
const entityType = z
  .enum(["proper_noun", "key_phrase"])
  .describe("Only entities of this type: proper_noun (names) or key_phrase (recurring phrases).");

const read: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const create: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
const change: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
/** A deletion: a second call finds nothing to delete (a 404 tool error) and changes nothing more. */
const remove: ToolAnnotations = change;

/** Every tool, in the order tools/list shows them. */
export const TOOLS: readonly ToolDef[] = [
  {
    name: "list_templates",
    title: "List templates",
    description:
      "Lists the templates content can be generated from (built-in and the account's own), filtered by category or " +
      "text. Pick a template id here before generate_content.",
    method: "GET",
    path: "/api/v1/templates",
    input: {
      ...page,
      // Not empty, as the operation takes them (an empty filter is refused: leave it out for none).
      category: Text(50).min(1).optional().describe("Only templates of this category, e.g. blog, social, email."),
      q: Text(100).min(1).optional().describe("Text searched in the name, description and category."),
    },
    annotations: read,
  },
  {
    name: "get_template",
    title: "Get a template",
    description: "Reads one template with its sections, word budgets and tone.",
    method: "GET",
    path: "/api/v1/templates/{id}",
    pathArgs: { id: "template_id" },
    input: { template_id: Id.describe("The template's id.") },
    annotations: read,
  },
  {
    name: "list_models",
    title: "List models",
    description: "Lists the generation engines this server offers; the first is the default.",
    method: "GET",
    path: "/api/v1/models",
    input: { ...page },
    annotations: read,
  },
  {
    name: "generate_content",
    title: "Generate content",
    description:
      "Generates a piece from a template and a free-text direction, drawing on memories (voice, context) and " +
      "reference materials (cited sources). Creates a content record in status generated, or regenerates the draft " +
      "or generated record named by content_id. Returns the record with its text, sources and word count.",
    method: "POST",
    path: "/api/v1/generate",
    input: {
      template_id: Id.describe("Template to follow (see list_templates)."),
      user_direction: z.string().min(1).max(5000).describe("What to write: topic, angle, audience."),
      content_id: Id.optional().describe("Generate into this existing draft or generated record."),
      memory_ids: Ids.optional().describe("Memories to inject for voice and context (see list_memories)."),
      reference_material_ids: Ids.optional().describe("Reference materials to draw from and cite."),
      ...workspace,
      model: z.string().min(1).max(200).optional().describe("Engine id from list_models (default: the first)."),
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .optional()
        .describe("Same inputs and seed give the same text (builtin engine)."),
    },
    annotations: create,
    omits: ["stream"],
  },
  {
    name: "generate_thesis",
    title: "Generate a thesis",
    description:
      "Drafts a thesis statement with supporting points, each tied to a reference passage, and counterpoints. " +
      "Stores nothing.",
    method: "POST",
    path: "/api/v1/thesis",
    input: {
      user_direction: z.string().min(1).max(5000).describe("The subject and angle."),
      reference_material_ids: Ids.optional().describe("Reference materials the points are drawn from and tied to."),
      memory_ids: Ids.optional().describe("Memories to apply for voice and context (see list_memories)."),
      max_points: z.number().int().min(1).max(10).optional().describe("Supporting points wanted (default 3)."),
      model: z.string().min(1).max(200).optional().describe("Engine id from list_models (default: the first)."),
      ...workspace,
    },
    annotations: { ...read, idempotentHint: true },
  },
  {
    name: "list_contents",
    title: "List contents",
    description: "Lists the content records of a workspace, filtered by status, planned-day range or overdue.",
    method: "GET",
    path: "/api/v1/contents",
    input: {
      ...page,
      ...workspace,
      status: z
        .enum(["draft", "generated", "finalized", "published"])
        .optional()
        .describe("Only records in this status."),
      planned_from: z.iso.date().optional().describe("Planned day on or after (YYYY-MM-DD)."),
      planned_to: z.iso.date().optional().describe("Planned day on or before (YYYY-MM-DD)."),
      overdue: z.boolean().optional().describe("Only overdue (true) or only not overdue (false) records."),
    },
    annotations: read,
  },
  {
    name: "get_content",
    title: "Get content",
    description: "Reads one content record: current text, status, planned day and version count.",
    method: "GET",
    path: "/api/v1/contents/{contentId}",
    pathArgs: { contentId: "content_id" },
    input: { ...contentId, ...workspace },
    annotations: read,
  },
  {
    name: "create_content",
    title: "Create a draft",
    description: "Creates a content record in status draft, e.g. to generate into it later with content_id.",
    method: "POST",
    path: "/api/v1/contents",
    input: {
      title: Text(300).optional().describe("The draft's title."),
      content: Text(500_000).optional().describe("The draft's text (default: empty)."),
      template_id: Id.optional().describe("The template the record is meant for (see list_templates)."),
      ...workspace,
    },
    annotations: create,
  },
  {
    name: "update_content",
    title: "Edit content",
    description: "Changes the title, or the text of a draft or generated record (finalized text is fixed).",
    method: "PATCH",
    path: "/api/v1/contents/{contentId}",
    pathArgs: { contentId: "content_id" },
    input: {
      ...contentId,
      title: Text(300).optional().describe("The new title."),
      content: Text(500_000).optional().describe("The new text (a draft or generated record only)."),
      ...workspace,
    },
    annotations: change,
  },
  {
    name: "finalize_content",
    title: "Finalize content",
    description:
      "Saves the final edited text of a generated record (status becomes finalized) and starts a background " +
      "learning analysis of the edits; follow it with get_learning_job and the returned learning_job_id.",
    method: "POST",
    path: "/api/v1/finalizeContent",
    input: {
      ...contentId,
      finalized_content: z.string().min(1).max(500_000).describe("The final edited text."),
      edit_seconds: z
        .number()
        .int()
        .min(0)
        .max(30 * 86_400)
        .describe("Time spent editing, in seconds."),
      ...workspace,
    },
    annotations: { ...change, idempotentHint: false },
  },
  {
    name: "schedule_content",
    title: "Plan content",
    description:
      "Sets, changes or clears (null) the editorial planned date of a draft, generated or finalized record. Its " +
      "YYYY-MM-DD part is the planned day. Never publishes and never changes the status.",
    method: "PATCH",
    path: "/api/v1/contents/{contentId}/schedule",
    pathArgs: { contentId: "content_id" },
    input: {
      ...contentId,
      scheduled_publish_at: z
        .string()
        .max(64)
        .nullable()
        .describe("An ISO 8601 date or date-time (e.g. 2026-05-04 or 2026-05-04T09:00:00Z), or null to clear."),
      ...workspace,
    },
    annotations: change,
  },
  {
    name: "publish_content",
    title: "Publish content",
    description: "Records the authoritative publication of a finalized record: its status becomes published.",
    method: "POST",
    path: "/api/v1/contents/{contentId}/publication",
    pathArgs: { contentId: "content_id" },
    input: { ...contentId, ...workspace },
    annotations: { ...change, idempotentHint: false },
  },
  {
    name: "list_content_versions",
    title: "List content versions",
    description:
      "Lists the saved versions of a content record's text, oldest first: each generation, edit and finalization.",
    method: "GET",
    path: "/api/v1/contents/{contentId}/versions",
    pathArgs: { contentId: "content_id" },
    input: { ...contentId, ...page, ...workspace },
    annotations: read,
  },
  {
    name: "delete_content",
    title: "Delete content",
    description: "Deletes a content record with its versions. It cannot be undone.",
    method: "DELETE",
    path: "/api/v1/contents/{contentId}",
    pathArgs: { contentId: "content_id" },
    input: { ...contentId, ...workspace },
    annotations: remove,
  },
  {
    name: "score_content",
    title: "Score content",
    description:
      "Scores a text or a content record from 0 to 100 on readability, structure, keywords and match with the " +
      "workspace's learned voice.",
    method: "POST",
    path: "/api/v1/scoring",
    input: {
      content_id: Id.optional().describe("Score this record's current text (or pass text)."),
      text: Text(500_000).optional().describe("Score this text (or pass content_id)."),
      keywords: z.array(Text(100)).max(50).optional().describe("Keywords the text should cover."),
      voice_profile_id: z
        .string()
        .max(80)
        .optional()
        .describe("Score the match with this voice profile (vp_…); without it the voice component is left out."),
      ...workspace,
    },
    annotations: { ...read, idempotentHint: true },
  },
  {
    name: "list_reference_materials",
    title: "List reference materials",
    description:
      "Lists a workspace's reference materials (sources generation draws from), each with its text and an excerpt.",
    method: "GET",
    path: "/api/v1/reference-materials",
    input: { ...page, ...workspace },
    annotations: read,
  },
  {
    name: "get_reference_material",
    title: "Get a reference material",
    description: "Reads one reference material with its full plain text.",
    method: "GET",
    path: "/api/v1/reference-materials/{referenceId}",
    pathArgs: { referenceId: "reference_material_id" },
    input: { reference_material_id: Id.describe("The reference material's id."), ...workspace },
    annotations: read,
  },
  {
    name: "create_reference_material",
    title: "Add a reference material",
    description: "Adds source content (text, Markdown or HTML) to a workspace for generation to draw from and cite.",
    method: "POST",
    path: "/api/v1/reference-materials",
    input: {
      title: Text(200).optional().describe("Defaults to the text's first line."),
      content: z.string().min(1).max(500_000).describe("The material, in the given format."),
      format: z.enum(["text", "markdown", "html"]).describe("How content is written: text, markdown or html."),
      ...workspace,
    },
    annotations: create,
    // source_type is format's other name in the HTTP body (the records' name); a tool needs only one.
    omits: ["file", "source_type"],
  },
  {
    name: "delete_reference_material",
    title: "Delete a reference material",
    description:
      "Deletes a reference material; generation no longer draws from it. Contents already generated keep their text.",
    method: "DELETE",
    path: "/api/v1/reference-materials/{referenceId}",
    pathArgs: { referenceId: "reference_material_id" },
    input: { reference_material_id: Id.describe("The reference material's id."), ...workspace },
    annotations: remove,
  },
  {
    name: "list_memories",
    title: "List memories",
    description: "Lists a workspace's memories: voice notes (how to sound) and context notes (what to know).",
    method: "GET",
    path: "/api/v1/memories",
    input: { ...page, ...workspace, kind: memoryKind.optional().describe("Only voice notes, or only context notes.") },
    annotations: read,
  },
  {
    name: "create_memory",
    title: "Add a memory",
    description: "Adds a voice note (style, vocabulary, dos and don'ts) or a context note (facts, audience).",
    method: "POST",
    path: "/api/v1/memories",
    input: {
      kind: memoryKind.describe("voice (how to sound) or context (what to know)."),
      title: z.string().min(1).max(200).describe("A short name for the note."),
      content: z.string().min(1).max(20_000).describe("The note generation applies."),
      ...workspace,
    },
    annotations: create,
  },
  {
    name: "get_memory",
    title: "Get a memory",
    description: "Reads one memory: its kind, title and content.",
    method: "GET",
    path: "/api/v1/memories/{id}",
    pathArgs: { id: "memory_id" },
    input: { ...memoryId, ...workspace },
    annotations: read,
  },
  {
    name: "update_memory",
    title: "Edit a memory",
    description: "Changes a memory's kind, title or content; the fields left out stay as they are.",
    method: "PATCH",
    path: "/api/v1/memories/{id}",
    pathArgs: { id: "memory_id" },
    input: {
      ...memoryId,
      kind: memoryKind.optional().describe("voice (how to sound) or context (what to know)."),
      title: z.string().min(1).max(200).optional().describe("The new title."),
      content: z.string().min(1).max(20_000).optional().describe("The new note."),
      ...workspace,
    },
    annotations: change,
  },
  {
    name: "delete_memory",
    title: "Delete a memory",
    description: "Deletes a memory; generation no longer applies it.",
    method: "DELETE",
    path: "/api/v1/memories/{id}",
    pathArgs: { id: "memory_id" },
    input: { ...memoryId, ...workspace },
    annotations: remove,
  },
  {
    name: "get_learning_job",
    title: "Get a learning job",
    description:
      "The status (queued, running, succeeded, failed) and result of a learning analysis started by finalize.",
    method: "GET",
    path: "/api/v1/learning-jobs/{jobId}",
    pathArgs: { jobId: "learning_job_id" },
    input: {
      learning_job_id: z
        .string()
        .regex(/^lj_[0-9A-Za-z]{1,64}$/)
        .describe("The lj_… id returned by finalize_content."),
      ...workspace,
    },
    annotations: read,
  },
  {
    name: "list_voice_profiles",
    title: "List voice profiles",
    description:
      "Lists the voice profiles that learning analyses built from finalized edits (account-level: one per " +
      "workspace that has learned). A profile's id is what score_content's voice_profile_id takes.",
    method: "GET",
    path: "/api/v1/voice-profiles",
    input: { ...page },
    annotations: read,
  },
  {
    name: "get_voice_profile",
    title: "Get a voice profile",
    description: "Reads one voice profile: the substitutions, avoided and preferred phrases learned from edits.",
    method: "GET",
    path: "/api/v1/voice-profiles/{id}",
    pathArgs: { id: "voice_profile_id" },
    input: {
      voice_profile_id: z
        .string()
        .regex(/^vp_[0-9A-Za-z]{1,64}$/)
        .describe("The vp_… id (see list_voice_profiles)."),
    },
    annotations: read,
  },
  {
    name: "list_conversions",
    title: "List conversions",
    description: "Lists a workspace's conversions of content records into other formats, oldest first.",
    method: "GET",
    path: "/api/v1/conversions",
    input: { ...page, ...workspace, content_id: Id.optional().describe("Only the conversions of this record.") },
    annotations: read,
  },
  {
    name: "get_conversion",
    title: "Get a conversion",
    description: "Reads one conversion with its output.",
    method: "GET",
    path: "/api/v1/conversions/{id}",
    pathArgs: { id: "conversion_id" },
    input: { conversion_id: Id.describe("The conversion's id."), ...workspace },
    annotations: read,
  },
  {
    name: "create_conversion",
    title: "Convert content",
    description:
      "Converts a content record's current text into another format and stores the conversion: html, markdown, " +
      "plain_text, social_thread (numbered posts) or email (subject and body).",
    method: "POST",
    path: "/api/v1/conversions",
    input: {
      ...contentId,
      target_format: z.enum(TARGET_FORMATS).describe("The format to convert into."),
      ...workspace,
    },
    annotations: create,
  },
  {
    name: "get_knowledge_graph",
    title: "Get the knowledge graph",
    description:
      "The workspace's knowledge graph, built from its reference materials and finalized contents: the most " +
      "mentioned entities and the co-occurrence edges between them.",
    method: "GET",
    path: "/api/v1/knowledge-graph",
    input: {
      ...workspace,
      type: entityType.optional(),
      min_weight: z
        .number()
        .int()
        .min(1)
        .max(1_000_000)
        .optional()
        .describe("Only edges seen at least this often (default 1)."),
      limit: z.number().int().min(1).max(500).optional().describe("Most entities, 1–500 (default 100)."),
    },
    annotations: read,
  },
  {
    name: "search_knowledge_graph_entities",
    title: "Search knowledge graph entities",
    description:
      "Finds entities of the workspace's knowledge graph by label (case-insensitive, matches at the start first), " +
      "each with the entities most often mentioned beside it.",
    method: "GET",
    path: "/api/v1/knowledge-graph/entities",
    input: {
      ...page,
      ...workspace,
      q: Text(200).min(1).optional().describe("Text the labels contain; leave it out for every entity."),
      type: entityType.optional(),
    },
    annotations: read,
  },
  {
    name: "list_workspaces",
    title: "List workspaces",
    description: "Lists the account's workspaces; a key bound to a workspace sees only its own.",
    method: "GET",
    path: "/api/v1/workspaces",
    input: { ...page },
    annotations: read,
    omits: ["workspace_id"],
  },
  {
    name: "get_workspace",
    title: "Get a workspace",
    description: "Reads one workspace of the account: its name and whether it is the default.",
    method: "GET",
    path: "/api/v1/workspaces/{workspaceId}",
    pathArgs: { workspaceId: "workspace_id" },
    input: {
      workspace_id: z.string().min(1).max(64).describe("The workspace's id (ws_…; see list_workspaces)."),
    },
    annotations: read,
  },
  {
    name: "list_images",
    title: "List images",
    description:
      "Lists the account's images, newest first: metadata only (images are account-level, in no workspace). " +
      "The bytes are at GET /api/v1/images/{id}/content over HTTP; no tool returns them.",
    method: "GET",
    path: "/api/v1/images",
    input: {
      ...page,
      source: z
        .enum(["upload", "generated"])
        .optional()
        .describe("Only uploaded images (upload) or only generated ones (generated)."),
    },
    annotations: read,
  },
  {
    name: "get_image",
    title: "Get an image",
    description:
      "Reads one image's metadata: file name, type, size in bytes and pixels, source and prompt. The bytes are at " +
      "GET /api/v1/images/{id}/content over HTTP; no tool returns them.",
    method: "GET",
    path: "/api/v1/images/{id}",
    pathArgs: { id: "image_id" },
    input: { image_id: Id.describe("The image's id (see list_images).") },
    annotations: read,
  },
  {
    name: "generate_image",
    title: "Generate an image",
    description:
      "Generates an image from a prompt and stores it in the account's images. The builtin engine renders a PNG " +
      "(the same prompt, size and seed give the same image); model set to the server's configured image model has " +
      "it drawn by that model. Returns the image's metadata.",
    method: "POST",
    path: "/api/v1/images/generate",
    input: {
      prompt: z.string().min(1).max(RENDER_LIMITS.maxPromptChars).describe("What the image shows."),
      width: z
        .number()
        .int()
        .min(RENDER_LIMITS.minSide)
        .max(RENDER_LIMITS.maxSide)
        .optional()
        .describe(`Width in pixels, ${RENDER_LIMITS.minSide}–${RENDER_LIMITS.maxSide} (default 1024).`),
      height: z
        .number()
        .int()
        .min(RENDER_LIMITS.minSide)
        .max(RENDER_LIMITS.maxSide)
        .optional()
        .describe(`Height in pixels, ${RENDER_LIMITS.minSide}–${RENDER_LIMITS.maxSide} (default 1024).`),
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .optional()
        .describe("Another seed gives another picture for the same prompt (builtin engine; default 0)."),
      model: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("builtin (the default) or the server's configured image model; another is refused."),
    },
    annotations: create,
  },
  {
    name: "upload_image",
    title: "Upload an image",
    description:
      "Stores a PNG, JPEG, GIF or WebP image sent in base64 in the account's images; its type is read from its " +
      "bytes. The /mcp request's body holds at most 1 MiB, so an image of up to about 750 KB fits in a tool call; " +
      "upload larger ones (up to 10 MiB) over HTTP.",
    method: "POST",
    path: "/api/v1/images",
    input: {
      data_base64: z
        .string()
        .min(1)
        .max(1024 * 1024)
        .describe("The image's bytes in base64 (a data: URL prefix is ignored)."),
      filename: Text(255).optional().describe("The file name to store (default: image.<type's extension>)."),
    },
    annotations: create,
    omits: ["file"],
  },
  {
    name: "delete_image",
    title: "Delete an image",
    description: "Deletes an image of the account, its bytes included. It cannot be undone.",
    method: "DELETE",
    path: "/api/v1/images/{id}",
    pathArgs: { id: "image_id" },
    input: { image_id: Id.describe("The image's id (see list_images).") },
    annotations: remove,
  },
  {
    name: "get_account",
    title: "Get the account",
    description: "The caller: its account (id, name, plan) and the id of the API key in use.",
    method: "GET",
    path: "/api/v1/users/me",
    input: {},
    annotations: read,
  },
  {
    name: "get_entitlements",
    title: "Get the entitlements",
    description:
      "What the account's plan allows: API access, the rate limits per minute and per hour, and the month's " +
      "learning-analysis quota (limit, used, remaining).",
    method: "GET",
    path: "/api/v1/users/me/entitlements",
    input: {},
    annotations: read,
  },
  {
    name: "get_current_api_key",
    title: "Get the current API key",
    description:
      "The API key this connection uses: its id, name, scopes, the workspace it is bound to (null: none), expiry " +
      "and last use. A connection made with a web session has no key: api_key_not_found (get_account describes it).",
    method: "GET",
    path: "/api/v1/api-keys/current",
    input: {},
    annotations: read,
  },
  {
    name: "get_usage",
    title: "Get usage",
    description:
      "The account's usage per UTC day and per API key over a range of days (default: the last 30; at most 366): " +
      "requests, generations, words generated, finalizations, learning analyses, images.",
    method: "GET",
    path: "/api/v1/usage",
    input: {
      from: z.iso.date().optional().describe("First UTC day, YYYY-MM-DD (default: 29 days before to)."),
      to: z.iso.date().optional().describe("Last UTC day, YYYY-MM-DD (default: today)."),
    },
    annotations: read,
  },
  {
    name: "get_learning_preferences",
    title: "Get the learning preferences",
    description:
      "Whether finalizing starts a learning analysis (enabled) and whether generation follows what was learned " +
      "(apply_to_generation). Only a web session changes them.",
    method: "GET",
    path: "/api/v1/learning-preferences",
    input: {},
    annotations: read,
  },
];

/** What a tool call adds to the arguments: where the API is and who is calling. */
export interface CallContext {
  /** The /mcp request's URL: tool requests go to the same origin. */
  baseUrl: string;
  /** The caller's Authorization header, sent unchanged with every tool request. */
  authorization: string | null;
  /** The workspace_id of the /mcp URL, used by tools that take one when the arguments name none. */
  defaultWorkspace?: string;
}

/** The HTTP request that performs a tool call. */
export function toolRequest(tool: ToolDef, args: Record<string, unknown>, call: CallContext): Request {
  const rest: Record<string, unknown> = { ...args };
  const path = tool.path.replace(/\{(\w+)\}/g, (_, param: string) => {
    const arg = tool.pathArgs?.[param] ?? param;
    const value = rest[arg];
    delete rest[arg];
    return encodeURIComponent(String(value));
  });
  // Not for a tool whose path names a workspace (get_workspace): its workspace_id is the one it reads.
  const takesWorkspace = "workspace_id" in tool.input && !Object.values(tool.pathArgs ?? {}).includes("workspace_id");
  if (rest.workspace_id === undefined && call.defaultWorkspace !== undefined && takesWorkspace)
    rest.workspace_id = call.defaultWorkspace;
  const url = new URL(path, call.baseUrl);
  const headers = new Headers({ accept: "application/json" });
  if (call.authorization !== null) headers.set("authorization", call.authorization);
  // GET and DELETE take no body (the pipeline reads none): their arguments go in the query, workspace_id included.
  if (tool.method === "GET" || tool.method === "DELETE") {
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) url.searchParams.set(key, String(value));
    return new Request(url, { method: tool.method, headers });
  }
  headers.set("content-type", "application/json");
  return new Request(url, { method: tool.method, headers, body: JSON.stringify(rest) });
}

/**
 * A tool result from the operation's response: its JSON as text and as structured content; an error answer
 * (DESIGN §3's coded body) becomes a tool error, so the agent sees the error_code and can act on it.
 */
export function toolResult(response: Response, text: string): CallToolResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const isObject = typeof json === "object" && json !== null && !Array.isArray(json);
  return {
    content: [{ type: "text", text: text || `HTTP ${response.status}` }],
    ...(isObject ? { structuredContent: json as Record<string, unknown> } : {}),
    ...(response.ok ? {} : { isError: true }),
  };
}
