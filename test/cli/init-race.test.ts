/**
 * `init` and a first `serve` on one empty folder: each asks whether the database has an account, then hashes a
 * password (tens of ms), then writes. The question is asked again under the write lock, so that only one makes the
 * first account.
 */
import { describe, expect, it } from "vitest";
import { initDataDir, initStore } from "../../src/cli/setup.js";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { tempDir } from "../helpers/cli.js";

describe("the first account", () => {
  it("is made once when another process made it after this one looked", () => {
    const dir = tempDir();
    const db = openDb(dir);
    migrate(db);
    const store = createStore(db);
    // This connection looked first and saw no account; the other process's init then committed its own.
    const looked = store.accounts.list();
    expect(looked).toEqual([]);
    store.accounts.list = () => looked;
    const other = initDataDir(dir, { accountName: "Theirs", plan: "business", adminEmail: "them@example.com" });
    expect(other.created).toBe(true);
    const mine = initStore(store, { accountName: "Mine", plan: "business", adminEmail: "me@example.com" });
    expect(mine).toEqual({ created: false });
    expect(db.prepare("SELECT name FROM accounts").pluck().all()).toEqual(["Theirs"]);
    db.close();
  });
});
