/**
 * `Prefer: fault=stream_error_after=N`: a streamed answer (text/event-stream) cut after its N-th `delta` event by the
 * `error` event the real stream sends when generation fails (routes/generate.ts), its source cancelled, so that
 * nothing is stored, as after a real failure. Held by test/sandbox/prefer.test.ts.
 */
import { ApiError } from "../domain/errors.js";
import { errorBody } from "../http/errors.js";

/** The error the cut stream reports: the model server's failure, as a real one mid-stream is. */
function streamFailure(): ApiError {
  return new ApiError(
    "upstream_error",
    "The model server answered with an error: the stream failed (sandbox mode, as the request's Prefer header asked).",
  );
}

/** The SSE `error` event of an error, as routes/generate.ts writes it: the coded body with its HTTP status. */
function errorEvent(err: ApiError, traceId: string): Uint8Array {
  return new TextEncoder().encode(
    `event: error\ndata: ${JSON.stringify({ ...errorBody(err, traceId), status: err.status })}\n\n`,
  );
}

/** The events of `source`, passed on whole, until `deltas` delta events have gone out; then the error event, and end. */
export function streamCutAfter(
  source: ReadableStream<Uint8Array>,
  deltas: number,
  traceId: string,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = "";
  let seen = 0;
  const cut = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    controller.enqueue(errorEvent(streamFailure(), traceId));
    controller.close();
    void reader.cancel().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      if (deltas === 0) cut(controller);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        if (pending !== "") controller.enqueue(encoder.encode(pending));
        controller.close();
        return;
      }
      pending += decoder.decode(value, { stream: true });
      // Whole events only (each ends with a blank line): one is counted as it goes out.
      for (let end = pending.indexOf("\n\n"); end >= 0; end = pending.indexOf("\n\n")) {
        const event = pending.slice(0, end + 2);
        pending = pending.slice(end + 2);
        controller.enqueue(encoder.encode(event));
        if (event.startsWith("event: delta\n") && ++seen >= deltas) return cut(controller);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
