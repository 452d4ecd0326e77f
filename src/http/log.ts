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
