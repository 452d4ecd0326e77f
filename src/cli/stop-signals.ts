/**
 * The signals that stop `serve` (SIGTERM, SIGINT, and SIGHUP: a terminal closing), listened for from the start. One
 * that arrives before the server listens (migrations, the first start's setup) is recorded and start-up stops at its
 * next step, cleanly: Node's default would end the process at once, with a signal's exit status and the first
 * start's credentials, already made, never shown. Once the server listens, signals go to its drain (handOver).
 */

/** The signals that stop `serve`: SIGTERM, SIGINT, and SIGHUP (a terminal closing). */
export const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/** Thrown by a start-up step after a stop signal arrived. */
export class StartCancelled extends Error {
  constructor(readonly signal: string) {
    super(`${signal} during start-up`);
  }
}

/** Stop signals received before a command took them (listenEarly), and the listeners that recorded them. */
let earlySignal: string | undefined;
const earlyListeners = new Map<string, () => void>();

/**
 * Listens for the stop signals from the program's first line, before its modules load: what comes in meanwhile is
 * recorded, for `serve` to take over (StopSignals) or for another command to have re-sent (releaseEarly).
 */
export function listenEarly(): void {
  for (const signal of STOP_SIGNALS) {
    const listener = () => {
      earlySignal ??= signal;
    };
    earlyListeners.set(signal, listener);
    process.on(signal, listener);
  }
}

/** Takes the early listeners away; the signal they recorded, if any. */
function takeEarly(): string | undefined {
  for (const [signal, listener] of earlyListeners) process.off(signal, listener);
  earlyListeners.clear();
  const signal = earlySignal;
  earlySignal = undefined;
  return signal;
}

/**
 * A command other than `serve` keeps Node's default for the stop signals: the early listeners go, and a signal they
 * recorded is sent again, ending the process as it would have ended.
 */
export function releaseEarly(): void {
  const signal = takeEarly();
  if (signal !== undefined) process.kill(process.pid, signal);
}

/**
 * `serve` ended before its action took the stop signals (StopSignals): an option refused as commander parsed serve's
 * options (an unknown one, `--port abc`, `--workers 0`) or by the preAction hook, or its help shown. A signal recorded
 * while the program loaded was serve's all the same, and serve ends with the refusal's own line and status: the
 * signal is dropped. Re-sent (releaseEarly), it would kill the process with a signal's status (143 from a shell) and,
 * for a refusal the program writes itself, before its `error:` line is written.
 */
export function dropEarly(): void {
  takeEarly();
}

/** The stop signals of one `serve` start: recorded until the server listens, then handed to its drain. */
export class StopSignals {
  private early: string | undefined;
  /** Whether `early` was said ("stopping before the server listens"). */
  private said = false;
  private handler: ((signal: string) => void) | undefined;

  /**
   * `early`: a signal that came while the program loaded (listenEarly), this start's. It is said only when the start
   * stops for it (checkpoint), or another comes: the options are checked first, and one refused (exit 2), or a port
   * in use (exit 1), ends the command with its own error line alone, not after a "stopping" that no "stopped" follows.
   */
  constructor(
    target: Pick<NodeJS.EventEmitter, "on"> = process,
    private readonly say: (line: string) => void = (line) => process.stderr.write(line),
    early: string | undefined = target === process ? takeEarly() : undefined,
  ) {
    for (const signal of STOP_SIGNALS) target.on(signal, () => this.receive(signal));
    this.early = early;
  }

  private receive(signal: string): void {
    if (this.handler) this.handler(signal);
    else {
      // A second one before the server listens changes nothing: start-up stops at its next step anyway. The first,
      // or one recorded while the program loaded and not said yet, is said at once: the step under way (migrations,
      // the first start's setup) may take a while.
      this.early ??= signal;
      this.announce();
    }
  }

  private announce(): void {
    if (this.early === undefined || this.said) return;
    this.said = true;
    this.say(`${this.early}: stopping before the server listens\n`);
  }

  /**
   * Between start-up steps: throws StartCancelled if a stop signal arrived. The steps are synchronous in part, and a
   * signal's listener runs from the event loop: the loop turns twice first (a poll phase is then certainly passed),
   * so that a signal that came during the step before is seen here.
   */
  async checkpoint(): Promise<void> {
    for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.early === undefined) return;
    this.announce();
    throw new StartCancelled(this.early);
  }

  /** The server listens: later signals go to `handler` (its drain). */
  handOver(handler: (signal: string) => void): void {
    this.handler = handler;
  }
}
