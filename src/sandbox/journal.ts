/**
 * The request journal of sandbox mode (WireMock's): the last requests to the server, newest first, with what the
 * client sent (credentials redacted to their shown prefix) and what it was answered, for a test to assert on. Bounded:
 * at most `size` entries, each body at most JOURNAL_BODY_BYTES. Held by test/sandbox/journal.test.ts.
 */
import { displayPrefix, KEY_PREFIX } from "../domain/apikeys.js";
import type { Outgoing } from "../http/exchange.js";
import type { RequestState } from "../http/pipeline/state.js";
import { redactSecrets } from "../runtime/log.js";
import { pathPattern } from "./path-pattern.js";

/** The most bytes of a request body an entry keeps (its JSON text); a longer one is cut and marked. */
export const JOURNAL_BODY_BYTES = 64 * 1024;

/** One request as the journal keeps it. */
export interface JournalEntry {
  time: string;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** The body as the server parsed it (JSON); null when none was read; its JSON text cut short when too long. */
  body: unknown;
  body_truncated: boolean;
  status: number;
  trace_id: string;
  key_id: string | null;
  duration_ms: number;
}

/** What the journal can be filtered by (GET /_sandbox/requests). */
export interface JournalFilter {
  path?: string;
  method?: string;
  key_id?: string;
  status?: number;
}

/** Headers whose values are credentials: kept as their scheme and, for an API key, its shown prefix. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key", "x-metrics-token"]);

/** Body fields that carry a secret (a password, a token): their values are not kept. */
const SECRET_FIELD = /(^|_)(password|secret|token)$/i;

/**
 * A credential header's value as the journal shows it: `Bearer svc_live_AbCd[redacted]`, the prefix the server shows
 * of a key everywhere (apikeys.ts displayPrefix); anything else, `[redacted]` after its scheme.
 */
function shownCredential(value: string): string {
  const scheme = /^(bearer|basic)\s+/i.exec(value)?.[0] ?? "";
  const secret = value.slice(scheme.length);
  return `${scheme}${secret.startsWith(KEY_PREFIX) ? displayPrefix(secret) : ""}[redacted]`;
}

/** The headers of a request, credentials redacted, and any secret-shaped text elsewhere (redactSecrets). */
function shownHeaders(state: RequestState): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of state.request.headers)
    headers[name] = CREDENTIAL_HEADERS.has(name) ? shownCredential(value) : redactSecrets(value);
  return headers;
}

/** A parsed body's JSON text: secret fields and secret-shaped strings redacted, uploaded bytes as their size. */
function bodyText(body: unknown): string {
  const text = JSON.stringify(body, (key, value) => {
    if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
    if (key !== "" && SECRET_FIELD.test(key) && typeof value === "string") return "[redacted]";
    return value;
  });
  return redactSecrets(text);
}

/** The query of a URL, a name given more than once as the list of its values. */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name).map(redactSecrets);
    query[name] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** The last `size` requests, newest first. */
export class RequestJournal {
  private entries: JournalEntry[] = [];

  constructor(readonly size: number) {}

  /** Records a request and its answer; the oldest entry goes when the journal is full. */
  record(state: RequestState, response: Outgoing, now: string): void {
    const text = state.body === undefined ? undefined : bodyText(state.body);
    const cut = text !== undefined && Buffer.byteLength(text) > JOURNAL_BODY_BYTES;
    const principal = state.principal;
    this.entries.push({
      time: now,
      method: state.request.method,
      path: redactSecrets(state.url.pathname),
      query: queryOf(state.url),
      headers: shownHeaders(state),
      body:
        text === undefined
          ? null
          : cut
            ? Buffer.from(text).subarray(0, JOURNAL_BODY_BYTES).toString()
            : JSON.parse(text),
      body_truncated: cut,
      status: response.status,
      trace_id: state.traceId,
      key_id: principal?.kind === "key" ? principal.key.id : null,
      duration_ms: Math.round((performance.now() - state.started) * 100) / 100,
    });
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
  }

  /** The entries that pass the filter, newest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const path = filter.path === undefined ? undefined : pathPattern(filter.path);
    const method = filter.method?.toUpperCase();
    const kept = this.entries.filter(
      (e) =>
        (path === undefined || path.test(e.path)) &&
        (method === undefined || e.method === method) &&
        (filter.key_id === undefined || e.key_id === filter.key_id) &&
        (filter.status === undefined || e.status === filter.status),
    );
    return kept.reverse();
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries = [];
  }
}
