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

/** Writes JSON lines to a stream (stdout by default). */
export function jsonLogger(write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const out = (obj: Record<string, unknown>) => write(`${JSON.stringify(obj)}\n`);
  return {
    request: (line) => out({ ...line }),
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

const SECRET_SHAPES = /svc_live_[0-9A-Za-z]+|eyJ[\w-]*\.[\w-]*\.[\w-]*/g;

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
