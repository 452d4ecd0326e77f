/**
 * `init --demo` (src/cli/serve/demo.ts): the first account gets the demo records (sandbox/fixtures-demo.ts) in its
 * default workspace, made by the API's operations, and init's output says what they are; on an initialised directory
 * it adds nothing and says --demo was not used.
 */
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { DEMO_WORKSPACE } from "../../src/sandbox/fixtures-demo.js";
import { cli, tempDir } from "../helpers/cli.js";

describe("init --demo", () => {
  it("adds a template, references, memories and contents in each status, and prints them", () => {
    const dir = tempDir();
    const run = cli(["init", "--data-dir", dir, "--demo"], { input: "pw-from-stdin-1\n" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("demo: 1 template, 2 reference materials, 2 memories, contents (");
    const json = cli(["init", "--json", "--data-dir", tempDir(), "--demo"], { input: "pw-from-stdin-1\n" }).json();
    expect(json.demo).toMatchObject({ templates: 1, references: 2, memories: 2 });

    const db = openDb(dir);
    try {
      migrate(db);
      const store = createStore(db);
      const ws = store.workspaces.listByAccount(1)[0];
      const statuses = db
        .prepare("SELECT title, status FROM contents WHERE workspace_id = ? ORDER BY id")
        .all(ws.id) as { title: string; status: string }[];
      expect(statuses.map((c) => c.status)).toEqual(["draft", "generated", "finalized", "published"]);
      expect(statuses).toHaveLength(DEMO_WORKSPACE.contents?.length ?? 0);
      const count = (table: string) =>
        (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`).get(ws.id) as { n: number }).n;
      expect(count("memories")).toBe(2);
      expect(count("reference_materials")).toBe(2);
      const own = db.prepare("SELECT name FROM templates WHERE account_id = 1").all() as { name: string }[];
      expect(own.map((t) => t.name)).toEqual(["Customer story"]);
    } finally {
      db.close();
    }
  });

  it("adds nothing to an initialised directory, and says so", () => {
    const dir = tempDir();
    cli(["init", "--data-dir", dir], { input: "pw-from-stdin-1\n" });
    const again = cli(["init", "--data-dir", dir, "--demo"]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/note: --demo .*not used/);
    const db = openDb(dir);
    try {
      expect((db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n).toBe(0);
    } finally {
      db.close();
    }
  });
});
