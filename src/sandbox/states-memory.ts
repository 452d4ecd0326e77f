/**
 * What a server keeps in memory of its database's state, made to match a state restored under it (states.ts): the
 * state before is gone, and so is what was kept of it. Held by test/sandbox/reset.test.ts ("memory").
 *
 * - the rows requests authenticate with (db/row-cache.ts): emptied;
 * - the rate buckets (http/ratelimit.ts): new, full ones, as at a start;
 * - the graph reads kept by version (domain/graph-reads.ts): a restored graph goes back to an earlier version, which
 *   its next change gives again to another graph;
 * - device authorizations under way, the key uses not yet written (http/key-usage.ts): of the state before;
 * - the usage counts not yet written are written before the copy (which then replaces them), so that none is added
 *   to the state restored.
 * Idempotency-Key answers and sessions are rows of the database: restored with it.
 */

import { DeviceAuthorizations } from "../domain/device-auth.js";
import { GraphReadCache } from "../domain/graph-reads.js";
import type { ThreadWriter } from "../domain/writer.js";
import type { Services } from "../http/context.js";
import { KeyUsageTracker } from "../http/key-usage.js";
import { RateLimiter } from "../http/ratelimit.js";

/**
 * Holds every write of the server (the HTTP thread's turns, the writer thread's queue), once the writer's operations
 * under way have finished and the pending usage is written; resolves to the release.
 */
export async function holdWrites(services: Services): Promise<() => void> {
  const writer = services.writer as Partial<ThreadWriter>;
  const turns = services.turns.hold();
  const queue = writer.hold?.();
  await writer.settled?.();
  services.usage.flush();
  return () => {
    turns();
    queue?.();
  };
}

/** Forgets what the server kept in memory of the state before a restore. */
export function forgetMemory(services: Services): void {
  services.rows.clear();
  services.limiter = new RateLimiter(services.clock);
  services.graphReads = new GraphReadCache();
  services.deviceAuth = new DeviceAuthorizations(services.clock);
  services.keyUsage = new KeyUsageTracker(services.store);
  // The learning queue is a table: restored with the rest, looked at again.
  services.learning.kick();
}
