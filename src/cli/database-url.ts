/**
 * The PostgreSQL database of a command (`--database-url`, CONTENT_SERVICE_DATABASE_URL), which takes the place of the
 * data directory's SQLite file.
 */
import type { Command } from "commander";
import { UsageError } from "./errors.js";

/** The variable `--database-url` is read from when the flag is not given. */
export const DATABASE_URL_ENV = "CONTENT_SERVICE_DATABASE_URL";

/**
 * The command's PostgreSQL URL, or undefined for the data directory's SQLite file (an empty variable, as an env file's
 * `CONTENT_SERVICE_DATABASE_URL=`, is unset). One that is not a postgres:// URL is a usage error naming where it came
 * from (test/cli/database-url.test.ts).
 */
export function databaseUrlOf(cmd: Command): string | undefined {
  const given = (cmd.optsWithGlobals() as { databaseUrl?: string }).databaseUrl;
  const url = given ?? process.env[DATABASE_URL_ENV];
  if (url === undefined || url.trim() === "") return undefined;
  const from =
    given === undefined || cmd.getOptionValueSourceWithGlobals("databaseUrl") === "env"
      ? ` (from ${DATABASE_URL_ENV})`
      : "";
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new UsageError(`--database-url${from} is not a URL: give postgres://USER:PASSWORD@HOST:PORT/DATABASE`);
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:")
    throw new UsageError(`--database-url${from} must be a postgres:// URL, not ${protocol}//…`);
  return url;
}
