/**
 * The storage quota (issue 31 L5): the bytes an account's records hold, counted by the database in the writing
 * transaction (sql/0019_storage_usage.sql, db/storage.ts), checked before a write that would pass the account's
 * quota (effectiveQuotas: its own, else its plan's). Each write names the bytes it adds (textBytes): the check is
 * one call, at no cost beyond reading one row. Tests: test/routes/storage-quota.test.ts.
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

/**
 * Throws 507 storage_quota_exceeded when storing `addBytes` more would take the account past its quota, with the
 * limit, the bytes used and those asked for. A write that adds nothing (or frees bytes) always passes.
 */
export function checkStorage(store: Store, account: AccountRow, addBytes: number): void {
  if (addBytes <= 0) return;
  const { limit_bytes, used_bytes } = storageOf(store, account);
  if (used_bytes + addBytes <= limit_bytes) return;
  throw new ApiError(
    "storage_quota_exceeded",
    `This account's records hold ${used_bytes} of its ${limit_bytes} bytes; storing ${addBytes} more would pass ` +
      "its storage quota. Delete records (contents, conversions, references, images, memories) or ask the " +
      "administrator for a larger quota.",
    { quota: "storage_bytes", limit_bytes, used_bytes, requested_bytes: addBytes },
  );
}
