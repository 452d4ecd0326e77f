/** `init` and `serve`. */
import os from "node:os";
import path from "node:path";
import { type Command, Option } from "commander";
import cron from "node-cron";
import { withoutUserinfo } from "../domain/generation/llm.js";
import { PLANS, type Plan } from "../domain/plans.js";
import { startServer } from "../http/server.js";
import { dataDirOf, positiveInt, printJson, readStdinIfPiped, UsageError, wantsJson } from "./common.js";
import { type InitResult, initDataDir } from "./setup.js";

function printFirstStart(result: InitResult, out: (s: string) => void): void {
  if (!result.created) return;
  out("content-service initialised:\n");
  out(`  account ${result.accountId}, default workspace ${result.workspaceId}\n`);
  out(`  admin login: ${result.adminEmail}`);
  out(result.generatedPassword ? ` / password ${result.generatedPassword} (shown once)\n` : " (password from stdin)\n");
  if (result.key) out(`  API key (read, write; shown once): ${result.key}\n`);
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

function validTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return tz;
  } catch {
    throw new UsageError(`unknown time zone "${tz}" (use an Area/City name such as Europe/Berlin)`);
  }
}

/** Adds `init` and `serve` to the program. */
export function registerServeCommands(program: Command): void {
  program
    .command("init")
    .description("Create the database, the first account, its default workspace and an admin user (idempotent)")
    .option("--account-name <name>", "name of the first account", "Default account")
    .addOption(new Option("--plan <plan>", "plan of the first account").choices(PLANS).default("business"))
    .option("--admin-email <email>", "the admin user's email", "admin@localhost")
    .option("--json", "print the result as JSON")
    .action(async (opts: { accountName: string; plan: Plan; adminEmail: string }, cmd: Command) => {
      const password = await readStdinIfPiped();
      const result = initDataDir(dataDirOf(cmd), { ...opts, password });
      if (wantsJson(cmd)) {
        printJson(
          result.created
            ? {
                created: true,
                account_id: result.accountId,
                workspace_id: result.workspaceId,
                admin_email: result.adminEmail,
                generated_password: result.generatedPassword ?? null,
              }
            : { created: false },
        );
        return;
      }
      if (!result.created) process.stdout.write(`already initialised: ${dataDirOf(cmd)}\n`);
      else printFirstStart(result, (s) => process.stdout.write(s));
    });

  program
    .command("serve")
    .description("Run the HTTP API server (initialises an empty data directory first)")
    .addOption(new Option("--host <host>", "address to listen on").env("CONTENT_SERVICE_HOST").default("127.0.0.1"))
    .addOption(
      new Option("--port <port>", "port to listen on (0: any free port)")
        .env("CONTENT_SERVICE_PORT")
        .default(8080)
        .argParser((v) => {
          if (!/^\d+$/.test(v) || Number(v) > 65535) throw new UsageError(`--port must be 0–65535, got "${v}"`);
          return Number(v);
        }),
    )
    .addOption(
      new Option("--workers <n>", "worker threads for heavy work")
        .env("CONTENT_SERVICE_WORKERS")
        .default(Math.max(1, Math.min(4, os.availableParallelism() - 1)))
        .argParser(positiveInt("--workers")),
    )
    .addOption(
      new Option("--public-url <url>", "production server URL in the description").env("CONTENT_SERVICE_PUBLIC_URL"),
    )
    .addOption(
      new Option("--staging-url <url>", "staging server URL in the description").env("CONTENT_SERVICE_STAGING_URL"),
    )
    .addOption(
      new Option("--timezone <Area/City>", "time zone for overdue planning dates")
        .env("CONTENT_SERVICE_TIMEZONE")
        // DESIGN §7: "today in the server's time zone": this machine's (TZ, /etc/localtime), UTC when it has none.
        .default(hostTimezone(), `this machine's, now ${hostTimezone()}`)
        .argParser(validTimezone),
    )
    .addOption(
      new Option(
        "--llm-base-url <url>",
        "on-prem OpenAI-compatible model server (key from CONTENT_SERVICE_LLM_API_KEY)",
      )
        .env("CONTENT_SERVICE_LLM_BASE_URL")
        .argParser(httpUrl("--llm-base-url")),
    )
    .addOption(new Option("--llm-model <name>", "model name on that server").env("CONTENT_SERVICE_LLM_MODEL"))
    .addOption(
      new Option("--llm-timeout <seconds>", "longest wait for the model to start answering, or between stream pieces")
        .env("CONTENT_SERVICE_LLM_TIMEOUT")
        .default(60)
        .argParser(positiveInt("--llm-timeout")),
    )
    .addOption(
      new Option("--image-model <name>", "image model of an OpenAI-compatible images endpoint").env(
        "CONTENT_SERVICE_IMAGE_MODEL",
      ),
    )
    .addOption(
      new Option("--image-base-url <url>", "the images endpoint's server (default: --llm-base-url)")
        .env("CONTENT_SERVICE_IMAGE_BASE_URL")
        .argParser(httpUrl("--image-base-url")),
    )
    .addOption(
      new Option("--backup-schedule <cron>", 'back up the database on a cron schedule, e.g. "0 3 * * *"')
        .env("CONTENT_SERVICE_BACKUP_SCHEDULE")
        .argParser((value) => {
          if (!cron.validate(value)) throw new UsageError(`--backup-schedule: "${value}" is not a cron expression`);
          return value;
        }),
    )
    .addOption(
      new Option("--backup-keep <n>", "how many scheduled backups to keep")
        .env("CONTENT_SERVICE_BACKUP_KEEP")
        .default(7)
        .argParser(positiveInt("--backup-keep")),
    )
    .addOption(
      new Option("--backup-dir <dir>", "where scheduled backups go (default: <data-dir>/backups)").env(
        "CONTENT_SERVICE_BACKUP_DIR",
      ),
    )
    .action(
      async (
        opts: {
          host: string;
          port: number;
          workers: number;
          publicUrl?: string;
          stagingUrl?: string;
          timezone: string;
          llmBaseUrl?: string;
          llmModel?: string;
          llmTimeout: number;
          imageModel?: string;
          imageBaseUrl?: string;
          backupSchedule?: string;
          backupKeep: number;
          backupDir?: string;
        },
        cmd: Command,
      ) => {
        if ((opts.llmBaseUrl === undefined) !== (opts.llmModel === undefined))
          throw new UsageError("--llm-base-url and --llm-model go together");
        if (opts.llmModel === "builtin")
          throw new UsageError('--llm-model cannot be "builtin", the name of the built-in engine');
        const imageBase = opts.imageBaseUrl ?? opts.llmBaseUrl;
        if (opts.imageModel !== undefined && imageBase === undefined)
          throw new UsageError("--image-model needs --image-base-url or --llm-base-url");
        const dataDir = dataDirOf(cmd);
        const first = initDataDir(dataDir, {
          accountName: "Default account",
          plan: "business",
          adminEmail: "admin@localhost",
          withKey: true,
        });
        printFirstStart(first, (s) => process.stderr.write(s));
        const server = await startServer({
          dataDir,
          host: opts.host,
          port: opts.port,
          workers: opts.workers,
          backups: opts.backupSchedule
            ? {
                schedule: opts.backupSchedule,
                keep: opts.backupKeep,
                dir: opts.backupDir && path.resolve(opts.backupDir),
              }
            : undefined,
          config: {
            publicUrl: opts.publicUrl ?? `http://${opts.host}:${opts.port}`,
            stagingUrl:
              opts.stagingUrl ?? `http://staging.${opts.host === "127.0.0.1" ? "localhost" : opts.host}:${opts.port}`,
            timezone: opts.timezone,
            llm:
              opts.llmBaseUrl && opts.llmModel
                ? {
                    baseUrl: opts.llmBaseUrl,
                    model: opts.llmModel,
                    apiKey: process.env.CONTENT_SERVICE_LLM_API_KEY || undefined,
                    timeoutMs: opts.llmTimeout * 1000,
                  }
                : undefined,
            imageModel:
              opts.imageModel && imageBase
                ? {
                    baseUrl: imageBase,
                    model: opts.imageModel,
                    apiKey:
                      process.env.CONTENT_SERVICE_IMAGE_API_KEY || process.env.CONTENT_SERVICE_LLM_API_KEY || undefined,
                    timeoutMs: opts.llmTimeout * 1000,
                  }
                : undefined,
          },
        });
        process.stdout.write(`content-service listening on ${server.url} (data: ${dataDir})\n`);
        await new Promise<void>((resolve) => {
          const stop = (signal: string) => {
            process.stdout.write(`${signal}: draining and stopping\n`);
            server.close().then(resolve, (e) => {
              process.stderr.write(`error during shutdown: ${(e as Error).message}\n`);
              process.exitCode = 1;
              resolve();
            });
          };
          process.once("SIGTERM", () => stop("SIGTERM"));
          process.once("SIGINT", () => stop("SIGINT"));
        });
      },
    );
}

/** The time zone this machine is set to (TZ or /etc/localtime, as Intl resolves it); UTC when it has none. */
function hostTimezone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}
