/**
 * `serve`'s options, in the order its help lists them, their parsers, and the checks of what goes together; each also
 * read from its CONTENT_SERVICE_* variable.
 */
import os from "node:os";
import { type Command, Option } from "commander";
import cron from "node-cron";
import { withoutUserinfo } from "../../domain/generation/llm.js";
import { TrustProxyError, trustProxyOf } from "../../http/client-address.js";
import { originOf } from "../../http/cors.js";
import { isLoopback } from "../../routes/metrics.js";
import { FixtureError } from "../../sandbox/fixtures.js";
import { readFixtureFile } from "../../sandbox/fixtures-file.js";
import type { Fixture } from "../../sandbox/fixtures-schema.js";
import { JOURNAL_DEFAULT, JOURNAL_MAX } from "../../sandbox/index.js";
import { SEED_MAX } from "../../sandbox/seed.js";
import { givenOption, hostArg, intInRange, portArg, positiveInt, serverUrlArg } from "../args.js";
import { CliError, UsageError } from "../errors.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../server-urls.js";

/** What `serve` was given. */
export interface ServeCommandOptions {
  host: string;
  port: number;
  workers: number;
  publicUrl?: string;
  stagingUrl?: string;
  timezone?: string;
  llmBaseUrl?: string;
  llmModel?: string;
  llmTimeout: number;
  imageModel?: string;
  imageBaseUrl?: string;
  backupSchedule?: string;
  backupKeep: number;
  backupDir?: string;
  corsOrigin?: string[];
  metricsToken?: string;
  trustProxy?: string[];
  // Sandbox mode (sandboxOptions).
  sandbox?: boolean;
  sandboxAllowRemote?: boolean;
  sandboxJournal: number;
  /** `--fixtures`: the fixture file sandbox mode loads as it starts (src/sandbox/fixtures*.ts). */
  fixtures?: string;
  /** The global `--database-url` (cli/database-url.ts), set by `serve` once checked: PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** The fixture of `--fixtures`, read and checked by checkSandboxOptions. */
  fixture?: Fixture;
  seed?: number;
}

/** The upper bound of --workers: more threads than any machine this serves has cores, each with its own heap. */
const MAX_WORKERS = 64;

/** Adds `serve`'s options to its command. */
export function addServeOptions(command: Command): void {
  const groups = [
    listenOptions(),
    descriptionOptions(),
    edgeOptions(),
    modelOptions(),
    backupOptions(),
    sandboxOptions(),
  ];
  for (const option of groups.flat()) command.addOption(option);
}

/** Where the server listens and how many worker threads it runs. */
function listenOptions(): Option[] {
  return [
    new Option("--host <host>", "address to listen on (an IP address or a host name)")
      .env("CONTENT_SERVICE_HOST")
      .default(DEFAULT_HOST)
      .argParser(hostArg),
    new Option("--port <port>", "port to listen on (0: any free port)")
      .env("CONTENT_SERVICE_PORT")
      .default(DEFAULT_PORT)
      .argParser(portArg),
    new Option("--workers <n>", `worker threads for heavy work (1 to ${MAX_WORKERS})`)
      .env("CONTENT_SERVICE_WORKERS")
      .default(Math.max(1, Math.min(4, os.availableParallelism() - 1)), "one less than the cores, 1 to 4")
      .argParser(intInRange("--workers", 1, MAX_WORKERS)),
  ];
}

/** The description's server URLs and the time zone of planning dates. */
function descriptionOptions(): Option[] {
  return [
    new Option("--public-url <url>", "production server URL in the description (default: http://HOST:PORT listened on)")
      .env("CONTENT_SERVICE_PUBLIC_URL")
      .argParser(serverUrlArg("--public-url")),
    new Option("--staging-url <url>", "staging server URL in the description (default: http://staging.HOST:PORT)")
      .env("CONTENT_SERVICE_STAGING_URL")
      .argParser(serverUrlArg("--staging-url")),
    new Option(
      "--timezone <Area/City>",
      "time zone for overdue planning dates (default: this machine's: TZ, else /etc/localtime, else UTC)",
    )
      .env("CONTENT_SERVICE_TIMEZONE")
      // DESIGN §7: "today in the server's time zone". No commander default: resolving the machine's zone loads
      // ICU's time-zone data (15-60 ms here), which no other command and no request before the first planning one
      // needs; a start leaves it to the first request that asks (planning.ts machineTimezone).
      .argParser(validTimezone),
  ];
}

/** CORS for a browser front end elsewhere, who may read GET /metrics, and the proxies trusted (docs/operations.md). */
function edgeOptions(): Option[] {
  return [
    new Option(
      "--cors-origin <origin...>",
      "let pages of this origin (https://app.example) call the API from a browser; repeatable (variable: space-separated)",
    )
      .env("CONTENT_SERVICE_CORS_ORIGINS")
      .argParser(corsOriginsArg),
    new Option(
      "--metrics-token <token>",
      "bearer token (32+ characters) GET /metrics requires from every client (without it: loopback only); prefer the variable",
    )
      .env("CONTENT_SERVICE_METRICS_TOKEN")
      .argParser(metricsTokenArg),
    new Option(
      "--trust-proxy <address...>",
      "take the client's address from X-Forwarded-For on connections from this proxy (address, CIDR range or loopback); repeatable (variable: space-separated)",
    )
      .env("CONTENT_SERVICE_TRUST_PROXY")
      .argParser(trustProxyArg),
  ];
}

/** The fewest characters a metrics token may have: any client may try it, so it must not be guessable. */
export const METRICS_TOKEN_MIN_CHARS = 32;

/** A --metrics-token value: at least METRICS_TOKEN_MIN_CHARS characters, none of them spaces (empty: none). */
function metricsTokenArg(value: string): string {
  if (value !== "" && (value.length < METRICS_TOKEN_MIN_CHARS || /\s/.test(value)))
    throw new UsageError(
      `--metrics-token: give at least ${METRICS_TOKEN_MIN_CHARS} characters without spaces (got ${value.length}); ` +
        "for example: openssl rand -hex 24",
    );
  return value;
}

/**
 * A --cors-origin value (one origin; the variable may hold several, space-separated) added to those before: each an
 * origin as browsers send it, `*` refused (answers carry bearer credentials to named pages only).
 */
function corsOriginsArg(value: string, previous: string[] | undefined): string[] {
  const origins = [...(previous ?? [])];
  for (const given of value.split(/[\s,]+/).filter(Boolean)) {
    const origin = given === "*" ? undefined : originOf(given);
    if (origin === undefined)
      throw new UsageError(
        `--cors-origin: "${withoutUserinfo(given)}" is not an origin (scheme://host[:port], no path; * is not taken)`,
      );
    if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
}

/**
 * A --trust-proxy value (one address, CIDR range or name; the variable may hold several, space-separated) added to
 * those before, each checked as the server will read it (http/client-address.ts), so that a typo fails the start.
 */
function trustProxyArg(value: string, previous: string[] | undefined): string[] {
  const proxies = [...(previous ?? [])];
  for (const given of value.split(/[\s,]+/).filter(Boolean)) {
    try {
      trustProxyOf([given]);
    } catch (e) {
      if (e instanceof TrustProxyError) throw new UsageError(`--trust-proxy: ${e.message}`);
      throw e;
    }
    if (!proxies.includes(given)) proxies.push(given);
  }
  return proxies;
}

/** The on-prem model servers: text generation and images. */
function modelOptions(): Option[] {
  return [
    new Option("--llm-base-url <url>", "on-prem OpenAI-compatible model server (key from CONTENT_SERVICE_LLM_API_KEY)")
      .env("CONTENT_SERVICE_LLM_BASE_URL")
      .argParser(httpUrl("--llm-base-url")),
    new Option("--llm-model <name>", "model name on that server").env("CONTENT_SERVICE_LLM_MODEL"),
    new Option("--llm-timeout <seconds>", "longest wait for the model to start answering, or between stream pieces")
      .env("CONTENT_SERVICE_LLM_TIMEOUT")
      .default(60)
      .argParser(positiveInt("--llm-timeout")),
    new Option("--image-model <name>", "image model of an OpenAI-compatible images endpoint").env(
      "CONTENT_SERVICE_IMAGE_MODEL",
    ),
    new Option("--image-base-url <url>", "the images endpoint's server (default: --llm-base-url)")
      .env("CONTENT_SERVICE_IMAGE_BASE_URL")
      .argParser(httpUrl("--image-base-url")),
  ];
}

/** The scheduled backups. */
function backupOptions(): Option[] {
  return [
    new Option("--backup-schedule <cron>", 'back up the database on a cron schedule, e.g. "0 3 * * *"')
      .env("CONTENT_SERVICE_BACKUP_SCHEDULE")
      .argParser(backupScheduleArg),
    new Option("--backup-keep <n>", "how many scheduled backups to keep")
      .env("CONTENT_SERVICE_BACKUP_KEEP")
      .default(7)
      .argParser(positiveInt("--backup-keep")),
    new Option("--backup-dir <dir>", "where scheduled backups go (default: <data-dir>/backups)").env(
      "CONTENT_SERVICE_BACKUP_DIR",
    ),
  ];
}

/** Sandbox mode (docs/sandbox.md): faults on demand, the request journal, the /_sandbox/ operations. */
function sandboxOptions(): Option[] {
  return [
    new Option(
      "--sandbox",
      "sandbox mode for integration tests: faults on demand, a request journal (docs/sandbox.md)",
    ).env("CONTENT_SERVICE_SANDBOX"),
    new Option(
      "--sandbox-allow-remote",
      "allow --sandbox on an address other than loopback (anyone there can use it)",
    ).env("CONTENT_SERVICE_SANDBOX_ALLOW_REMOTE"),
    new Option("--sandbox-journal <n>", `how many requests the sandbox's journal keeps (1 to ${JOURNAL_MAX})`)
      .env("CONTENT_SERVICE_SANDBOX_JOURNAL")
      .default(JOURNAL_DEFAULT)
      .argParser(intInRange("--sandbox-journal", 1, JOURNAL_MAX)),
    new Option(
      "--fixtures <file>",
      "with --sandbox: accounts, keys and records to load as it starts, the state a reset goes back to (JSON or YAML; docs/sandbox.md)",
    ).env("CONTENT_SERVICE_SANDBOX_FIXTURES"),
    new Option("--seed <n>", `with --sandbox: the same ids, key secrets and timestamps on every run (0 to ${SEED_MAX})`)
      .env("CONTENT_SERVICE_SANDBOX_SEED")
      .argParser(intInRange("--seed", 0, SEED_MAX)),
  ];
}

/** A flag set by its variable: 1, true, yes or on sets it; 0, false, no, off or empty leaves it off. */
function envFlag(cmd: Command, key: string, variable: string): boolean | undefined {
  if (cmd.getOptionValueSource(key) !== "env") return cmd.getOptionValue(key) as boolean | undefined;
  const value = (process.env[variable] ?? "").trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(value)) return true;
  if (["0", "false", "no", "off", ""].includes(value)) return false;
  throw new UsageError(`${variable} must be 1 or 0 (true or false), got "${value}"`);
}

/**
 * Settles the sandbox flags (their variables read as on or off) and refuses --sandbox on an address other than
 * loopback without --sandbox-allow-remote: its operations need no credentials and act on the server for every
 * client (test/cli/serve-sandbox.test.ts).
 */
export function checkSandboxOptions(opts: ServeCommandOptions, cmd: Command): void {
  opts.sandbox = envFlag(cmd, "sandbox", "CONTENT_SERVICE_SANDBOX");
  opts.sandboxAllowRemote = envFlag(cmd, "sandboxAllowRemote", "CONTENT_SERVICE_SANDBOX_ALLOW_REMOTE");
  // Seeded secrets are predictable: never outside sandbox mode (src/runtime/random.ts).
  if (opts.seed !== undefined && !opts.sandbox) throw new UsageError("--seed needs --sandbox");
  const loopback = opts.host === "localhost" || isLoopback(opts.host);
  if (opts.sandbox && !loopback && !opts.sandboxAllowRemote)
    throw new UsageError(
      `--sandbox on ${givenOption(cmd, "host")}, not a loopback address: add --sandbox-allow-remote to let every ` +
        "client there use its operations, which need no credentials",
    );
  if (opts.fixtures !== undefined && !opts.sandbox)
    throw new UsageError(`${givenOption(cmd, "fixtures")} needs --sandbox: a fixture is a sandbox's known state`);
  if (opts.fixtures !== undefined) opts.fixture = fixtureOf(opts.fixtures);
}

/**
 * The fixture of `--fixtures`, read and checked before anything is made: one that cannot be used stops `serve` with
 * one line naming the file and the JSON path at fault (test/cli/serve-fixtures.test.ts).
 */
function fixtureOf(file: string): Fixture {
  try {
    return readFixtureFile(file);
  } catch (e) {
    if (e instanceof FixtureError) throw new CliError(`--fixtures ${file}: ${e.message}`);
    throw e;
  }
}

/**
 * Parses a model server's URL. One with a user name or password is refused: fetch cannot send it (the engine
 * would never work), and the URL is shown in GET /models and in error messages, to any read key. The key goes in
 * the environment (CONTENT_SERVICE_LLM_API_KEY, CONTENT_SERVICE_IMAGE_API_KEY) instead.
 */
function httpUrl(name: string) {
  return (value: string): string => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {}
    if (url && (url.username !== "" || url.password !== ""))
      throw new UsageError(
        `${name} must not carry a user name or password (user:password@); give the API key in CONTENT_SERVICE_LLM_API_KEY or CONTENT_SERVICE_IMAGE_API_KEY`,
      );
    if (url && (url.protocol === "http:" || url.protocol === "https:")) return value;
    // Echoed without anything that looks like credentials: the line may end up in a service's log.
    throw new UsageError(`${name} must be an http(s) URL, got "${withoutUserinfo(value)}"`);
  };
}

/** A --timezone value: a time zone this runtime knows, or a usage error. */
function validTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return tz;
  } catch {
    throw new UsageError(`unknown time zone "${tz}" (use an Area/City name such as Europe/Berlin)`);
  }
}

/** A --backup-schedule value: a cron expression that fires, or a usage error saying which it is not. */
function backupScheduleArg(value: string): string {
  if (cron.validate(value)) return value;
  throw new UsageError(
    neverFires(value)
      ? `--backup-schedule: "${value}" never fires: no month it names has that day of the month`
      : `--backup-schedule: "${value}" is not a cron expression`,
  );
}

/**
 * Whether a cron expression node-cron refuses is well formed but names a day no month it lists has (`0 3 30 2 *`, the
 * 30th of February): it passes with its day of the month made `*`, and again with its month made `*`. Told apart
 * from a malformed one, so that the message does not say it is not a cron expression at all.
 */
export function neverFires(value: string): boolean {
  const fields = value.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return false;
  const day = fields.length - 3;
  const starred = (i: number) => fields.map((f, j) => (j === i ? "*" : f)).join(" ");
  return cron.validate(starred(day)) && cron.validate(starred(day + 1));
}

/**
 * Notes on stderr the backup options given without --backup-schedule: results that will not do what they seem are
 * said, and these two only shape the scheduled backups.
 */
export function noteUnusedBackupOptions(opts: ServeCommandOptions, cmd: Command): void {
  if (!opts.backupSchedule)
    for (const [key, flag, variable] of [
      ["backupKeep", "--backup-keep", "CONTENT_SERVICE_BACKUP_KEEP"],
      ["backupDir", "--backup-dir", "CONTENT_SERVICE_BACKUP_DIR"],
    ] as const) {
      const source = cmd.getOptionValueSource(key);
      if (source === "cli" || source === "env")
        process.stderr.write(
          `note: ${source === "env" ? variable : flag} does nothing without --backup-schedule: no backups are ` +
            "scheduled\n",
        );
    }
}

/** Fails (a usage error) for model options that do not go together, each named as given. */
export function checkModelOptions(opts: ServeCommandOptions, cmd: Command): void {
  // Each option named as given, with its variable when it came from one: `CONTENT_SERVICE_LLM_MODEL` left in an
  // env file is otherwise a flag the user looks for in vain.
  const named = (key: string) => givenOption(cmd, key, false);
  if (opts.llmBaseUrl !== undefined && opts.llmModel === undefined)
    throw new UsageError(`${named("llmBaseUrl")} needs --llm-model (or CONTENT_SERVICE_LLM_MODEL): they go together`);
  if (opts.llmModel !== undefined && opts.llmBaseUrl === undefined)
    throw new UsageError(
      `${named("llmModel")} needs --llm-base-url (or CONTENT_SERVICE_LLM_BASE_URL): they go together`,
    );
  if (opts.llmModel === "builtin")
    throw new UsageError(`${named("llmModel")} cannot be "builtin", the name of the built-in engine`);
  const imageBase = opts.imageBaseUrl ?? opts.llmBaseUrl;
  if (opts.imageModel !== undefined && imageBase === undefined)
    throw new UsageError(
      `${named("imageModel")} needs --image-base-url or --llm-base-url (or CONTENT_SERVICE_IMAGE_BASE_URL, ` +
        "CONTENT_SERVICE_LLM_BASE_URL)",
    );
}
