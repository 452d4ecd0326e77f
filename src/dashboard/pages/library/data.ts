/** What the library reads and writes: the workspace's reference materials and memories (spec §6, DESIGN §6). */
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";

export type Reference = components["schemas"]["ReferenceMaterialSummary"];
export type Memory = components["schemas"]["Memory"];
export type ReferenceFormat = Exclude<Reference["source_type"], "file">;
export type MemoryKind = Memory["kind"];
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

/** Every item of a paged list, page after page. */
async function all<T>(
  read: (cursor?: string) => Promise<{ data: T[]; has_more: boolean; next_cursor?: string | null }>,
) {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const answer = await read(cursor);
    items.push(...answer.data);
    cursor = answer.has_more ? (answer.next_cursor ?? undefined) : undefined;
  } while (cursor);
  return items;
}

export function listReferences(workspaceId: string | undefined): Promise<Reference[]> {
  return all((cursor) =>
    ok(
      api.GET("/api/v1/reference-materials", { params: { query: { workspace_id: workspaceId, limit: 100, cursor } } }),
    ),
  );
}

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

export function deleteReference(id: number) {
  return ok(api.DELETE("/api/v1/reference-materials/{referenceId}", { params: { path: { referenceId: id } } }));
}

export function listMemories(workspaceId: string | undefined): Promise<Memory[]> {
  return all((cursor) =>
    ok(api.GET("/api/v1/memories", { params: { query: { workspace_id: workspaceId, limit: 100, cursor } } })),
  );
}

export function createMemory(workspaceId: string | undefined, fields: MemoryFields) {
  return ok(api.POST("/api/v1/memories", { body: { ...fields, workspace_id: workspaceId } }));
}

export function updateMemory(id: number, fields: MemoryFields) {
  return ok(api.PATCH("/api/v1/memories/{id}", { params: { path: { id } }, body: fields }));
}

export function deleteMemory(id: number) {
  return ok(api.DELETE("/api/v1/memories/{id}", { params: { path: { id } } }));
}
