/**
 * The rows every request reads before its handler runs (its API key, its account, its workspace), kept in memory
 * while the database is unchanged. Measured, these lookups were a sixth of an authenticated GET's CPU.
 *
 * When is a row stale? After any write on the server's own connection: `total_changes()` moves, and the cache is
 * emptied before the next lookup (a key revoked over the API is refused by the very next request). After a write by
 * another connection (the command line revoking a key, changing a plan; the server's writer thread, which touches no
 * cached row but `last_used_at`): `PRAGMA data_version` moves; it is read at most every `otherWritersMs` (250 ms),
 * well within DESIGN §2's "a running server rejects the key within 2 seconds".
 * Lookups that find nothing are not kept, so that guessing keys cannot fill memory; the cache holds at most
 * `maxRows` rows and starts over when full.
 */
import type { Statement } from "better-sqlite3";
import type { SqlConnection } from "./connection.js";
import type { Db } from "./open.js";

/** Rows read by key before a request's handler runs: kept in memory where the engine tells when they go stale. */
export interface RowLookups {
  /** The row under `key`, loaded with `load` when not kept or when the database changed since. */
  get<T>(key: string, load: () => T | undefined): T | undefined;
  /** Forgets every row (the next lookups read the database). */
  clear(): void;
}

/**
 * The lookups of a connection: cached on SQLite, read each time on PostgreSQL, where several servers write one
 * database and none of SQLite's change counters exists (test/db/row-cache.test.ts).
 */
export function rowLookupsOf(db: SqlConnection): RowLookups {
  return db.dialect === "postgres" ? new UncachedRows() : new RowCache(db as Db);
}

/** Lookups that always read the database: a key revoked through another server is refused by the next request. */
export class UncachedRows implements RowLookups {
  get<T>(_key: string, load: () => T | undefined): T | undefined {
    return load();
  }

  clear(): void {}
}

/** Rows read by key and kept until the database changes, so that a hot read skips its query. */
export class RowCache implements RowLookups {
  private rows = new Map<string, unknown>();
  private changes = -1;
  private dataVersion = -1;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private totalChanges: Statement<[], number>;
  private version: Statement<[], number>;

  constructor(
    db: Db,
    private otherWritersMs = 250,
    private maxRows = 10_000,
    private now: () => number = () => performance.now(),
  ) {
    this.totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
    this.version = db.prepare<[], number>("PRAGMA data_version").pluck();
  }

  /** The row under `key`, loaded with `load` when not kept or when the database changed since. */
  get<T>(key: string, load: () => T | undefined): T | undefined {
    this.refresh();
    const kept = this.rows.get(key) as T | undefined;
    if (kept !== undefined) return kept;
    const row = load();
    if (row !== undefined) {
      if (this.rows.size >= this.maxRows) this.rows.clear();
      this.rows.set(key, row);
    }
    return row;
  }

  /** Forgets every row (the next lookups read the database). */
  clear(): void {
    this.rows.clear();
  }

  private refresh(): void {
    const changes = this.totalChanges.get() as number;
    let version = this.dataVersion;
    const now = this.now();
    if (now - this.checkedAt >= this.otherWritersMs) {
      version = this.version.get() as number;
      this.checkedAt = now;
    }
    if (changes !== this.changes || version !== this.dataVersion) {
      this.rows.clear();
      this.changes = changes;
      this.dataVersion = version;
    }
  }
}
