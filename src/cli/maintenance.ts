/** `migrate`, `backup` and `openapi`. */
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { migrate } from "../db/migrate.js";
import { DB_FILE, openDb } from "../db/open.js";
import { buildOpenApi } from "../http/openapi.js";
import { ROUTES } from "../http/routes.js";
import { DEFAULT_CONFIG } from "../http/server.js";
import { checkCopy, copyDatabase } from "../jobs/backups.js";
import { CliError, dataDirOf, printJson, wantsJson } from "./common.js";

/** Copies a live database into `out` as one consistent snapshot (VACUUM INTO reads in one transaction). */
export function backupDatabase(dataDir: string, out: string): { bytes: number } {
  if (!existsSync(path.join(dataDir, DB_FILE))) throw new CliError(`no database in ${dataDir}`);
  const target = path.resolve(out);
  const tmp = `${target}.partial-${process.pid}`;
  rmSync(tmp, { force: true });
  copyDatabase({ dataDir }, tmp);
  try {
    checkCopy(tmp);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  renameSync(tmp, target);
  return { bytes: statSync(target).size };
}

/** Adds the maintenance commands to the program. */
export function registerMaintenanceCommands(program: Command): void {
  program
    .command("migrate")
    .description("Apply pending database migrations")
    .option("--json", "print the applied migrations as JSON")
    .action((_opts, cmd: Command) => {
      const db = openDb(dataDirOf(cmd));
      try {
        const applied = migrate(db);
        if (wantsJson(cmd)) return printJson({ applied });
        process.stdout.write(applied.length ? `applied: ${applied.join(", ")}\n` : "up to date\n");
      } finally {
        db.close();
      }
    });
  program
    .command("backup")
    .description("Write a consistent copy of the database, also while the server runs")
    .requiredOption("--out <file>", "backup file to write")
    .option("--json", "print the result as JSON")
    .action((opts: { out: string }, cmd: Command) => {
      const started = Date.now();
      const { bytes } = backupDatabase(dataDirOf(cmd), opts.out);
      if (wantsJson(cmd)) return printJson({ file: path.resolve(opts.out), bytes, ms: Date.now() - started });
      process.stdout.write(`backup written: ${path.resolve(opts.out)} (${bytes} bytes)\n`);
    });
  program
    .command("openapi")
    .description("Print the OpenAPI description")
    .option("--out <file>", "write it to a file instead of stdout")
    .option("--public-url <url>", "production server URL", DEFAULT_CONFIG.publicUrl)
    .option("--staging-url <url>", "staging server URL", DEFAULT_CONFIG.stagingUrl)
    .action((opts: { out?: string; publicUrl: string; stagingUrl: string }) => {
      const doc = buildOpenApi(ROUTES, opts);
      if (opts.out) writeFileSync(opts.out, `${JSON.stringify(doc, null, 2)}\n`);
      else printJson(doc);
    });
}
