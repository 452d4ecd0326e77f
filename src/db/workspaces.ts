/** Queries on workspaces. */
import { prefixedId } from "../runtime/ids.js";
import type { SqlConnection } from "./connection.js";

/** One row of workspaces; `is_default` is 1 for the account's default workspace, else 0. */
export interface WorkspaceRow {
  id: string;
  account_id: number;
  name: string;
  is_default: number;
  created_at: string;
}

/** The records a workspace holds, and the keys bound to it. */
export interface WorkspaceHoldings {
  contents: number;
  memories: number;
  reference_materials: number;
  conversions: number;
  api_keys: number;
}

/** A page of an account's workspaces in id order, the cursor's (workspaces_page; test/db/list-plans.test.ts). */
export const WORKSPACE_PAGE_SQL = "SELECT * FROM workspaces WHERE account_id = ? AND id > ? ORDER BY id LIMIT ?";

/** Prepared workspace statements of one connection. */
export function workspaceQueries(db: SqlConnection) {
  const byId = db.prepare<[string], WorkspaceRow>("SELECT * FROM workspaces WHERE id = ?");
  const byAccount = db.prepare<[number], WorkspaceRow>(
    "SELECT * FROM workspaces WHERE account_id = ? ORDER BY created_at, id",
  );
  const page = db.prepare<[number, string, number], WorkspaceRow>(WORKSPACE_PAGE_SQL);
  const all = db.prepare<[], WorkspaceRow>("SELECT * FROM workspaces ORDER BY account_id, id");
  const defaultOf = db.prepare<[number], WorkspaceRow>(
    "SELECT * FROM workspaces WHERE account_id = ? AND is_default = 1",
  );
  const countOf = db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM workspaces WHERE account_id = ?");
  const holdingsOf = db.prepare<[{ id: string }], WorkspaceHoldings>(
    `SELECT (SELECT count(*) FROM contents WHERE workspace_id = $id) AS contents,
            (SELECT count(*) FROM memories WHERE workspace_id = $id) AS memories,
            (SELECT count(*) FROM reference_materials WHERE workspace_id = $id) AS reference_materials,
            (SELECT count(*) FROM conversions WHERE workspace_id = $id) AS conversions,
            (SELECT count(*) FROM api_keys WHERE workspace_id = $id) AS api_keys`,
  );
  const insert = db.prepare<[string, number, string, number, string]>(
    "INSERT INTO workspaces (id, account_id, name, is_default, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const clearDefault = db.prepare<[number]>("UPDATE workspaces SET is_default = 0 WHERE account_id = ?");
  const makeDefault = db.prepare<[string]>("UPDATE workspaces SET is_default = 1 WHERE id = ?");
  const rename = db.prepare<[string, string]>("UPDATE workspaces SET name = ? WHERE id = ?");
  const remove = db.prepare<[string]>("DELETE FROM workspaces WHERE id = ?");

  const setDefault = db.transaction((accountId: number, id: string) => {
    clearDefault.run(accountId);
    makeDefault.run(id);
  });

  const create = db.transaction((accountId: number, name: string, isDefault: boolean, now: string): WorkspaceRow => {
    const id = prefixedId("ws");
    // The first workspace of an account is its default.
    const makeIt = isDefault || !defaultOf.get(accountId);
    if (makeIt) clearDefault.run(accountId);
    insert.run(id, accountId, name, makeIt ? 1 : 0, now);
    return byId.get(id)!;
  });

  return {
    byId: (id: string) => byId.get(id),
    listByAccount: (accountId: number) => byAccount.all(accountId),
    page: (accountId: number, after: string, limit: number) => page.all(accountId, after, limit),
    listAll: () => all.all(),
    defaultOf: (accountId: number) => defaultOf.get(accountId),
    count: (accountId: number) => countOf.get(accountId)!.n,
    /** What a workspace's deletion takes with it (the cascade), counted. */
    holdings: (id: string) => holdingsOf.get({ id })!,
    /** Adds a workspace in one transaction; the first of an account, or one made `isDefault`, is its default. */
    create: (accountId: number, name: string, isDefault: boolean, now: string): WorkspaceRow =>
      create(accountId, name, isDefault, now),
    setDefault: (accountId: number, id: string) => setDefault(accountId, id),
    rename: (id: string, name: string) => rename.run(name, id).changes > 0,
    remove: (id: string) => remove.run(id).changes > 0,
  };
}
