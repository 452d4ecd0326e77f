/**
 * `serve` listening: the probe of its address before anything is made, a listen's failure named by the options that
 * caused it, and the server's life from the line that says it is up to the end of its drain.
 */
import net from "node:net";
import { publicUrlOf } from "../../http/public-url.js";
import { versionText } from "../../runtime/build-info.js";
import type { LoadedFixture } from "../../sandbox/fixtures.js";
import type { RunningServer } from "../../server/start.js";
import { CliError } from "../errors.js";
import { onStdoutClosed } from "../output.js";
import { defaultServerUrls } from "../server-urls.js";
import type { InitResult } from "../setup.js";
import type { StopSignals } from "../stop-signals.js";
import { showFirstStart } from "./first-start.js";
import type { ServeCommandOptions } from "./options.js";
import { drainOnStop } from "./shutdown.js";

/** --host and --port as given (givenOption), for the messages of a listen that fails. */
export interface ListenOptions {
  host: string;
  port: string;
}

/**
 * A listen's failure as the options that caused it: `cannot listen: --port 8080 (from CONTENT_SERVICE_PORT) is in
 * use`, rather than node's `listen EADDRINUSE: address already in use 127.0.0.1:8080`, which names neither the
 * option nor the variable a service's env file set. Undefined for an error that is not a listen's.
 */
export function listenFailure(e: unknown, given: ListenOptions): CliError | undefined {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  const syscall = (e as NodeJS.ErrnoException | null)?.syscall;
  if (syscall !== "listen" && syscall !== "getaddrinfo") return undefined;
  const why: Record<string, string> = {
    EADDRINUSE: `${given.port} is in use (on ${given.host}): another program listens there`,
    EADDRNOTAVAIL: `${given.host} is not an address of this machine`,
    ENOTFOUND: `${given.host} is a host name that does not resolve`,
    EAI_AGAIN: `${given.host} could not be resolved (the name server did not answer)`,
    EACCES: `${given.port} needs privileges this user lacks (ports below 1024), on ${given.host}`,
    EAFNOSUPPORT: `${given.host}: this machine has no IPv6`,
  };
  const reason = code !== undefined ? why[code] : undefined;
  return new CliError(
    `cannot listen: ${reason ?? `${given.host}, ${given.port}: ${(e as Error).message.replace(/^listen \w+: /, "")}`}`,
  );
}

/**
 * Binds host:port and lets go at once: fails as the server's listen would (EADDRINUSE, EADDRNOTAVAIL, EACCES,
 * ENOTFOUND).
 */
export async function probeListen(host: string, port: number, given: ListenOptions): Promise<void> {
  // Port 0 too (any free port): the address is checked all the same (a name that does not resolve, an address not
  // this machine's), before the first start's credentials are made.
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", (e) => reject(listenFailure(e, given) ?? e));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Serves until a stop signal, then drains. */
export async function serveUntilStopped(
  server: RunningServer,
  dataDir: string,
  opts: ServeCommandOptions,
  first: InitResult,
  signals: StopSignals,
): Promise<void> {
  // The description's default servers name the port actually listened on (--port 0 picks one).
  const port = Number(new URL(server.url).port);
  const defaults = defaultServerUrls(opts.host, port);
  server.services.config.publicUrl = opts.publicUrl ?? defaults.publicUrl;
  server.services.config.stagingUrl = opts.stagingUrl ?? defaults.stagingUrl;
  // Shown once, and only by a start that listens: a start that fails (port in use) shows no credentials.
  showFirstStart(first, dataDir, server.services.logger);
  // The handlers are in place before the line that tells a supervisor (or a test) the server is up. Standard output
  // carries JSON log lines only (README "Command line"): these lines go to standard error.
  const stopped = drainOnStop(server, signals);
  onStdoutClosed(() =>
    process.stderr.write("standard output closed: request log lines are dropped from now on; still serving\n"),
  );
  process.stderr.write(`content-service listening on ${server.url} (data: ${dataDir}; version ${versionText()})\n`);
  // The dashboard and the reference page at the address clients use (--public-url), which serves them at that
  // address's own path.
  process.stderr.write(`Dashboard: ${publicUrlOf(server.services.config.publicUrl, "/")}\n`);
  process.stderr.write(`API reference: ${publicUrlOf(server.services.config.publicUrl, "/docs")}\n`);
  if (server.sandbox)
    process.stderr.write(
      `Sandbox mode: faults on demand (Prefer), the request journal and ${publicUrlOf(server.services.config.publicUrl, "/_sandbox/")}; not for production (docs/sandbox.md)\n`,
    );
  if (server.sandbox?.loaded) process.stderr.write(`${fixtureLine(server.sandbox.loaded)}\n`);
  const failure = await stopped;
  if (failure !== undefined) throw new CliError(`stopping failed: ${failure}`);
  process.stderr.write("stopped\n");
}

/** The banner's line of what `--fixtures` made. */
function fixtureLine(loaded: LoadedFixture): string {
  const keys = loaded.accounts.reduce((n, a) => n + a.keys, 0);
  const names = loaded.accounts.map((a) => a.name).join(", ");
  return `Fixtures: ${loaded.accounts.length} accounts (${names}), ${keys} keys; POST /_sandbox/reset returns here`;
}
