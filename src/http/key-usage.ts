/** Keeps `last_used_at` current in memory and writes it in batches, not on every request. */
import type { Store } from "../db/store.js";
import { iso } from "../domain/clock.js";
import type { StoreWriter } from "../domain/writer.js";

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
    const taken = this.take();
    if (taken.length > 0) this.store.apiKeys.touchMany(formatted(taken));
    return taken.length;
  }

  /** flush() through a writer (the server's writer thread: see domain/writer.ts); a failed write is retried next time. */
  async flushVia(writer: StoreWriter): Promise<number> {
    const taken = this.take();
    if (taken.length === 0) return 0;
    try {
      await writer.run("keysTouch", formatted(taken));
    } catch (e) {
      // A use recorded since is newer: it stays.
      for (const [id, ms] of taken) if (!this.pending.has(id)) this.pending.set(id, ms);
      throw e;
    }
    return taken.length;
  }

  private take(): [string, number][] {
    const taken = [...this.pending.entries()];
    this.pending.clear();
    if (this.latest.size > 10_000) this.latest.clear();
    return taken;
  }
}

function formatted(taken: [string, number][]): [string, string][] {
  return taken.map(([id, ms]) => [id, iso(ms)]);
}
