/**
 * How `serve` stops: the first stop signal drains (no new connections, the requests in flight finished, the
 * checkpoint written), a second is said and waited through, a third ends the process at once; the drain is bounded.
 */
import type { RunningServer } from "../../server/start.js";
import type { StopSignals } from "../stop-signals.js";

/**
 * The longest a shutdown may take after the first signal before the process exits without finishing it; a service
 * manager's stop timeout must be longer (contrib/content-service.service, test/contrib/systemd-unit.test.ts).
 */
export const SHUTDOWN_LIMIT_MS = 60_000;

/**
 * Takes the stop signals over from `signals` and drains `server` on the first; resolves when the drain ends, with its
 * failure's message, if any. The handlers are in place when this returns.
 */
export function drainOnStop(server: RunningServer, signals: StopSignals): Promise<string | undefined> {
  let received = 0;
  return new Promise<string | undefined>((resolve) => {
    const stop = (signal: string) => {
      received++;
      // A second signal (`timeout` signals the process and then its group; an impatient supervisor) must not cut
      // the drain short: the requests in flight, the counters kept in memory and the checkpoint would be lost. A
      // third is someone who means it (Ctrl-C three times): what is committed is on disk, the rest is given up.
      if (received === 2) {
        process.stderr.write(`${signal}: already stopping; waiting for the requests in flight (a third: at once)\n`);
        return;
      }
      if (received >= 3) {
        process.stderr.write(`${signal}: stopping at once, without finishing the requests in flight\n`);
        process.exit(1);
      }
      process.stderr.write(`${signal}: draining and stopping\n`);
      // Bounded: a model answering a learning analysis slowly must not keep the process up for ever.
      setTimeout(() => {
        process.stderr.write(`still stopping after ${SHUTDOWN_LIMIT_MS / 1000} s: stopping at once\n`);
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS).unref();
      server.close().then(
        () => resolve(undefined),
        (e) => resolve((e as Error).message),
      );
    };
    // SIGTERM, SIGINT, and SIGHUP: the terminal of a foreground server closing (an SSH session ending) sends SIGHUP,
    // and Node's default for it ends the process at once, the requests in flight cut and the counters kept in memory
    // lost. It drains like SIGTERM.
    signals.handOver(stop);
    // Node opens its debugger (a port any local user could attach to and run code as this user) on SIGUSR1 unless
    // the program listens for it; administrators send it to reopen logs. A listener keeps the debugger closed.
    process.on("SIGUSR1", () => process.stderr.write("SIGUSR1: ignored (this server keeps no log files to reopen)\n"));
  });
}
