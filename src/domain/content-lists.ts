/** The editorial calendar's filters (GET /contents): a request's filters as the store's content filter. */
import type { ContentFilter, ContentStatus } from "../db/contents.js";
import { invalidInput } from "./errors.js";

/** The filters a content listing takes, as the request names them. */
export interface ContentListFilters {
  status?: ContentStatus;
  planned_from?: string;
  planned_to?: string;
  overdue?: "true" | "false";
}

/**
 * The store's filter of a content listing of a workspace, `today` deciding what is overdue. A planned range that
 * ends before it starts is a mistake in the request (400), as it is for /usage: a 200 with no data would hide it.
 */
export function contentFilter(
  workspaceId: string,
  q: ContentListFilters,
  today: string,
  page: { afterId: number; limit: number },
): ContentFilter {
  if (q.planned_from && q.planned_to && q.planned_from > q.planned_to)
    throw invalidInput("query.planned_from", `planned_from must be a day on or before planned_to (${q.planned_to})`);
  return {
    workspaceId,
    status: q.status,
    plannedFrom: q.planned_from,
    plannedTo: q.planned_to,
    overdueBefore: q.overdue === "true" ? today : undefined,
    notOverdueOn: q.overdue === "false" ? today : undefined,
    ...page,
  };
}
