/** What the calendar reads and writes: the workspace's contents, planned or not, and a content's planned day. */
import { allPages, api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";

/** A content as the calendar shows it. */
export type Content = components["schemas"]["Content"];

type ListQuery = { workspace_id?: string; planned_from?: string; planned_to?: string };

/** Every content of a list, page after page (a month or a workspace holds more than one page of 100). */
export function listAllContents(query: ListQuery): Promise<Content[]> {
  return allPages((cursor) => ok(api.GET("/api/v1/contents", { params: { query: { ...query, limit: 100, cursor } } })));
}

/** Plans a content on a day (null: no planned day); answers the content as the server confirms it. */
export function scheduleContent(contentId: number, day: string | null): Promise<Content> {
  return ok(
    api.PATCH("/api/v1/contents/{contentId}/schedule", {
      params: { path: { contentId } },
      body: { scheduled_publish_at: day },
    }),
  );
}
