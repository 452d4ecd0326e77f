/** One JSON line per request; secrets never reach it (only key ids are logged). */

/** What a request log line holds. */
export interface RequestLogLine {
  time: string;
  level: "info" | "error";
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  key_id: string | null;
  user_id: number | null;
  trace_id: string;
  error_code?: string;
}

/** Where log lines go; tests collect them. */
export interface Logger {
  request(line: RequestLogLine): void;
  error(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
}

/** The flushes of every JSON logger, run at process exit. */
const flushAtExit = new Set<() => void>();

/** Writes JSON lines to a stream (stdout by default), batched per event-loop turn. */
export function jsonLogger(write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  // The lines of one event-loop turn go out in one write (a write per request costs a system call each), flushed
  // right after the turn, at 64 KiB, and at exit.
  let pending = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === "") return;
    const text = pending;
    pending = "";
    write(text);
  };
  flushAtExit.add(flush);
  if (flushAtExit.size === 1)
    process.once("exit", () => {
      for (const f of flushAtExit) f();
    });
  const out = (obj: Record<string, unknown>) => {
    pending += `${JSON.stringify(obj)}\n`;
    if (pending.length >= 65_536) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    request: (line) => out(line as unknown as Record<string, unknown>),
    error: (message, fields = {}) => out({ time: new Date().toISOString(), level: "error", message, ...fields }),
    info: (message, fields = {}) => out({ time: new Date().toISOString(), level: "info", message, ...fields }),
  };
}

/** A logger that keeps lines in memory, for tests. */
export function memoryLogger(): Logger & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    request: (line) => lines.push({ ...line }),
    error: (message, fields = {}) => lines.push({ level: "error", message, ...fields }),
    info: (message, fields = {}) => lines.push({ level: "info", message, ...fields }),
  };
}

// Linear on any input: a token starts only where a run of word characters starts, and the lookahead captures
// (atomically, through the back-reference) each part once, so a long run of "eyJeyJ…" is not rescanned.
const SECRET_SHAPES = /svc_live_[0-9A-Za-z]+|(?<![\w-])eyJ(?=([\w-]*))\1\.(?=([\w-]*))\2\.[\w-]*/g;

/**
 * Replaces anything shaped like an API key secret or a session token, for text a client put in a path or
 * a field that the server would otherwise echo into a log line or an error body (DESIGN §3).
 */
export function redactSecrets<T>(value: T): T {
  if (typeof value === "string") return value.replace(SECRET_SHAPES, "[redacted]") as T;
  if (value === null || typeof value !== "object") return value;
  const json = JSON.stringify(value);
  const redacted = json.replace(SECRET_SHAPES, "[redacted]");
  return redacted === json ? value : JSON.parse(redacted);
}
