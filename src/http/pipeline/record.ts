/** The record of an answer: its usage count and its request log line. */
import { iso } from "../../domain/clock.js";
import { redactSecrets } from "../../runtime/log.js";
import type { Services } from "../context.js";
import type { Outgoing } from "../exchange.js";
import type { RequestState } from "./state.js";

/** One request log line's fields, without those logAnswer adds. */
export type AnswerEntry = Omit<Parameters<Services["logger"]["request"]>[0], "time" | "level">;

/** Writes one request log line: its time, and its level from the status (a 5xx is an error). */
export function logAnswer(services: Services, entry: AnswerEntry): void {
  services.logger.request({
    time: iso(services.clock.now()),
    level: entry.status >= 500 ? "error" : "info",
    ...entry,
  });
}

/**
 * Records an answer: every authenticated request not covered by its enclosing one counts in usage (in memory,
 * src/domain/usage.ts), and every request is logged with its path redacted (test/http/log.test.ts).
 */
export function recordAnswer(services: Services, state: RequestState, response: Outgoing): void {
  const principal = state.principal;
  if (principal && !state.covered) services.usage.countFor(principal, { requests: 1 });
  logAnswer(services, {
    method: state.request.method,
    path: redactSecrets(state.url.pathname),
    status: response.status,
    duration_ms: Math.round((performance.now() - state.started) * 100) / 100,
    key_id: principal?.kind === "key" ? principal.key.id : null,
    user_id: principal?.kind === "session" ? principal.userId : null,
    trace_id: state.traceId,
    ...(state.errorCode ? { error_code: state.errorCode } : {}),
  });
}
