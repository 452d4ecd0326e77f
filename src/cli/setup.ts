/** `init`: the database, the first account, its default workspace and an admin user (idempotent). */

import type { Plan } from "../db/accounts.js";
import { migrate } from "../db/migrate.js";
import { openDb } from "../db/open.js";
import type { PgConnection } from "../db/pg/connection.js";
import { createStore, type Store } from "../db/store.js";
import { createAccount, createUser, issueKey, setOperatorAccount } from "../domain/admin.js";
import { generatePassword, hashPassword } from "../domain/passwords.js";
import { ensureJwtSecret } from "../domain/sessions.js";
import { openPostgresDatabase } from "./database.js";

/** What `init` was asked for. */
export interface InitOptions {
  accountName: string;
  plan: Plan;
  adminEmail: string;
  /** Given (from stdin) or undefined to generate one. */
  password?: string;
  /** Also issue a read+write key (first start of `serve`). */
  withKey?: boolean;
  /** When the records are made (default: now); a seeded sandbox's fixed start (`serve --sandbox --seed`). */
  nowMs?: number;
}

/** What `init` did: nothing when the database was already initialised. */
export type InitResult =
  | { created: false }
  | {
      created: true;
      accountId: number;
      workspaceId: string;
      adminEmail: string;
      generatedPassword?: string;
      key?: string;
      /** When that key expires (ISO 8601), null for never; it was issued at `keyCreatedAt`. */
      keyExpiresAt?: string | null;
      keyCreatedAt?: string;
      /** Made on a PostgreSQL database (`--database-url`), not the data directory's file. */
      onPostgres?: boolean;
    };

/** Initialises the data directory's database; does nothing on one that has an account. */
export function initStore(store: Store, opts: InitOptions): InitResult {
  ensureJwtSecret(store);
  if (store.accounts.list().length > 0) return { created: false };
  const generated = opts.password === undefined ? generatePassword() : undefined;
  const hash = hashPassword(opts.password ?? generated!);
  return store.transaction((): InitResult => {
    // Asked again under the write lock (transactions begin IMMEDIATE): a `serve` and an `init` starting together on
    // an empty folder may each find no account above, and only one may make it (test/cli/init-race.test.ts).
    if (store.accounts.any()) return { created: false };
    const { account, workspace } = createAccount(store, "cli:init", opts.accountName, opts.plan, opts.nowMs);
    setOperatorAccount(store, account.id);
    createUser(store, "cli:init", account.id, opts.adminEmail, hash, "admin", opts.nowMs);
    const issued = opts.withKey
      ? issueKey(store, "cli:init", { accountId: account.id, name: "first key", scopes: ["read", "write"] }, opts.nowMs)
      : undefined;
    return {
      created: true,
      accountId: account.id,
      workspaceId: workspace.id,
      adminEmail: opts.adminEmail,
      generatedPassword: generated,
      key: issued?.secret,
      keyExpiresAt: issued?.row.expires_at,
      keyCreatedAt: issued?.row.created_at,
    };
  });
}

/** Opens, migrates and initialises a data directory; `opened` is called as soon as the file is open (OpenOptions). */
export function initDataDir(dataDir: string, opts: InitOptions, opened?: () => void): InitResult {
  return initDatabase({ dataDir }, opts, opened);
}

/**
 * Opens, migrates and initialises the database of a data directory, or the PostgreSQL database at `databaseUrl`
 * instead; `opened` is called as soon as it is open.
 */
export function initDatabase(
  where: { dataDir: string; databaseUrl?: string },
  opts: InitOptions,
  opened?: () => void,
): InitResult {
  const db = where.databaseUrl ? openPostgresOpened(where.databaseUrl, opened) : openDb(where.dataDir, { opened });
  try {
    migrate(db);
    const result = initStore(createStore(db), opts);
    return result.created && where.databaseUrl ? { ...result, onPostgres: true } : result;
  } finally {
    db.close();
  }
}

/** A PostgreSQL connection for `init` or a first start, `opened` called once it answers. */
function openPostgresOpened(url: string, opened?: () => void): PgConnection {
  const db = openPostgresDatabase(url);
  opened?.();
  return db;
}
