/**
 * Known states of a sandbox (docs/sandbox.md "Known states"): the state it started from, taken once the fixtures are
 * in, and named snapshots, each a copy of the database in the data directory's `sandbox/` folder (VACUUM INTO: a
 * whole, compact file in milliseconds for a test's data). A reset or a restore copies one back over the live database
 * with SQLite's backup API, in one step: one write transaction, which the server's other connections (the writer
 * thread's, the worker threads') see at their next read as any commit, so that none is reopened. It runs with the
 * request gate closed (states-gate.ts) and the writer thread held, then forgets what the server kept in memory of the
 * state before (states-memory.ts). Held by test/sandbox/reset.test.ts and test/sandbox/snapshots.test.ts.
 */
import { mkdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { type Db, openDb } from "../db/open.js";
import type { RequestGate } from "./states-gate.js";

/** Where a sandbox keeps its states: the server's connection (its file is the live database) and a folder. */
export interface StatesPlace {
  db: Db;
  /** The folder of the snapshot files (`<data-dir>/sandbox`), emptied as the sandbox starts. */
  dir: string;
}

/** The most named snapshots kept at once: each is a whole copy of the database on disk. */
export const SNAPSHOTS_MAX = 100;

/** The file of the state the sandbox started from, beside the named ones (whose names cannot start with `.`). */
const START = ".start";

/** A named snapshot as listed. */
export interface SnapshotInfo {
  name: string;
  created_at: string;
  size_bytes: number;
}

/** What a reset or a restore does besides copying the database: forget the memory of the state before. */
export type AfterRestore = () => void;

/** A sandbox's known states: the start and the named snapshots. */
export class KnownStates {
  private created = new Map<string, string>();

  constructor(
    private place: StatesPlace,
    private gate: RequestGate,
    private hold: () => Promise<() => void>,
    private afterRestore: AfterRestore,
    private now: () => string,
  ) {
    // A sandbox's snapshots are its run's: one left by an earlier run may be of another schema or another fixture.
    rmSync(place.dir, { recursive: true, force: true });
    mkdirSync(place.dir, { recursive: true, mode: 0o700 });
  }

  /** Takes the state to reset to: once the fixtures are in, before the first request. */
  takeStart(): void {
    this.copyOut(START);
  }

  /** Back to the state the sandbox started from. */
  reset(extra: () => void = () => {}): Promise<void> {
    return this.restoreFile(START, extra);
  }

  /** Saves the live state under `name`, replacing a snapshot of that name (which then counts as the newest). */
  save(name: string): Promise<SnapshotInfo> {
    return this.gate.whileClosed(async () => {
      this.copyOut(name);
      this.created.delete(name);
      this.created.set(name, this.now());
      return this.info(name);
    });
  }

  /** The named snapshots, in the order they were saved. */
  list(): SnapshotInfo[] {
    return [...this.created.keys()].map((name) => this.info(name));
  }

  /** Whether a snapshot of that name exists. */
  has(name: string): boolean {
    return this.created.has(name);
  }

  /** How many named snapshots exist. */
  get count(): number {
    return this.created.size;
  }

  /** Restores a named snapshot; false when there is none of that name. */
  async restore(name: string): Promise<boolean> {
    if (!this.created.has(name)) return false;
    await this.restoreFile(name);
    return true;
  }

  /** Removes a named snapshot; false when there is none of that name. */
  remove(name: string): boolean {
    if (!this.created.delete(name)) return false;
    rmSync(this.file(name), { force: true });
    return true;
  }

  private info(name: string): SnapshotInfo {
    return { name, created_at: this.created.get(name) ?? "", size_bytes: statSync(this.file(name)).size };
  }

  private file(name: string): string {
    return path.join(this.place.dir, `${name}.db`);
  }

  /** Copies the live database to a snapshot file (VACUUM INTO needs no file there: one being replaced goes first). */
  private copyOut(name: string): void {
    const file = this.file(name);
    rmSync(file, { force: true });
    this.place.db.prepare("VACUUM INTO ?").run(file);
  }

  /** Copies a snapshot file over the live database, with requests held and the writer thread idle. */
  private restoreFile(name: string, extra: () => void = () => {}): Promise<void> {
    return this.gate.whileClosed(async () => {
      const release = await this.hold();
      try {
        await copyOver(this.place.dir, `${name}.db`, this.place.db.name);
        this.afterRestore();
        extra();
      } finally {
        release();
      }
    });
  }
}

/**
 * Copies the snapshot `file` of `dir` over the database at `to` with SQLite's backup API, every page in one step (one
 * transaction: a reader sees the state before or the state after, never a mix). The destination stays in WAL mode,
 * its other connections open.
 */
async function copyOver(dir: string, file: string, to: string): Promise<void> {
  const source = openDb(dir, { readonly: true, mustExist: true, file });
  try {
    await source.backup(to, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
}
