/** Keeps `last_used_at` current in memory and writes it in batches, not on every request. */
import type { Store } from "../db/store.js";
import { iso } from "../domain/clock.js";

/** Collects key uses and flushes them periodically and at shutdown. */
export class KeyUsageTracker {
  // Instants in ms: formatted when read or written, not on every request.
  private pending = new Map<string, number>();
  private latest = new Map<string, number>();

  constructor(private store: Store) {}

  /** Records a use of a key at an instant (ms since the epoch). */
  touch(keyId: string, atMs: number): void {
    this.pending.set(keyId, atMs);
    this.latest.set(keyId, atMs);
  }

  /** The most recent use known in memory or on disk. */
  lastUsed(keyId: string, stored: string | null): string | null {
    const ms = this.latest.get(keyId);
    if (ms === undefined) return stored;
    const mem = iso(ms);
    if (!stored) return mem;
    return mem > stored ? mem : stored;
  }

  /** Writes every pending use in one transaction. */
  flush(): number {
    if (this.pending.size === 0) return 0;
    const entries = [...this.pending.entries()].map(([id, ms]): [string, string] => [id, iso(ms)]);
    this.pending.clear();
    this.store.apiKeys.touchMany(entries);
    if (this.latest.size > 10_000) this.latest.clear();
    return entries.length;
  }
}
