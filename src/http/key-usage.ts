/** Keeps `last_used_at` current in memory and writes it in batches, not on every request. */
import type { Store } from "../db/store.js";

/** Collects key uses and flushes them periodically and at shutdown. */
export class KeyUsageTracker {
  private pending = new Map<string, string>();
  private latest = new Map<string, string>();

  constructor(private store: Store) {}

  /** Records a use of a key at an ISO time. */
  touch(keyId: string, at: string): void {
    this.pending.set(keyId, at);
    this.latest.set(keyId, at);
  }

  /** The most recent use known in memory or on disk. */
  lastUsed(keyId: string, stored: string | null): string | null {
    const mem = this.latest.get(keyId);
    if (!mem) return stored;
    if (!stored) return mem;
    return mem > stored ? mem : stored;
  }

  /** Writes every pending use in one transaction. */
  flush(): number {
    if (this.pending.size === 0) return 0;
    const entries = [...this.pending.entries()];
    this.pending.clear();
    this.store.apiKeys.touchMany(entries);
    if (this.latest.size > 10_000) this.latest.clear();
    return entries.length;
  }
}
