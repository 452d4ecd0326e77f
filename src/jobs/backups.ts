/** Scheduled backups of a running server's database: one consistent copy per run, the newest N kept. */
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import type { Db } from "../db/open.js";
import { openDb } from "../db/open.js";

const NAME = /^content-service-(\d{8}T\d{6}Z)\.db$/;

/** The file name of a backup taken at an instant. */
export function backupName(nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
  return `content-service-${stamp}.db`;
}

/**
 * Copies the live database with SQLite's online backup through the server's own connection (its writes during
 * the copy are carried over, so the copy is consistent), checks it, moves it into place and prunes old copies.
 * `check` runs checkCopy; the server runs it on its background thread (a full integrity check reads every page).
 */
export async function takeBackup(
  db: Db,
  dir: string,
  keep: number,
  nowMs = Date.now(),
  check: (file: string) => unknown = checkCopy,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const target = path.join(dir, backupName(nowMs));
  const tmp = `${target}.partial`;
  rmSync(tmp, { force: true });
  await db.backup(tmp);
  try {
    await check(tmp);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  renameSync(tmp, target);
  pruneBackups(dir, keep);
  return target;
}

/**
 * Makes a copy self-contained (rollback journal, so no -wal/-shm files travel beside it) and checks its integrity;
 * throws when the check fails.
 */
export function checkCopy(file: string, addonFile?: string): void {
  const copy = openDb(path.dirname(file), { file: path.basename(file), addonFile });
  try {
    copy.pragma("journal_mode = DELETE");
    const result = copy.pragma("integrity_check", { simple: true });
    if (result !== "ok") throw new Error(`the backup failed its integrity check: ${String(result)}`);
  } finally {
    copy.close();
  }
}

/** Deletes all but the newest `keep` backups in a folder (only files this module named). */
export function pruneBackups(dir: string, keep: number): string[] {
  const names = readdirSync(dir)
    .filter((n) => NAME.test(n))
    .sort();
  const doomed = names.slice(0, Math.max(0, names.length - keep));
  for (const n of doomed) rmSync(path.join(dir, n), { force: true });
  return doomed;
}
