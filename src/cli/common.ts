/** Helpers every command uses: the data directory, opening the store, output and failures. */
import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { pendingMigrations } from "../db/migrate.js";
import { DB_FILE, openDb } from "../db/open.js";
import { createStore, type Store } from "../db/store.js";
import { ApiError } from "../http/errors.js";

/** A failure the CLI reports as one line on stderr with exit status 1. */
export class CliError extends Error {}

/** The data directory from --data-dir, CONTENT_SERVICE_DATA_DIR or ./data. */
export function dataDirOf(cmd: Command): string {
  const opts = cmd.optsWithGlobals() as { dataDir?: string };
  return path.resolve(opts.dataDir ?? process.env.CONTENT_SERVICE_DATA_DIR ?? "./data");
}

/** Whether --json was given. */
export function wantsJson(cmd: Command): boolean {
  return Boolean((cmd.optsWithGlobals() as { json?: boolean }).json);
}

/** Opens an initialised, up-to-date database and runs `fn` with its store, closing it afterwards. */
export async function withStore<T>(cmd: Command, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const dir = dataDirOf(cmd);
  if (!existsSync(path.join(dir, DB_FILE)))
    throw new CliError(`no database in ${dir}: run \`content-service init --data-dir ${dir}\` first`);
  const db = openDb(dir);
  try {
    const pending = pendingMigrations(db);
    if (pending.length > 0)
      throw new CliError(`the database needs ${pending.length} migration(s): run \`content-service migrate\` first`);
    return await fn(createStore(db));
  } catch (e) {
    if (e instanceof ApiError) throw new CliError(e.message);
    throw e;
  } finally {
    db.close();
  }
}

/** Prints one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints rows as an aligned table. */
export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  if (rows.length === 0) {
    process.stdout.write("(none)\n");
    return;
  }
  const cell = (v: unknown) => (v === null || v === undefined ? "-" : Array.isArray(v) ? v.join(",") : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    `${vals
      .map((v, i) => v.padEnd(widths[i]))
      .join("  ")
      .trimEnd()}\n`;
  process.stdout.write(line(columns));
  for (const r of rows) process.stdout.write(line(columns.map((c) => cell(r[c]))));
}

/** Parses a positive integer argument or fails as a usage error. */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new UsageError(`${name} must be a positive whole number, got "${value}"`);
    return Number(value);
  };
}

/** A bad argument: one line on stderr and exit status 2. */
export class UsageError extends Error {}

/** Reads all of stdin when it is not a terminal (for passwords); undefined on a terminal. */
export async function readStdinIfPiped(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  return text.length > 0 ? text : undefined;
}
