/**
 * The storage quota (issue 31 L5): the bytes an account's records hold, counted by the database in the writing
 * transaction (sql/0019_storage_usage.sql, db/storage.ts), checked before a write that would pass the account's
 * quota (effectiveQuotas: its own, else its plan's). The request checks early with the bytes it will add (textBytes),
 * to refuse most writes cheaply; the writer's transaction that stores the record checks again what it added
 * (withinStorage), which holds under concurrent writes. The answers kept for Idempotency-Key replays count too
 * (sql/0021_storage_idempotency.sql), and one that does not fit is kept without its body (fitsStorage). Tests:
 * test/routes/storage-quota.test.ts, storage-quota-exact.test.ts, storage-quota-replays.test.ts.
 */
import type { AccountRow } from "../db/accounts.js";
import type { Store } from "../db/store.js";
import { ApiError } from "./errors.js";
import { effectiveQuotas } from "./plans.js";

/** What an account may store and holds now, as the entitlements report it. */
export interface StorageState {
  limit_bytes: number;
  used_bytes: number;
}

/** The UTF-8 bytes of the texts a write stores, as the database counts them (missing ones count 0). */
export function textBytes(...texts: (string | null | undefined)[]): number {
  return texts.reduce((sum, t) => sum + (t ? Buffer.byteLength(t, "utf8") : 0), 0);
}

/** An account's quota and the bytes its records hold (counted now if they were not yet). */
export function storageOf(store: Store, account: AccountRow): StorageState {
  const used = store.storage.used(account.id) ?? store.storage.recount(account.id);
  return { limit_bytes: effectiveQuotas(account).storageBytes, used_bytes: used };
}

/** 507 storage_quota_exceeded: storing `requested` more bytes would take an account holding `used` past `limit`. */
function quotaExceeded(limit: number, used: number, requested: number): ApiError {
  return new ApiError(
    "storage_quota_exceeded",
    `This account's records hold ${used} of its ${limit} bytes; storing ${requested} more would pass ` +
      "its storage quota. Delete records (contents, conversions, references, images, memories) or ask the " +
      "administrator for a larger quota.",
    { quota: "storage_bytes", limit_bytes: limit, used_bytes: used, requested_bytes: requested },
  );
}

/**
 * The early check, on the request thread: throws 507 storage_quota_exceeded when storing `addBytes` more would take
 * the account past its quota, before the request spends work on a write that cannot fit. It is not the one that
 * holds (concurrent writes all pass it before any is stored): withinStorage is. A write that adds nothing (or frees
 * bytes) always passes.
 */
export function checkStorage(store: Store, account: AccountRow, addBytes: number): void {
  if (addBytes <= 0) return;
  const { limit_bytes, used_bytes } = storageOf(store, account);
  if (used_bytes + addBytes > limit_bytes) throw quotaExceeded(limit_bytes, used_bytes, addBytes);
}

/**
 * Runs `write` in a transaction and undoes it with 507 storage_quota_exceeded when the bytes it added (as the
 * database counted them) take the account past its quota, read in that same transaction: the check that holds
 * however many writes run at once, since the writer's transactions run one at a time
 * (test/routes/storage-quota-exact.test.ts). A write that adds nothing (or frees bytes) always passes.
 */
export function withinStorage<T>(store: Store, accountId: number, write: () => T): T {
  return store.transaction(() => {
    const before = store.storage.used(accountId) ?? store.storage.recount(accountId);
    const result = write();
    const after = store.storage.used(accountId) ?? before;
    const account = after > before ? store.accounts.byId(accountId) : undefined;
    if (account) {
      const limit = effectiveQuotas(account).storageBytes;
      if (after > limit) throw quotaExceeded(limit, before, after - before);
    }
    return result;
  });
}

/**
 * Whether storing `addBytes` more keeps the account within its quota, read in the caller's transaction (an answer
 * kept for an Idempotency-Key replay, which is kept without its body when it does not fit: domain/writer.ts).
 */
export function fitsStorage(store: Store, accountId: number, addBytes: number): boolean {
  const account = store.accounts.byId(accountId);
  if (addBytes <= 0 || account === undefined) return true;
  const { limit_bytes, used_bytes } = storageOf(store, account);
  return used_bytes + addBytes <= limit_bytes;
}
