/**
 * Servers sharing one PostgreSQL database, in process, for the tests of what holds across them (test/db/pg/): the
 * database's first start (an account, its admin and a key), and a server on it with a data directory of its own.
 */
import { initDatabase } from "../../src/cli/setup.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { type RunningServer, type ServeOptions, startServer } from "../../src/server/start.js";
import { tempDir } from "./cli.js";

/** The admin's password of initialisedDatabase's account. */
export const ADMIN_PASSWORD = "correct horse battery staple";

/** The admin of initialisedDatabase's account. */
export const ADMIN_EMAIL = "admin@team.test";

/** Makes a database's first account (account 1, "Team", business) with its admin, and returns its first key. */
export function initialisedDatabase(url: string): string {
  const where = { dataDir: tempDir("cs-pg-init-"), databaseUrl: url };
  const made = initDatabase(where, {
    ...{ accountName: "Team", plan: "business", adminEmail: ADMIN_EMAIL },
    ...{ password: ADMIN_PASSWORD, withKey: true },
  });
  if (!made.created || !made.key || !made.onPostgres) throw new Error("the first start made no key on PostgreSQL");
  return made.key;
}

/** A server on the database at `url` (one worker, any free port, a log in memory), with `options` over those. */
export function serverOn(url: string, options: Partial<ServeOptions> = {}): Promise<RunningServer> {
  return startServer({
    dataDir: tempDir("cs-pg-server-"),
    databaseUrl: url,
    host: "127.0.0.1",
    port: 0,
    workers: 1,
    logger: memoryLogger(),
    ...options,
  });
}
