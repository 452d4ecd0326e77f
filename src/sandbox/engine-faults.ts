/**
 * Fault rules for the on-prem model engine (`"answer": {"engine": "slow" | "fail" | "garbage"}`): the model server's
 * calls go through a fetch that, when a rule answers the call, makes the model server slow, failing or garbled, so
 * that the server's real handling of a broken model server (domain/generation/llm.ts) answers the request: 504
 * upstream_timeout, 502 upstream_error, 502 upstream_invalid_response. Held by test/sandbox/engine-faults.test.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { LlmConfig, LlmFetch } from "../domain/generation/llm.js";

/** What an engine rule makes the model server do. */
export const ENGINE_FAULTS = ["slow", "fail", "garbage"] as const;
/** One of ENGINE_FAULTS: slow (no answer until the timeout), fail (a 500), garbage (an unreadable answer). */
export type EngineFault = (typeof ENGINE_FAULTS)[number];

/** An engine rule's answer to one call: the fault, the rule's id, and for `slow` its delay (none: until the timeout). */
export interface EngineAnswer {
  fault: EngineFault;
  rule: string;
  delayMs?: number;
  delayMaxMs?: number;
}

/** Waits until the call's signal aborts (the server's timeout, or its client gone), rejecting with its reason. */
function untilAborted(signal: AbortSignal | null | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** `slow`: the wait before the model server answers; without a delay, longer than any timeout. */
function slowness(answer: EngineAnswer, signal: AbortSignal | null | undefined, random: () => number): Promise<void> {
  if (answer.delayMs === undefined) return untilAborted(signal);
  const max = answer.delayMaxMs ?? answer.delayMs;
  const ms = answer.delayMs + Math.round(random() * (max - answer.delayMs));
  return sleep(ms, undefined, { signal: signal ?? undefined });
}

/** `fail`: the model server's own failure, an OpenAI-style error object with status 500. */
function failure(rule: string): Response {
  const message = `The model server failed (sandbox mode, fault rule ${rule}).`;
  return Response.json({ error: { message, type: "server_error" } }, { status: 500 });
}

/** `garbage`: an answer of status 200 that is not the protocol, as a plain answer or as a stream's event. */
function garbage(init: RequestInit): Response {
  const accept = new Headers(init.headers).get("accept") ?? "";
  const streamed = accept.includes("text/event-stream");
  const bytes = "\u0000\u00ff<<garbled model output>>{";
  return new Response(streamed ? `data: ${bytes}\n\n` : bytes, {
    status: 200,
    headers: { "content-type": streamed ? "text/event-stream" : "application/json" },
  });
}

/** The fetch that lets `answerFor` answer a call to the model server in its place (or delay it); else `real`. */
export function faultingFetch(
  answerFor: () => EngineAnswer | undefined,
  random: () => number,
  real: LlmFetch = fetch,
): LlmFetch {
  return async (url, init) => {
    const answer = answerFor();
    if (answer?.fault === "fail") return failure(answer.rule);
    if (answer?.fault === "garbage") return garbage(init);
    if (answer?.fault === "slow") await slowness(answer, init.signal, random);
    return real(url, init);
  };
}

/**
 * Routes the configured model server's calls through `answerFor` (nothing when none is configured). The engines
 * and the thesis step hold the same LlmConfig object (server/services.ts), so its fetch is set in place; the one
 * the sandbox found stays its fallback.
 */
export function faultTheModelServer(
  llm: LlmConfig | undefined,
  answerFor: () => EngineAnswer | undefined,
  random: () => number,
): void {
  if (llm) llm.fetch = faultingFetch(answerFor, random, llm.fetch);
}
