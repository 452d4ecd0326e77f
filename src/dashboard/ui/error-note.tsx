/** An error, in words: the server's message, its code and the trace_id a support request quotes. */
import { ApiFailure } from "../api/client.js";

/** Shows an error (an ApiFailure with its code and trace_id, or any other) as an alert; nothing for none. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiFailure)
    return (
      <div class="error-note" role="alert">
        <p>{error.message}</p>
        <p class="muted">
          {error.status > 0 ? `${error.status} ${error.code}` : error.code}
          {error.traceId ? ` · trace_id ${error.traceId}` : ""}
        </p>
      </div>
    );
  return (
    <div class="error-note" role="alert">
      <p>{error instanceof Error ? error.message : String(error)}</p>
    </div>
  );
}
