/** Queries on API keys (only hashes are stored). */
import type { Db } from "./open.js";

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
}

/** Prepared key statements of one connection. */
export function apiKeyQueries(db: Db) {
  const byId = db.prepare<[string], ApiKeyRow>("SELECT * FROM api_keys WHERE id = ?");
  const byHash = db.prepare<[string], ApiKeyRow>("SELECT * FROM api_keys WHERE key_hash = ?");
  const all = db.prepare<[], ApiKeyRow>("SELECT * FROM api_keys ORDER BY created_at, id");
  const byAccount = db.prepare<[number], ApiKeyRow>(
    "SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id",
  );
  const insert = db.prepare(
    `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, scopes, workspace_id, expires_at, created_at)
     VALUES (@id, @accountId, @name, @keyHash, @displayPrefix, @scopes, @workspaceId, @expiresAt, @createdAt)`,
  );
  const revoke = db.prepare<[string, string]>("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL");
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
    create(k: NewKey): ApiKeyRow {
      insert.run({ ...k, scopes: JSON.stringify(k.scopes) });
      return byId.get(k.id)!;
    },
    revoke: (id: string, now: string) => revoke.run(now, id).changes > 0,
    rename: (id: string, name: string) => rename.run(name, id).changes > 0,
    /** Writes a batch of last-use times in one transaction. */
    touchMany(entries: [string, string][]): void {
      touchAll(entries);
    },
  };
}
