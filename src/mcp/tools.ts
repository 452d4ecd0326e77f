/**
 * The MCP tools as data: each one is an operation of this API, named, titled and described for an agent, with how
 * its arguments map to the operation's path. Their input schemas are derived from the route table's
 * (tool-schemas.ts), never written here.
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Method } from "../http/route.js";

/** One tool and the operation it calls. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  method: Method;
  /** The route's path, with `{param}` placeholders. */
  path: string;
  /** The tool argument that fills each path placeholder (default: the placeholder's own name). */
  pathArgs?: Record<string, string>;
  annotations: ToolAnnotations;
  /** Fields of the operation the tool leaves out on purpose (checked against the route table). */
  omits?: readonly string[];
  /**
   * Arguments the tool requires that its route's schema makes one choice among others (content, or the file the tool
   * omits): listed as required in its input schema.
   */
  requires?: readonly string[];
}

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
    annotations: read,
  },
  {
    name: "get_template",
    title: "Get a template",
    description: "Reads one template with its sections, word budgets and tone.",
    method: "GET",
    path: "/api/v1/templates/{id}",
    pathArgs: { id: "template_id" },
    annotations: read,
  },
  {
    name: "list_models",
    title: "List models",
    description: "Lists the generation engines this server offers; the first is the default.",
    method: "GET",
    path: "/api/v1/models",
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
    annotations: { ...read, idempotentHint: true },
  },
  {
    name: "list_contents",
    title: "List contents",
    description: "Lists the content records of a workspace, filtered by status, planned-day range or overdue.",
    method: "GET",
    path: "/api/v1/contents",
    annotations: read,
  },
  {
    name: "get_content",
    title: "Get content",
    description: "Reads one content record: current text, status, planned day and version count.",
    method: "GET",
    path: "/api/v1/contents/{contentId}",
    pathArgs: { contentId: "content_id" },
    annotations: read,
  },
  {
    name: "create_content",
    title: "Create a draft",
    description: "Creates a content record in status draft, e.g. to generate into it later with content_id.",
    method: "POST",
    path: "/api/v1/contents",
    annotations: create,
  },
  {
    name: "update_content",
    title: "Edit content",
    description: "Changes the title, or the text of a draft or generated record (finalized text is fixed).",
    method: "PATCH",
    path: "/api/v1/contents/{contentId}",
    pathArgs: { contentId: "content_id" },
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
    annotations: change,
  },
  {
    name: "publish_content",
    title: "Publish content",
    description: "Records the authoritative publication of a finalized record: its status becomes published.",
    method: "POST",
    path: "/api/v1/contents/{contentId}/publication",
    pathArgs: { contentId: "content_id" },
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
    annotations: read,
  },
  {
    name: "delete_content",
    title: "Delete content",
    description: "Deletes a content record with its versions. It cannot be undone.",
    method: "DELETE",
    path: "/api/v1/contents/{contentId}",
    pathArgs: { contentId: "content_id" },
    annotations: remove,
  },
  {
    name: "score_content",
    title: "Score content",
    description:
      "Scores a text or a content record from 0 to 100 on readability, structure, keywords, prose (repetition, " +
      "filler, sentence variety, fragments) and match with the workspace's learned voice.",
    method: "POST",
    path: "/api/v1/scoring",
    annotations: { ...read, idempotentHint: true },
  },
  {
    name: "list_reference_materials",
    title: "List reference materials",
    description:
      "Lists a workspace's reference materials (sources generation draws from), each with its text and an excerpt.",
    method: "GET",
    path: "/api/v1/reference-materials",
    annotations: read,
  },
  {
    name: "get_reference_material",
    title: "Get a reference material",
    description: "Reads one reference material with its full plain text.",
    method: "GET",
    path: "/api/v1/reference-materials/{referenceId}",
    pathArgs: { referenceId: "reference_material_id" },
    annotations: read,
  },
  {
    name: "create_reference_material",
    title: "Add a reference material",
    description: "Adds source content (text, Markdown or HTML) to a workspace for generation to draw from and cite.",
    method: "POST",
    path: "/api/v1/reference-materials",
    annotations: create,
    // source_type is format's other name in the HTTP body (the records' name); a tool needs only one.
    omits: ["file", "source_type"],
    requires: ["content"],
  },
  {
    name: "delete_reference_material",
    title: "Delete a reference material",
    description:
      "Deletes a reference material; generation no longer draws from it. Contents already generated keep their text.",
    method: "DELETE",
    path: "/api/v1/reference-materials/{referenceId}",
    pathArgs: { referenceId: "reference_material_id" },
    annotations: remove,
  },
  {
    name: "list_memories",
    title: "List memories",
    description: "Lists a workspace's memories: voice notes (how to sound) and context notes (what to know).",
    method: "GET",
    path: "/api/v1/memories",
    annotations: read,
  },
  {
    name: "create_memory",
    title: "Add a memory",
    description: "Adds a voice note (style, vocabulary, dos and don'ts) or a context note (facts, audience).",
    method: "POST",
    path: "/api/v1/memories",
    annotations: create,
  },
  {
    name: "get_memory",
    title: "Get a memory",
    description: "Reads one memory: its kind, title and content.",
    method: "GET",
    path: "/api/v1/memories/{id}",
    pathArgs: { id: "memory_id" },
    annotations: read,
  },
  {
    name: "update_memory",
    title: "Edit a memory",
    description: "Changes a memory's kind, title or content; the fields left out stay as they are.",
    method: "PATCH",
    path: "/api/v1/memories/{id}",
    pathArgs: { id: "memory_id" },
    annotations: change,
  },
  {
    name: "delete_memory",
    title: "Delete a memory",
    description: "Deletes a memory; generation no longer applies it.",
    method: "DELETE",
    path: "/api/v1/memories/{id}",
    pathArgs: { id: "memory_id" },
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
    annotations: read,
  },
  {
    name: "get_voice_profile",
    title: "Get a voice profile",
    description: "Reads one voice profile: the substitutions, avoided and preferred phrases learned from edits.",
    method: "GET",
    path: "/api/v1/voice-profiles/{id}",
    pathArgs: { id: "voice_profile_id" },
    annotations: read,
  },
  {
    name: "list_conversions",
    title: "List conversions",
    description: "Lists a workspace's conversions of content records into other formats, oldest first.",
    method: "GET",
    path: "/api/v1/conversions",
    annotations: read,
  },
  {
    name: "get_conversion",
    title: "Get a conversion",
    description: "Reads one conversion with its output.",
    method: "GET",
    path: "/api/v1/conversions/{id}",
    pathArgs: { id: "conversion_id" },
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
    annotations: create,
  },
  {
    name: "get_knowledge_graph",
    title: "Get the knowledge graph",
    description:
      "The workspace's knowledge graph, built from its reference materials and finalized contents: a page of the " +
      "most mentioned entities (each with its source_count and first sources; cursor for the next page) and the " +
      "co-occurrence edges between them.",
    method: "GET",
    path: "/api/v1/knowledge-graph",
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
    annotations: read,
  },
  {
    name: "list_knowledge_graph_entity_sources",
    title: "List an entity's sources",
    description:
      "The reference materials and contents that mention an entity of the workspace's knowledge graph, a page at a " +
      "time (an entity's node carries only its first sources).",
    method: "GET",
    path: "/api/v1/knowledge-graph/entities/{entityId}/sources",
    pathArgs: { entityId: "entity_id" },
    annotations: read,
  },
  {
    name: "list_workspaces",
    title: "List workspaces",
    description: "Lists the account's workspaces; a key bound to a workspace sees only its own.",
    method: "GET",
    path: "/api/v1/workspaces",
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
    annotations: remove,
  },
  {
    name: "get_account",
    title: "Get the account",
    description: "The caller: its account (id, name, plan) and the id of the API key in use.",
    method: "GET",
    path: "/api/v1/users/me",
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
    annotations: read,
  },
];
