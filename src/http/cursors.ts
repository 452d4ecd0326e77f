/**
 * Binds a list's cursors to the list that issued them. A cursor is the last row's sort key, which another list, another
 * filter or another workspace reads as a place in its own rows: contents of workspace A's cursor skipped workspace B's
 * records before it, and a workspace id given to the key list ended it early, each answered 200. Every next_cursor
 * now carries a tag of its operation, path parameters, filters (the query without `cursor` and `limit`, which may
 * change between pages), account and workspace, and a cursor whose tag is not the request's is 400.
 */
import { createHash } from "node:crypto";
import { ApiError } from "../domain/errors.js";

/** What a cursor is bound to: the list as the request names it. */
export interface CursorScope {
  operationId: string;
  params: unknown;
  query: Record<string, unknown>;
  accountId: number | undefined;
  workspaceId: string | undefined;
}

function tagOf(scope: CursorScope): string {
  const filters = Object.keys(scope.query)
    .filter((k) => k !== "cursor" && k !== "limit" && scope.query[k] !== undefined)
    .sort()
    .map((k) => [k, scope.query[k]]);
  const bound = [scope.operationId, scope.params, filters, scope.accountId ?? null, scope.workspaceId ?? null];
  return createHash("sha256").update(JSON.stringify(bound)).digest("base64url").slice(0, 11);
}

/** A list's next_cursor as sent: its own cursor and the tag of its scope. */
export function bindCursor(cursor: string, scope: CursorScope): string {
  return `${cursor}.${tagOf(scope)}`;
}

/**
 * The list's own cursor inside a cursor sent back, or 400 validation_failed when it was issued for another list,
 * filter or workspace. One without a tag (issued before cursors were bound, by a server upgraded during the walk)
 * goes to the list as it is, which checks its shape.
 */
export function unbindCursor(cursor: string, scope: CursorScope): string {
  const dot = cursor.lastIndexOf(".");
  if (dot === -1) return cursor;
  if (cursor.slice(dot + 1) !== tagOf(scope)) throw otherListsCursor();
  return cursor.slice(0, dot);
}

function otherListsCursor(): ApiError {
  const issue =
    "cursor was issued for another list, filter or workspace: send it with the query of the page it came " +
    "from (only limit may change), or start again without a cursor";
  return new ApiError("validation_failed", issue, { issues: [{ path: "query.cursor", message: issue }] });
}
