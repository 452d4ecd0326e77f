/**
 * The administrator's deletions (cli/admin/workspaces.ts, users.ts, accounts.ts): what each refuses, what it asks
 * before, and what it says it deleted.
 */
import { describe, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { createStore, type Store } from "../../src/db/store.js";
import { cli, initDir } from "../helpers/cli.js";

/** Runs `fn` on the data directory's store, as the server would have written. */
function withDb<T>(dir: string, fn: (store: Store) => T): T {
  const db = openDb(dir);
  try {
    return fn(createStore(db));
  } finally {
    db.close();
  }
}

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

  it("deletes an empty workspace unasked, and one with records only with --yes where no terminal can answer", () => {
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
    withDb(dir, (store) =>
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
