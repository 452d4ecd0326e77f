/** Queries on API keys (only hashes are stored). */
import type { SqlConnection } from "./connection.js";

/** The scopes a key can have (which ones a request for scopes gets: domain/apikeys.ts normaliseScopes). */
export const SCOPES = ["read", "write"] as const;
/** One of SCOPES. */
export type Scope = (typeof SCOPES)[number];

/** Scopes of a stored key; NULL (a key made before scopes existed) acts as read+write. */
export function storedScopes(raw: string | null): Scope[] {
  if (raw === null) return ["read", "write"];
  // Read on every request; the stored forms are few (the API and the CLI write them).
  let scopes = scopesOfStored.get(raw);
  if (!scopes) {
    const parsed = JSON.parse(raw) as string[];
    scopes = parsed.length === 0 || parsed.includes("write") ? ["read", "write"] : ["read"];
    if (scopesOfStored.size < 64) scopesOfStored.set(raw, scopes);
  }
  return [...scopes];
}

const scopesOfStored = new Map<string, Scope[]>();

/** One row of api_keys: the key's hash and display prefix, never its secret; `scopes` is JSON text. */
export interface ApiKeyRow {
  id: string;
  account_id: number;
  name: string;
  key_hash: string;
  display_prefix: string;
  scopes: string | null;
  workspace_id: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
  /** The user whose web session issued the key; null: the command line's, the account's (DESIGN §10). */
  created_by_user_id: number | null;
  /** The key this one was issued to replace (`keys rotate`); null: none. */
  replaces_key_id: string | null;
}

/** A key as listed: its row and the email of the user who issued it (null: the account's key). */
export interface ListedKeyRow extends ApiKeyRow {
  created_by_email: string | null;
}

/** What creating a key stores: its hash (the secret is shown once and not kept) and its restrictions. */
export interface NewKey {
  id: string;
  accountId: number;
  name: string;
  keyHash: string;
  displayPrefix: string;
  scopes: string[];
  workspaceId: string | null;
  expiresAt: string | null;
  createdAt: string;
  createdByUserId: number | null;
  replacesKeyId: string | null;
}

/** Prepared key statements of one connection. */
export function apiKeyQueries(db: SqlConnection) {
  const byHash = db.prepare<[string], ApiKeyRow>("SELECT * FROM api_keys WHERE key_hash = ?");
  // Every read but the per-request one by hash carries the issuer's email, as the key's view shows it.
  const listed =
    "SELECT k.*, u.email AS created_by_email FROM api_keys k LEFT JOIN users u ON u.id = k.created_by_user_id";
  const byId = db.prepare<[string], ListedKeyRow>(`${listed} WHERE k.id = ?`);
  const all = db.prepare<[], ListedKeyRow>(`${listed} ORDER BY k.created_at, k.id`);
  const byAccount = db.prepare<[number], ListedKeyRow>(`${listed} WHERE k.account_id = ? ORDER BY k.created_at, k.id`);
  // Active as domain/apikeys.ts keyStatus says: not revoked, and no expiry or one after now (ISO strings compare).
  const active = db.prepare<[number, string], { n: number }>(
    "SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
  );
  const insert = db.prepare(
    `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, scopes, workspace_id, expires_at, created_at,
       created_by_user_id, replaces_key_id)
     VALUES (@id, @accountId, @name, @keyHash, @displayPrefix, @scopes, @workspaceId, @expiresAt, @createdAt,
       @createdByUserId, @replacesKeyId)`,
  );
  const revoke = db.prepare<[string, string]>("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL");
  const expireBy = db.prepare<{ id: string; at: string }>(
    "UPDATE api_keys SET expires_at = @at WHERE id = @id AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > @at)",
  );
  const rename = db.prepare<[string, string]>("UPDATE api_keys SET name = ? WHERE id = ?");
  const touch = db.prepare<[string, string, string]>(
    "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
  );
  const touchAll = db.transaction((entries: [string, string][]) => {
    for (const [id, at] of entries) touch.run(at, id, at);
  });
  return {
    byId: (id: string) => byId.get(id),
    byHash: (hash: string) => byHash.get(hash),
    list: (accountId?: number) => (accountId === undefined ? all.all() : byAccount.all(accountId)),
    /** How many keys of the account are active at `now` (an ISO instant). */
    countActive: (accountId: number, now: string) => active.get(accountId, now)!.n,
    create(k: NewKey): ListedKeyRow {
      insert.run({ ...k, scopes: JSON.stringify(k.scopes) });
      return byId.get(k.id)!;
    },
    revoke: (id: string, now: string) => revoke.run(now, id).changes > 0,
    rename: (id: string, name: string) => rename.run(name, id).changes > 0,
    /** Brings a live key's expiry forward to `at` (never later than it was); false when nothing changed. */
    expireBy: (id: string, at: string) => expireBy.run({ id, at }).changes > 0,
    /** Writes a batch of last-use times in one transaction. */
    touchMany(entries: [string, string][]): void {
      touchAll(entries);
    },
  };
}
