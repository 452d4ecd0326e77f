/** One JSON line per request; secrets never reach it (only key ids are logged). */
import fs from "node:fs";

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
  /** Resolves when every line logged so far is written (a server's close awaits it). */
  drain?(): Promise<void>;
}

/** Where a JSON logger's text goes. */
export interface Sink {
  write(text: string): void;
  /** Resolves when what was written is out. */
  drain(): Promise<void>;
  /** Writes what is still queued, then `text`, now (at exit). */
  flushSync(text: string): void;
}

/**
 * Standard output. When it is a file, Node writes to it synchronously on the calling thread, and a write() to a file
 * on ext4 waits while the journal commits, which the group commit's fsyncs make frequent (db/durability.ts): the
 * HTTP thread stalled for milliseconds in its log writes under a write load. Into a file the text is written by
 * libuv's thread pool instead, one write at a time, in order. Pipes and terminals keep process.stdout.
 */
function stdoutText(): Sink {
  let isFile = false;
  try {
    isFile = fs.fstatSync(1).isFile();
  } catch {}
  return isFile
    ? fileSink(1)
    : {
        write: (text) => void process.stdout.write(text),
        drain: () => Promise.resolve(),
        flushSync: (text) => void (text && process.stdout.write(text)),
      };
}

/**
 * A JSON logger's standard output: after a line infoLineNow gave up on part-way (`now.cut`), the next text starts on
 * a line of its own. `now` and `sink` are stdoutNow and standard output (stdoutText) but for tests.
 */
export function stdoutSink(now: LineOutput = stdoutNow, sink: Sink = stdoutText()): Sink {
  return {
    write: (text) => sink.write(endCutLine(now) + text),
    drain: () => sink.drain(),
    flushSync: (text) => sink.flushSync(endCutLine(now) + text),
  };
}

/** Appends to an open file descriptor off the calling thread, in order (see stdoutSink). */
export function fileSink(fd: number): Sink {
  const queued: string[] = [];
  let writing: Promise<void> | undefined;
  const writeAll = (buffer: Buffer, done: () => void) => {
    fs.write(fd, buffer, 0, buffer.length, null, (error, n) => {
      // A log that cannot be written (disk full, closed descriptor) drops the text rather than the server.
      if (error || n >= buffer.length) return done();
      writeAll(buffer.subarray(n), done);
    });
  };
  const pump = () => {
    if (writing || queued.length === 0) return;
    const buffer = Buffer.from(queued.join(""));
    queued.length = 0;
    writing = new Promise((resolve) =>
      writeAll(buffer, () => {
        writing = undefined;
        resolve();
        pump();
      }),
    );
  };
  return {
    write(text) {
      queued.push(text);
      pump();
    },
    async drain() {
      while (writing) await writing;
    },
    flushSync(text) {
      // At exit: a write still in flight on the pool is not waited for (a server's close drains first).
      const rest = queued.join("") + text;
      queued.length = 0;
      if (rest === "") return;
      try {
        fs.writeSync(fd, rest);
      } catch {}
    },
  };
}

/** The shortest time between two writes of a JSON logger's lines (the first line after a quiet spell goes at once). */
export const FLUSH_GAP_MS = 20;

/** The flushes of every JSON logger, run at process exit. */
const flushAtExit = new Set<() => void>();

/**
 * Writes JSON lines to a stream (stdout by default, through stdoutSink; `sink` replaces it in tests), batched: at the
 * end of an event-loop turn, and under a load at most every FLUSH_GAP_MS.
 */
export function jsonLogger(
  write?: (line: string) => void,
  sink: Sink | undefined = write ? undefined : stdoutSink(),
): Logger {
  const emit = write ?? ((text: string) => sink?.write(text));
  // The lines of one event-loop turn go out in one write (a write per request costs a system call each), flushed
  // right after the turn, at 64 KiB, and at exit. Under a load, writes come at most every FLUSH_GAP_MS: each write
  // into a file also wakes a thread of libuv's pool, and a write per turn was 4-6% of an authenticated GET's CPU.
  let pending = "";
  // The flush to come (its timer or immediate), cancelled by an earlier one (64 KiB, drain) so that the gap holds.
  let scheduled: { cancel(): void } | undefined;
  let flushedAt = Number.NEGATIVE_INFINITY;
  const flush = () => {
    scheduled?.cancel();
    scheduled = undefined;
    flushedAt = performance.now();
    if (pending === "") return;
    const text = pending;
    pending = "";
    emit(text);
  };
  flushAtExit.add(() => {
    // Synchronously: nothing runs after the exit event.
    const text = pending;
    pending = "";
    if (sink) sink.flushSync(text);
    else if (text) emit(text);
  });
  if (flushAtExit.size === 1)
    process.once("exit", () => {
      for (const f of flushAtExit) f();
    });
  const out = (obj: Record<string, unknown>) => {
    pending += `${JSON.stringify(obj)}\n`;
    if (pending.length >= 65_536) flush();
    else if (!scheduled) {
      const wait = flushedAt + FLUSH_GAP_MS - performance.now();
      if (wait <= 0) {
        const immediate = setImmediate(flush);
        scheduled = { cancel: () => clearImmediate(immediate) };
      } else {
        // Unreferenced: a process with nothing else to do exits at once, its lines written by the exit flush.
        const timer = setTimeout(flush, wait).unref();
        scheduled = { cancel: () => clearTimeout(timer) };
      }
    }
  };
  return {
    request: (line) => out(line as unknown as Record<string, unknown>),
    error: (message, fields = {}) => out({ time: new Date().toISOString(), level: "error", message, ...fields }),
    info: (message, fields = {}) => out({ time: new Date().toISOString(), level: "info", message, ...fields }),
    drain: async () => {
      flush();
      await sink?.drain();
    },
  };
}

/** Where infoLineNow writes, synchronously; tests replace it. */
export interface LineOutput {
  /** Writes from `offset` on, returning the bytes written (fs.writeSync); a full non-blocking pipe throws EAGAIN. */
  write(bytes: Buffer, offset: number): number;
  /** Blocks the thread for `ms`. */
  sleep(ms: number): void;
  /** A line was given up part-way: the next text written here starts with "\n" (endCutLine). */
  cut: boolean;
}

/** What stdoutNow's sleep waits on: nothing wakes it, so it returns after its time. */
const NEVER_NOTIFIED = new Int32Array(new SharedArrayBuffer(4));

/** Standard output, for infoLineNow. */
export const stdoutNow: LineOutput = {
  write: (bytes, offset) => fs.writeSync(1, bytes, offset),
  sleep: (ms) => void Atomics.wait(NEVER_NOTIFIED, 0, 0, ms),
  cut: false,
};

/** How long infoLineNow waits for a full pipe, in all, before its first byte is written and once part of it is. */
const WAIT_BEFORE_MS = 100;
const WAIT_AFTER_PART_MS = 2000;

/** "\n" if the last line written to `out` was given up part-way (and now ended), else "". */
export function endCutLine(out: LineOutput): string {
  if (!out.cut) return "";
  out.cut = false;
  return "\n";
}

/**
 * Writes one `info` line to standard output now, in the JSON loggers' format, for a start-up event whose moment matters
 * to whoever reads it: a JSON logger's line waits for the end of the event-loop turn (or longer, under a load), and the
 * start-up steps after it (migrations, a first start's setup) run synchronously. A reader parsing JSON lines must never
 * get part of one: a full non-blocking pipe (EAGAIN, possibly after a partial write) is waited for, sleeping 1, 2, 4...
 * up to 50 ms between tries, up to 100 ms in all while nothing of the line is written, and up to 2 s once part of it
 * is, as the line is then cut. A standard output that cannot take it (closed, or still full) drops it, as the loggers
 * drop theirs; one given up part-way is ended by the next text written there (this function's or a JSON logger's on
 * standard output), which starts with "\n": the cut line is one line a reader skips as it skips anything that is not
 * JSON, and the lines after it parse.
 */
export function infoLineNow(message: string, fields: Record<string, unknown> = {}, out = stdoutNow): void {
  const line = `${JSON.stringify({ time: new Date().toISOString(), level: "info", message, ...fields })}\n`;
  const prefix = endCutLine(out);
  const bytes = Buffer.from(prefix + line);
  let written = 0;
  let slept = 0;
  let pause = 1;
  while (written < bytes.length) {
    let full = false;
    try {
      const n = out.write(bytes, written);
      written += n;
      full = n === 0;
    } catch (e) {
      full = (e as NodeJS.ErrnoException).code === "EAGAIN";
      if (!full) break;
    }
    if (!full) continue;
    if (slept >= (written === 0 ? WAIT_BEFORE_MS : WAIT_AFTER_PART_MS)) break;
    out.sleep(pause);
    slept += pause;
    pause = Math.min(pause * 2, 50);
  }
  // Stopped inside the line, or before the "\n" that was to end a cut one: the next text ends it.
  if (written < bytes.length && written !== prefix.length) out.cut = true;
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
