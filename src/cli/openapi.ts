/** `openapi`: the OpenAPI description of the HTTP API, on standard output or in a file. */
import { statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Command, Option } from "commander";
import { buildOpenApi } from "../http/openapi.js";
import { ROUTES } from "../routes/index.js";
import { givenOption, hostArg, portArg, refuseBlank, serverUrlArg } from "./args.js";
import { UsageError } from "./errors.js";
import { printJson } from "./output.js";
import { DEFAULT_HOST, DEFAULT_PORT, defaultServerUrls } from "./server-urls.js";

/** What `openapi` was given. */
interface OpenApiOptions {
  out?: string;
  host: string;
  port: number;
  publicUrl?: string;
  stagingUrl?: string;
  internal?: boolean;
}

/**
 * An --out file to write: not empty (an unset shell variable, which would write nowhere and say a system error) and
 * not a directory, both usage errors. A missing folder is left to the write, which names it (exit 1).
 */
function checkOutFile(out: string): void {
  refuseBlank("--out", out, "give a file name (or - for standard output)");
  let isDir = false;
  try {
    isDir = statSync(out).isDirectory();
  } catch {}
  if (isDir) throw new UsageError(`--out ${path.resolve(out)} is a directory: give a file name`);
}

/**
 * Writes the description to --out, which may be a FIFO, a terminal or /dev/stdout as well as a file (it is written in
 * place, as a shell's redirection would). A reader that goes before the end (`--out /dev/stdout | head`) ends the
 * command quietly, as `--out -` does (tolerateClosedOutput), rather than with "EPIPE: broken pipe, write".
 */
function writeDescription(out: string, text: string): void {
  try {
    writeFileSync(out, text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPIPE") throw e;
  }
}

/** Adds `openapi` to the program. */
export function registerOpenApiCommand(program: Command): void {
  program
    .command("openapi")
    .description("Print the OpenAPI description of the HTTP API (as GET /api/v1/openapi.json serves it)")
    .option("--out <file>", "write it to a file instead of stdout (- is stdout)")
    .option("--internal", "the internal description: also the operations of stability internal (/api/v1/admin/*)")
    .option("--json", "accepted for symmetry with the other commands: the description is JSON already")
    // serve's address, as its description names it when no URL is given (the same options and variables).
    .addOption(
      new Option("--host <host>", "serve's address, for the default URLs")
        .env("CONTENT_SERVICE_HOST")
        .default(DEFAULT_HOST)
        .argParser(hostArg),
    )
    .addOption(
      new Option("--port <port>", "serve's port, for the default URLs (not 0 unless both URLs are given)")
        .env("CONTENT_SERVICE_PORT")
        .default(DEFAULT_PORT)
        .argParser(portArg),
    )
    .addOption(
      new Option("--public-url <url>", "production server URL in the description (default: http://HOST:PORT)")
        .env("CONTENT_SERVICE_PUBLIC_URL")
        .argParser(serverUrlArg("--public-url")),
    )
    .addOption(
      new Option("--staging-url <url>", "staging server URL in the description (default: http://staging.HOST:PORT)")
        .env("CONTENT_SERVICE_STAGING_URL")
        .argParser(serverUrlArg("--staging-url")),
    )
    .action((opts: OpenApiOptions, cmd: Command) => {
      // serve --port 0 picks a port when it starts: a description written beforehand cannot know it, and its
      // default URLs would name port 0, where no client reaches a server.
      if (opts.port === 0 && (opts.publicUrl === undefined || opts.stagingUrl === undefined))
        throw new UsageError(
          `${givenOption(cmd, "port")}: the description's default URLs would name port 0, which no server listens on; ` +
            "give the port serve listens on, or both --public-url and --staging-url",
        );
      const out = opts.out === "-" ? undefined : opts.out;
      if (out !== undefined) checkOutFile(out);
      const defaults = defaultServerUrls(opts.host, opts.port);
      const urls = {
        publicUrl: opts.publicUrl ?? defaults.publicUrl,
        stagingUrl: opts.stagingUrl ?? defaults.stagingUrl,
      };
      const doc = buildOpenApi(ROUTES, urls, { internal: opts.internal === true });
      if (out !== undefined) writeDescription(out, `${JSON.stringify(doc, null, 2)}\n`);
      else printJson(doc);
    });
}
