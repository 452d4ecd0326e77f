/**
 * The administrator's deletions (cli/admin/workspaces.ts, users.ts, accounts.ts): what each refuses, what it asks
 * before, and what it says it deleted.
 */
import { describe, expect, it } from "vitest";
import { issueKey } from "../../src/domain/admin.js";
import { SessionTokens } from "../../src/domain/sessions.js";
import { cli, initDir, withDb } from "../helpers/cli.js";

describe("workspaces delete", () => {
  it("refuses the account's only workspace and its default one, with the command that lifts each", () => {
    const { d } = initDir();
    const only = cli(["workspaces", "list", "--account", "1", "--json", ...d]).json()[0].id as string;
    const last = cli(["workspaces", "delete", only, "--yes", ...d]);
    expect(last.status).toBe(1);
    expect(last.stderr).toBe(
      `error: workspace ${only} is the only workspace of account 1, which keeps one: create another first, or ` +
        "delete the account (accounts delete 1)\n",
    );
    cli(["workspaces", "create", "--account", "1", "--name", "Blog", ...d]);
    const dflt = cli(["workspaces", "delete", only, "--yes", ...d]);
    expect(dflt.status).toBe(1);
    expect(dflt.stderr).toMatch(/is the default of account 1: make another the default first/);
    expect(cli(["workspaces", "list", "--account", "1", "--json", ...d]).json()).toHaveLength(2);
  });

  it("deletes an empty workspace unasked, and one with records only with --yes where no terminal can answer", async () => {
    const { dir, d } = initDir();
    const empty = cli(["workspaces", "create", "--account", "1", "--name", "Empty", "--json", ...d]).json().id;
    const gone = cli(["workspaces", "delete", empty, ...d]);
    expect(gone.status).toBe(0);
    expect(gone.stdout).toBe(
      `deleted workspace ${empty} with 0 content(s), 0 memory(ies), 0 reference material(s), 0 conversion(s) and ` +
        "0 API key(s) bound to it\n",
    );
    const full = cli(["workspaces", "create", "--account", "1", "--name", "Full", "--json", ...d]).json().id;
    const key = cli(["keys", "create", "--account", "1", "--name", "b", "--workspace", full, "--json", ...d]).json();
    await withDb(dir, (store) =>
      store.memories.create({
        accountId: 1,
        workspaceId: full,
        kind: "voice",
        title: "t",
        content: "c",
        now: new Date().toISOString(),
      }),
    );
    const unasked = cli(["workspaces", "delete", full, "--json", ...d]);
    expect(unasked.status).toBe(2);
    expect(unasked.stderr).toBe(
      `error: delete workspace ${full} "Full" with 0 content(s), 1 memory(ies), 0 reference material(s), ` +
        "0 conversion(s) and 1 API key(s) bound to it: standard input is not a terminal to ask; give --yes to delete\n",
    );
    expect(unasked.stdout).toBe("");
    expect(cli(["workspaces", "list", "--account", "1", "--json", ...d]).json()).toHaveLength(2);
    const yes = cli(["workspaces", "delete", full, "--yes", "--json", ...d]);
    expect(yes.status).toBe(0);
    expect(yes.json().removed).toEqual({
      contents: 0,
      memories: 1,
      reference_materials: 0,
      conversions: 0,
      api_keys: 1,
    });
    const keys = cli(["keys", "list", "--account", "1", "--json", ...d]).json() as { id: string }[];
    expect(keys.map((k) => k.id)).not.toContain(key.id);
  });
});

describe("users delete", () => {
  it("refuses an account's last admin without --force, saying why; a deleted user's sessions end, their keys stay", async () => {
    const { dir, d } = initDir();
    const last = cli(["users", "delete", "admin@localhost", ...d]);
    expect(last.status).toBe(1);
    expect(last.stderr).toBe(
      "error: user 1 is the last admin of account 1: nobody would manage its users, keys and workspaces from the " +
        "web: give --force to delete them anyway\n",
    );
    const member = cli(["users", "create", "--account", "1", "--email", "m@x.test", "--json", ...d]).json();
    // A key the member issued from their session, and a session of theirs.
    const { keyId, token } = await withDb(dir, async (store) => ({
      keyId: issueKey(store, "test", { accountId: 1, name: "theirs", createdByUserId: member.id }).row.id,
      token: (await new SessionTokens(store, Date.now).issue(store.users.byId(member.id)!)).token,
    }));
    const gone = cli(["users", "delete", "m@x.test", "--json", ...d]);
    expect(gone.status, gone.stderr).toBe(0);
    expect(gone.json()).toMatchObject({ id: member.id, deleted: true, keys_kept: 1 });
    await withDb(dir, async (store) => {
      expect(await new SessionTokens(store, Date.now).verify(token)).toBeNull();
      expect(store.apiKeys.byId(keyId)).toMatchObject({ created_by_user_id: null, revoked_at: null });
    });
    // Ids are not given again: a new user does not take the deleted one's (and with it their old sessions).
    const next = cli(["users", "create", "--account", "1", "--email", "n@x.test", "--json", ...d]).json();
    expect(next.id).toBeGreaterThan(member.id);
    expect(cli(["users", "delete", "1", "--force", ...d]).status).toBe(0);
  });
});

describe("accounts delete", () => {
  it("refuses the operator account, and one with active keys unless --force, then deletes it with everything in it", async () => {
    const { dir, d } = initDir();
    const operator = cli(["accounts", "delete", "1", "--yes", "--force", ...d]);
    expect(operator.status).toBe(1);
    expect(operator.stderr).toMatch(/account 1 is the operator account, whose admins administer this server/);
    const id = cli(["accounts", "create", "--name", "Two", "--plan", "agency", "--json", ...d]).json().id as number;
    const user = cli(["users", "create", "--account", String(id), "--email", "two@x.test", "--json", ...d]).json();
    const key = cli(["keys", "create", "--account", String(id), "--name", "k", "--json", ...d]).json();
    const withKeys = cli(["accounts", "delete", String(id), "--yes", ...d]);
    expect(withKeys.status).toBe(1);
    expect(withKeys.stderr).toBe(
      `error: account ${id} has 1 active API key(s): revoke them first (keys revoke ID), or give --force to revoke ` +
        "them with the account\n",
    );
    const unasked = cli(["accounts", "delete", String(id), "--force", ...d]);
    expect(unasked.status).toBe(2);
    expect(unasked.stderr).toMatch(/give --yes to delete\n$/);
    const gone = cli(["accounts", "delete", String(id), "--force", "--yes", "--json", ...d]);
    expect(gone.status, gone.stderr).toBe(0);
    expect(gone.json()).toEqual({ id, deleted: true, workspaces: 1, users: 1, api_keys_revoked: 1 });
    await withDb(dir, (store) => {
      expect(store.accounts.byId(id)).toBeUndefined();
      expect(store.users.byId(user.id)).toBeUndefined();
      expect(store.apiKeys.byId(key.id)).toBeUndefined();
      expect(store.workspaces.listByAccount(id)).toEqual([]);
      // The log says which key stopped, and that the account went.
      const actions = store.misc.auditPage(id, Number.MAX_SAFE_INTEGER, 10).map((e) => e.action);
      expect(actions.slice(0, 2)).toEqual(["account.delete", "api_key.revoke"]);
    });
    // A later account does not take its id.
    expect(cli(["accounts", "create", "--name", "Three", "--plan", "pro", "--json", ...d]).json().id).toBe(id + 1);
    expect(cli(["accounts", "delete", String(id), "--yes", ...d]).status).toBe(1);
  });
});
