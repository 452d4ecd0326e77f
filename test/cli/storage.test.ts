/** `storage usage` and `storage recount` (cli/admin/storage.ts): the quota and the count, and the count made right. */
import { describe, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { cli, tempDir } from "../helpers/cli.js";

describe("storage", () => {
  it("lists each account's quota and use, and recounts a counter that went wrong", () => {
    const dir = tempDir();
    const init = cli(["init", "--data-dir", dir, "--plan", "agency", "--admin-email", "a@x.test"], {
      input: "pw-from-stdin-1\n",
    });
    expect(init.status).toBe(0);
    expect(cli(["storage", "usage", "--json", "--data-dir", dir]).json()).toEqual([
      { account_id: 1, limit_bytes: 50 * 1024 ** 3, used_bytes: 0 },
    ]);
    const db = openDb(dir);
    db.prepare("UPDATE storage_usage SET used_bytes = 12345").run();
    db.close();
    expect(cli(["storage", "usage", "--json", "--data-dir", dir]).json()[0].used_bytes).toBe(12345);
    expect(cli(["storage", "recount", "--json", "--data-dir", dir]).json()).toEqual([{ account_id: 1, used_bytes: 0 }]);
    expect(cli(["storage", "usage", "--account", "2", "--data-dir", dir]).status).not.toBe(0);
  });
});
