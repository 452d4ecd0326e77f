/** Pieces shared by route files: the standard error responses and paging. */

import { type ApiError, invalidInput } from "../domain/errors.js";
import type { Ctx } from "../http/context.js";
import { largeSlots, largeTurns, PIECE_CHARS } from "../http/json-pieces.js";
import type { ResponseDoc } from "../http/route.js";
import { ErrorBodySchema } from "../http/schemas.js";

/** A documented error response: the coded error body, described in the words given. */
export const err = (description: string): ResponseDoc => ({ description, schema: ErrorBodySchema });

/** The error responses every authenticated route may give. */
export const AUTH_ERRORS: Record<number, ResponseDoc> = {
  401: err("Missing or invalid credentials, or an operation not available to API keys."),
  403: err("Plan without API access, insufficient scope, or workspace mismatch (see details.error_code)."),
  429: err("Rate limit exceeded."),
};

/**
 * Errors of routes that take input: the 400 (the description adds the codes the route's own input can give, see
 * http/openapi.ts pipelineErrors, and with them 413 and 415 where the route takes a body).
 */
export const INPUT_ERRORS: Record<number, ResponseDoc> = {
  400: err("Invalid input (details.error_code says which)."),
};

/** The refusals of a body, for a route that documents them in its own words. */
export const BODY_ERRORS: Record<413 | 415, ResponseDoc> = {
  413: err("Request body too large."),
  415: err("Request body is not JSON."),
};

/** Errors of operations that may call the on-prem model server. */
export const UPSTREAM_ERRORS: Record<number, ResponseDoc> = {
  502: err("The model server is unreachable, answered an error, or answered something unusable."),
  504: err("The model server did not answer in time."),
};

/** Errors of operations whose input is processed on the worker pool (workers/limits.ts). */
export const TASK_ERRORS: Record<number, ResponseDoc> = {
  422: err(
    "Processing the input took more than the processing time or the memory one request may use " +
      "(processing_limit_exceeded).",
  ),
};

/** A 404 response documentation. */
export const NOT_FOUND = (what: string): Record<number, ResponseDoc> => ({ 404: err(`${what} not found.`) });

/** A 409 response documentation. */
export const CONFLICT = (what: string): Record<number, ResponseDoc> => ({ 409: err(what) });

/**
 * Checks where a record reached by id lies (DESIGN §3): a key bound to another workspace gets 403
 * workspace_mismatch; a workspace_id the request names explicitly that is not the record's gets the record's 404
 * (`notFound`), since the record is not in that workspace.
 */
export function checkRecordPlace(
  ctx: Pick<Ctx, "checkRecordWorkspace" | "workspace">,
  recordWorkspaceId: string,
  notFound: (workspaceId: string) => ApiError,
): void {
  ctx.checkRecordWorkspace(recordWorkspaceId);
  if (ctx.workspace && ctx.workspace.id !== recordWorkspaceId) throw notFound(ctx.workspace.id);
}

/** One page of a list: its records, whether more follow, and the cursor to them. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * The most characters a page of a list may take as JSON, by jsonSizeBound (far below V8's longest string). 32 MiB: a
 * page is written by the thread answering every request, and a bound of 128 MiB would let one take about half a
 * second to serialise (a page of 100 texts of 500,000 characters takes 110-120 ms at 22 MB of JSON).
 */
export const MAX_PAGE_CHARS = 32 * 1024 * 1024;

/** An upper bound of the length of a value's JSON: every character of a string written as a 6-character escape. */
export function jsonSizeBound(value: unknown): number {
  if (typeof value === "string") return 2 + 6 * value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + 1 + jsonSizeBound(v), 2);
  if (value !== null && typeof value === "object")
    return Object.entries(value).reduce((n, [k, v]) => n + 2 + jsonSizeBound(k) + jsonSizeBound(v), 2);
  return 24;
}

/**
 * Slices one page from up to `limit + 1` rows. With `view`, the page holds the rows' views, fewer than asked when
 * their JSON could pass `maxChars` (always at least one); it then says has_more, and its cursor goes on after the
 * last row given. A page of 100 contents whose texts are control characters (each written as 6) would come to some
 * 600 million characters, past V8's longest string.
 * The rows are taken one at a time, so a statement's iterator is read no further than the page needs: a page that
 * ends by size reads one row past it, not the rest (test/http/pages.test.ts).
 */
export function page<T>(rows: Iterable<T>, limit: number, cursorOf: (row: T) => string): Page<T>;
export function page<T, V>(
  rows: Iterable<T>,
  limit: number,
  cursorOf: (row: T) => string,
  view: (row: T) => V,
  maxChars?: number,
): Page<V>;
export function page<T, V>(
  rows: Iterable<T>,
  limit: number,
  cursorOf: (row: T) => string,
  view?: (row: T) => V,
  maxChars = MAX_PAGE_CHARS,
): Page<T | V> {
  const built = new PageBuilder<T, T | V>(limit, cursorOf, view, maxChars);
  // Leaving the loop early ends the iterator (a statement's iterate() is then reset).
  for (const row of rows) if (!built.take(row)) return built.more();
  return built.end();
}

/**
 * page() for rows of large texts (500,000 characters each), read one at a time: `read(after)` gives the row after
 * `after` (the first for undefined), with no statement left open between two calls (they are turns apart). The
 * rows are read in turns of large work (http/json-pieces.ts largeTurns), a turn ending once the page holds PIECE_CHARS
 * more of text: a page of such rows takes 50-90 ms of the HTTP thread to read, and the requests arriving meanwhile
 * are answered between two rows. A page is read only while it holds one of largeSlots: a burst of such pages is read
 * a few at a time (test/http/json-pieces.test.ts).
 */
export async function pageInTurns<T, V>(
  read: (after: T | undefined) => T | undefined,
  limit: number,
  cursorOf: (row: T) => string,
  view: (row: T) => V,
): Promise<Page<V>> {
  const release = await largeSlots.acquire();
  try {
    const built = new PageBuilder<T, V>(limit, cursorOf, view, MAX_PAGE_CHARS);
    let after: T | undefined;
    // One turn's rows: the page once it ends, else undefined.
    const turn = (): Page<V> | undefined => {
      const from = built.chars;
      for (let row = read(after); row !== undefined; row = read(row)) {
        if (!built.take(row)) return built.more();
        after = row;
        if (built.chars - from >= PIECE_CHARS) return undefined;
      }
      return built.end();
    };
    for (;;) {
      const page = await largeTurns.run(turn);
      if (page !== undefined) return page;
    }
  } finally {
    release();
  }
}

/** One page as its rows are taken: up to `limit` of them, and with `view`, up to `maxChars` of JSON (page()). */
class PageBuilder<T, V> {
  private readonly data: V[] = [];
  private last: T | undefined;
  /** The JSON bound of the views taken (jsonSizeBound). */
  chars = 0;

  constructor(
    private readonly limit: number,
    private readonly cursorOf: (row: T) => string,
    private readonly view: ((row: T) => V) | undefined,
    private readonly maxChars: number,
  ) {}

  /** Takes the next row; false when the page ends before it (it is full, or the row's view would pass maxChars). */
  take(row: T): boolean {
    if (this.data.length === this.limit) return false;
    const item = this.view ? this.view(row) : (row as unknown as V);
    if (this.view) {
      this.chars += jsonSizeBound(item);
      if (this.data.length > 0 && this.chars > this.maxChars) return false;
    }
    this.data.push(item);
    this.last = row;
    return true;
  }

  /** The page, with more rows after it. */
  more(): Page<V> {
    return { data: this.data, has_more: true, next_cursor: this.cursorOf(this.last as T) };
  }

  /** The page, the last of the list. */
  end(): Page<V> {
    return { data: this.data, has_more: false, next_cursor: null };
  }
}

/** Encodes a cursor (the sort key of the last row). */
export function encodeCursor(value: string | number): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Decodes a cursor of the expected type, or answers 400 validation_failed. */
export function decodeCursor<T extends string | number>(
  cursor: string | undefined,
  kind: "string" | "number",
): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    // A number this API issues is an id or an offset: a whole number from 0 (1.5 or 1e300 is no SQL OFFSET).
    if (kind === "number" ? Number.isSafeInteger(value) && value >= 0 : typeof value === "string") return value as T;
  } catch {}
  throw notACursor();
}

/** 400: a cursor this API did not issue (or not for this list). */
export function notACursor(): ApiError {
  return invalidInput("query.cursor", "cursor is not one this list issued: start again without a cursor");
}

/**
 * Pages a small in-memory list (a per-account list such as keys or voice profiles) by a sort key: the rows after
 * the cursor's key, in key order, `limit` at a time, as DESIGN §3's list body.
 */
export function pageList<T>(rows: T[], q: { limit: number; cursor?: string }, keyOf: (row: T) => string): Page<T>;
export function pageList<T, V>(
  rows: T[],
  q: { limit: number; cursor?: string },
  keyOf: (row: T) => string,
  view: (row: T) => V,
): Page<V>;
export function pageList<T, V>(
  rows: T[],
  q: { limit: number; cursor?: string },
  keyOf: (row: T) => string,
  view?: (row: T) => V,
): Page<T> | Page<V> {
  const after = decodeCursor<string>(q.cursor, "string");
  const sorted = rows
    .map((row) => ({ row, key: keyOf(row) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .filter((x) => after === undefined || x.key > after);
  const cursorOf = (x: (typeof sorted)[number]) => encodeCursor(x.key);
  if (view) return page(sorted, q.limit, cursorOf, (x) => view(x.row));
  const p = page(sorted, q.limit, cursorOf);
  return { ...p, data: p.data.map((x) => x.row) };
}

/** The sentence every operation reserved to web sessions ends its description with: who may call it, and how. */
export const SESSION_ONLY =
  "Web session only: an API key gets 401; sign in with POST /api/v1/auth/login and send its token as the Bearer " +
  "credential.";

/** The sentence of an account-level read's description: a key's workspace binding does not change its answer. */
export const ACCOUNT_LEVEL =
  "It is account-level: a key bound to a workspace reads the same answer as any other key of the account.";
