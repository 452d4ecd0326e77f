/** What the library reads and writes: the workspace's reference materials and memories (spec §6, DESIGN §6). */
import { allPages, api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";

/** A reference material as the list shows it (its excerpt, not its whole text). */
export type Reference = components["schemas"]["ReferenceMaterialSummary"];
/** A memory: a voice or context note of the workspace. */
export type Memory = components["schemas"]["Memory"];
/** The format of a pasted reference (an uploaded file's is `file`, set by the server). */
export type ReferenceFormat = Exclude<Reference["source_type"], "file">;
/** What a memory is about: the writing's voice, or the context it is written in. */
export type MemoryKind = Memory["kind"];
/** What a person writes of a memory, when adding or editing one. */
export type MemoryFields = { kind: MemoryKind; title: string; content: string };

/** The formats a pasted reference may be in, with the words the form shows. */
export const FORMATS: { value: ReferenceFormat; label: string }[] = [
  { value: "text", label: "Plain text" },
  { value: "markdown", label: "Markdown" },
  { value: "html", label: "HTML" },
];

/** How a reference was given, in words: a format pasted, or a file uploaded (the server's source_type "file"). */
export function sourceLabel(source: Reference["source_type"]): string {
  return FORMATS.find((f) => f.value === source)?.label ?? "Uploaded file";
}

/** The file types the server takes (src/routes/references.ts): UTF-8 text, Markdown or HTML, up to 5 MiB. */
export const UPLOAD_ACCEPT = ".txt,.md,.markdown,.html,.htm,text/plain,text/markdown,text/html";

/** Every reference material of the workspace (all its pages). */
export function listReferences(workspaceId: string | undefined): Promise<Reference[]> {
  return allPages((cursor) =>
    ok(
      api.GET("/api/v1/reference-materials", { params: { query: { workspace_id: workspaceId, limit: 100, cursor } } }),
    ),
  );
}

/** Adds a reference from pasted text in a format; a blank title is left to the server to choose. */
export function pasteReference(
  workspaceId: string | undefined,
  fields: { title: string; format: ReferenceFormat; content: string },
) {
  const title = fields.title.trim() || undefined;
  return ok(
    api.POST("/api/v1/reference-materials", {
      body: { title, format: fields.format, content: fields.content, workspace_id: workspaceId },
    }),
  );
}

/** Uploads a file as multipart/form-data (field `file`; the title is optional: the server takes the file's name). */
export function uploadReference(workspaceId: string | undefined, file: File, title: string) {
  const form = new FormData();
  form.append("file", file, file.name);
  if (title.trim()) form.append("title", title.trim());
  if (workspaceId) form.append("workspace_id", workspaceId);
  // openapi-fetch sends a FormData body as it is, and the browser writes its Content-Type with the boundary; the
  // generated type describes the form's fields, not a FormData, hence the cast.
  return ok(api.POST("/api/v1/reference-materials", { body: form as never }));
}

/** Deletes a reference material. */
export function deleteReference(id: number) {
  return ok(api.DELETE("/api/v1/reference-materials/{referenceId}", { params: { path: { referenceId: id } } }));
}

/** Every memory of the workspace (all its pages). */
export function listMemories(workspaceId: string | undefined): Promise<Memory[]> {
  return allPages((cursor) =>
    ok(api.GET("/api/v1/memories", { params: { query: { workspace_id: workspaceId, limit: 100, cursor } } })),
  );
}

/** Adds a memory to the workspace. */
export function createMemory(workspaceId: string | undefined, fields: MemoryFields) {
  return ok(api.POST("/api/v1/memories", { body: { ...fields, workspace_id: workspaceId } }));
}

/** Changes a memory's kind, title and content. */
export function updateMemory(id: number, fields: MemoryFields) {
  return ok(api.PATCH("/api/v1/memories/{id}", { params: { path: { id } }, body: fields }));
}

/** Deletes a memory. */
export function deleteMemory(id: number) {
  return ok(api.DELETE("/api/v1/memories/{id}", { params: { path: { id } } }));
}
