/**
 * The dashboard's one way to the server: openapi-fetch over the types generated from the served description
 * (schema.d.ts, scripts/dashboard-client.ts), with the web session's token in the Authorization header (spec §5, dual
 * authentication). Every failure becomes an ApiFailure carrying the server's words, code and trace_id, which the
 * pages show as they are (ui/error-note.tsx).
 */
import createClient, { type Middleware } from "openapi-fetch";
import { sandboxMarks } from "../sandbox.js";
import { reauthenticate, sessionToken } from "../session.js";
import type { paths } from "./schema.js";

/** The server's address: the folder the page was loaded from, so that a proxy's path prefix is kept. */
export function serverBase(): string {
  return new URL(".", window.location.href).href.replace(/\/$/, "");
}

/** A refusal or failure of the API, in the server's own words. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly traceId: string | undefined,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The coded error body of DESIGN §3, as far as the dashboard reads it. */
interface ErrorBody {
  message?: string;
  details?: { error_code?: string } & Record<string, unknown>;
  trace_id?: string;
}

/** The ApiFailure of an answer that is not 2xx (its body when it is the coded error, else the status alone). */
export function failureOf(response: Response, body: unknown): ApiFailure {
  const coded = (body ?? {}) as ErrorBody;
  const traceId = coded.trace_id ?? response.headers.get("x-trace-id") ?? undefined;
  const message = coded.message ?? `The server answered ${response.status} ${response.statusText}.`;
  return new ApiFailure(response.status, coded.details?.error_code ?? "unknown", message, traceId, coded.details);
}

/** The copies of requests sent with the session, with the token each went with, to send again after a sign-in. */
const retries = new WeakMap<Request, { copy: Request; token: string }>();

/**
 * Adds the session's token; on its 401, asks the person to sign in again and sends the request once more. Only a
 * request refused for the session still open here waits: one that went before a sign-out, or under a session since
 * replaced, answers its 401 as it is, so that it never runs as whoever signs in next (session.ts startSession).
 */
const withSession: Middleware = {
  onRequest({ request }) {
    const token = sessionToken();
    if (!token || request.headers.has("authorization")) return request;
    request.headers.set("authorization", `Bearer ${token}`);
    retries.set(request, { copy: request.clone(), token });
    return request;
  },
  async onResponse({ request, response }) {
    const sent = retries.get(request);
    if (response.status !== 401 || !sent || sent.token !== sessionToken()) return response;
    // The session ended (expired or signed out elsewhere): the page stays as it is, with what was typed, while the
    // sign-in dialog is open (app.tsx); the request goes again with the new token.
    const token = await reauthenticate();
    sent.copy.headers.set("authorization", `Bearer ${token}`);
    return fetch(sent.copy);
  },
};

/** The typed client of /api/v1, with the session. */
export const api = createClient<paths>({ baseUrl: serverBase() });
api.use(withSession, sandboxMarks);

/** The same client without the session, for signing in (its 401 is a wrong password, not an ended session). */
export const publicApi = createClient<paths>({ baseUrl: serverBase() });
publicApi.use(sandboxMarks);

/** What openapi-fetch answers: the data, or the error body with the response. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a 2xx answer; an ApiFailure for any other (and for a network failure, status 0). */
export async function ok<T>(pending: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await pending;
  } catch (error) {
    if (error instanceof ApiFailure) throw error;
    throw new ApiFailure(
      0,
      "network_error",
      `The server could not be reached (${(error as Error).message}).`,
      undefined,
    );
  }
  if (answer.response.ok) return answer.data as T;
  throw failureOf(answer.response, answer.error);
}

/** One page of a cursor-paged list as the API answers it (DESIGN §3: data, has_more, next_cursor). */
export interface PageOf<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

/** The cursor of the page after `page`, or undefined when it is the last. */
export function nextCursorOf(page: PageOf<unknown>): string | undefined {
  return page.has_more ? (page.next_cursor ?? undefined) : undefined;
}

/** Every item of a cursor-paged list: `read` is called with each next_cursor in turn until has_more is false. */
export async function allPages<T>(read: (cursor: string | undefined) => Promise<PageOf<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    items.push(...page.data);
    cursor = nextCursorOf(page);
  } while (cursor);
  return items;
}
