/**
 * POST /generate with `stream: true`: the server answers text/event-stream with `delta` {text} events while the
 * engine writes, then `done` (the stored record) or `error` (the coded error body with its HTTP status). The request
 * goes through the typed client (`parseAs: "stream"`) so the session middleware adds the token.
 */
import { ApiFailure, api, failureOf } from "../../api/client.js";
import type { components } from "../../api/schema.js";

/** The body of POST /generate. */
export type GenerateRequest = components["schemas"]["GenerateRequest"];
/** What a generation stores and answers. */
export type Generated = components["schemas"]["GenerateResponse"];

interface ServerEvent {
  event: string;
  data: string;
}

/** The complete events of a buffer (separated by a blank line) and what is left of it. */
function splitEvents(buffer: string): { events: ServerEvent[]; rest: string } {
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? "";
  const events = blocks.map((block) => {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    return { event, data: data.join("\n") };
  });
  return { events, rest };
}

/** The ApiFailure of an `error` event: its body is the coded error body plus `status`. */
function streamFailure(data: string): ApiFailure {
  const body = JSON.parse(data) as { status?: number; message?: string; trace_id?: string; details?: object };
  const details = (body.details ?? {}) as { error_code?: string } & Record<string, unknown>;
  return new ApiFailure(
    body.status ?? 500,
    details.error_code ?? "unknown",
    body.message ?? "Generation failed.",
    body.trace_id,
    details,
  );
}

/**
 * Generates, calling `onText` with the whole text written so far after every delta; resolves to the stored record
 * (`done`), throws an ApiFailure for a refusal before the stream or an `error` event in it.
 */
export async function generateStreamed(body: GenerateRequest, onText: (text: string) => void): Promise<Generated> {
  const { data, error, response } = await api.POST("/api/v1/generate", {
    body: { ...body, stream: true },
    parseAs: "stream",
  });
  if (!response.ok || !data) throw failureOf(response, error);
  const reader = (data as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const split = splitEvents(buffer + decoder.decode(value, { stream: true }));
    buffer = split.rest;
    for (const { event, data: payload } of split.events) {
      if (event === "delta") {
        text += (JSON.parse(payload) as { text: string }).text;
        onText(text);
      } else if (event === "done") return JSON.parse(payload) as Generated;
      else if (event === "error") throw streamFailure(payload);
    }
  }
  throw new ApiFailure(0, "stream_ended", "The server ended the stream before the content was stored.", undefined);
}
