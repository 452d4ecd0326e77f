/**
 * A data directory this user cannot write (read-only media, another owner's folder): the list commands open the
 * database read-only and work; the commands that write fail with one line naming the directory and why. Root writes
 * anything, so as root the commands run as another user (nobody); otherwise the folder is made 0555.
 */
import { chmodSync, chownSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { asUser, cli, initDir, startServe, tempDir } from "../helpers/cli.js";

const root = process.getuid?.() === 0;
const NOBODY = 65534;
/** Runs the CLI as a user who cannot write `dir`. */
const reader = (args: string[]) => (root ? asUser(NOBODY, args) : cli(args));
const made: string[] = [];
afterEach(() => {
  // Writable again, so that the test files' folders can be removed.
  for (const dir of made.splice(0)) chmodSync(dir, 0o700);
});

/** An initialised data directory, closed cleanly (no -wal, no -shm), that `reader` can read but not write. */
function readOnlyDir(options: { lockFile?: boolean } = {}) {
  const { dir, d } = initDir();
  expect(cli(["keys", "create", "--account", "1", "--name", "k", ...d]).status).toBe(0);
  if (options.lockFile === false) rmSync(path.join(dir, "maintenance.lock"));
  expect(readdirSync(dir).filter((n) => n.endsWith("-wal") || n.endsWith("-shm"))).toEqual([]);
  for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o444);
  chmodSync(dir, 0o555);
  made.push(dir);
  return { dir, d };
}

describe("a data directory this user cannot write", () => {
  it.each([
    ["with", true],
    ["without", false],
  ])("the list commands read it, %s a maintenance lock file, and leave nothing in it", (_with, lockFile) => {
    const { dir, d } = readOnlyDir({ lockFile });
    const before = readdirSync(dir).sort();
    const expected = {
      accounts: [{ id: 1, name: "Default account" }],
      users: [{ email: "admin@localhost" }],
      workspaces: [{ name: "Default", is_default: true }],
      keys: [{ name: "k", account_id: 1 }],
    };
    for (const [group, rows] of Object.entries(expected)) {
      const run = reader([group, "list", "--json", ...d]);
      expect(run.status, `${group}: ${run.stderr}`).toBe(0);
      expect(run.stderr).toBe("");
      expect(JSON.parse(run.stdout)).toMatchObject(rows);
    }
    // The table output too.
    const table = reader(["keys", "list", ...d]);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^id\s+acct\s+name\s+scope\s+workspace\s+status/);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it.each([
    ["with", true],
    ["without", false],
  ])("backup copies it, %s a maintenance lock file, to --out and leaves nothing in it", (_with, lockFile) => {
    const { dir, d } = readOnlyDir({ lockFile });
    const before = readdirSync(dir).sort();
    // A folder of the reader's own for the copy.
    const outDir = tempDir();
    if (root) chownSync(outDir, NOBODY, NOBODY);
    const out = path.join(outDir, "copy.db");
    const run = reader(["backup", "--out", out, ...d]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`backup written: ${out}`);
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readdirSync(outDir)).toEqual(["copy.db"]);
    // The copy is the database: its key, and sound.
    const copy = new Database(out, { readonly: true });
    try {
      expect(copy.prepare("SELECT name FROM api_keys").all()).toEqual([{ name: "k" }]);
      expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      copy.close();
    }
  });

  it.runIf(root)("backup copies it while its owner's server runs, reading the server's -wal and -shm", async () => {
    const { dir, d } = initDir();
    expect(cli(["keys", "create", "--account", "1", "--name", "k", ...d]).status).toBe(0);
    chmodSync(dir, 0o755);
    for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o644);
    const server = await startServe(dir);
    try {
      // A write while the server runs, in its WAL until a checkpoint copies it.
      expect(cli(["keys", "create", "--account", "1", "--name", "k2", ...d]).status).toBe(0);
      for (const suffix of ["-wal", "-shm"]) chmodSync(path.join(dir, `content-service.db${suffix}`), 0o644);
      const before = readdirSync(dir).sort();
      const outDir = tempDir();
      chownSync(outDir, NOBODY, NOBODY);
      const out = path.join(outDir, "copy.db");
      const run = asUser(NOBODY, ["backup", "--out", out, ...d]);
      expect(run.status, run.stderr).toBe(0);
      expect(readdirSync(dir).sort()).toEqual(before);
      const copy = new Database(out, { readonly: true });
      try {
        expect(copy.prepare("SELECT name FROM api_keys ORDER BY name").all()).toEqual([{ name: "k" }, { name: "k2" }]);
        expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
      } finally {
        copy.close();
      }
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  it("with a -journal beside the database (a rollback-mode write under way or cut short) the file is not read as immutable", () => {
    const { dir, d } = initDir();
    writeFileSync(path.join(dir, "content-service.db-journal"), "");
    for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o444);
    chmodSync(dir, 0o555);
    made.push(dir);
    const run = reader(["keys", "list", "--json", ...d]);
    // Read without its journal, a file being changed could be taken for a whole one, or for a damaged one.
    expect(run.status, run.stdout).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^error: cannot open \S+content-service\.db: /);
    expect(run.stderr).not.toMatch(/damaged|restore/);
  });

  it("a file read as immutable that seems damaged is said to be maybe changing, to run again, not to restore", () => {
    const { dir, d } = readOnlyDir();
    const file = path.join(dir, "content-service.db");
    chmodSync(file, 0o644);
    // Page 1 (the schema) whole, the rest as a write under way could leave it to a reader without locks.
    const bytes = readFileSync(file);
    bytes.fill(0xff, 4096);
    writeFileSync(file, bytes);
    chmodSync(file, 0o444);
    const run = reader(["keys", "list", "--json", ...d]);
    expect(run.status, run.stdout).toBe(1);
    expect(run.stderr).toMatch(/may have been changing .*: run this again\n$/);
    expect(run.stderr).not.toMatch(/restore/);
  });

  it("the commands that write fail with one line naming the directory and the cause, changing nothing", () => {
    const { dir, d } = readOnlyDir();
    for (const args of [
      ["keys", "create", "--account", "1", "--name", "k2"],
      ["accounts", "create", "--name", "x", "--plan", "pro"],
      ["users", "create", "--account", "1", "--email", "u@x.test"],
      ["workspaces", "create", "--account", "1", "--name", "w"],
    ]) {
      const run = reader([...args, ...d]);
      expect(run.status, args.join(" ")).toBe(1);
      const uid = root ? String(NOBODY) : "\\d+";
      expect(run.stderr.trim().split("\n").at(-1)).toMatch(
        new RegExp(
          `^error: cannot write to ${dir}: this user \\(uid ${uid}\\) cannot write ${dir} \\(owner uid \\d+, mode 555\\), ` +
            `${dir}/content-service.db \\(owner uid \\d+, mode 444\\) \\(EACCES\\): run as their owner or give them ` +
            "this user; the list commands work without writing$",
        ),
      );
    }
    chmodSync(dir, 0o700);
    expect(cli(["keys", "list", "--json", ...d]).json()).toHaveLength(1);
  });

  it("one file in the way is 'it', with 'its owner' (the database alone, the folder writable)", () => {
    const { dir, d } = readOnlyDir();
    chmodSync(dir, 0o777);
    const run = reader(["keys", "create", "--account", "1", "--name", "k2", ...d]);
    expect(run.status, run.stderr).toBe(1);
    const uid = root ? String(NOBODY) : String(process.getuid?.());
    const owner = root ? 0 : process.getuid?.();
    expect(run.stderr).toBe(
      `error: cannot write to ${dir}: this user (uid ${uid}) cannot write ${dir}/content-service.db (owner uid ` +
        `${owner}, mode 444) (EACCES): run as its owner or give it this user; the list commands work without writing\n`,
    );
  });
});

describe("a data directory this user can write", () => {
  const walOrShm = (dir: string) => readdirSync(dir).filter((n) => n.endsWith("-wal") || n.endsWith("-shm"));

  it("the list commands open the database as the writing ones do, leaving no -wal or -shm behind", () => {
    const { dir, d } = initDir();
    expect(walOrShm(dir)).toEqual([]);
    const before = readdirSync(dir).sort();
    for (const group of ["accounts", "users", "workspaces", "keys"]) {
      const run = cli([group, "list", "--json", ...d]);
      expect(run.status, `${group}: ${run.stderr}`).toBe(0);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it.runIf(root)(
    "another user who can write the folder but only read the database lists it without creating a maintenance lock file and leaves no -wal or -shm",
    () => {
      const { dir, d } = initDir();
      rmSync(path.join(dir, "maintenance.lock"));
      for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o644);
      chmodSync(dir, 0o777);
      made.push(dir);
      const run = asUser(NOBODY, ["keys", "list", "--json", ...d]);
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([]);
      expect(walOrShm(dir)).toEqual([]);
      // No lock file of this user's: owned by them, it could keep the database's owner from running a restore.
      expect(readdirSync(dir)).not.toContain("maintenance.lock");
    },
  );
});
