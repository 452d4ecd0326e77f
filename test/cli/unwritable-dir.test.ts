/**
 * A data directory this user cannot write, for the commands that must write it (serve, restore, init, migrate): one
 * line naming the file in the way and why, read-only media (EROFS) or another owner's file (EACCES, with its owner and
 * mode), not a bare "permission denied"; and the list commands still read a read-only mount (docs/cli.md, and the
 * locks in docs/operations.md). Read-only media are a real read-only mount: made only where this process can mount
 * (root, and mount works: CI runs as root), skipped elsewhere; every mount is undone in `finally`.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { asUser, cli, initDir, tempDir } from "../helpers/cli.js";

const root = process.getuid?.() === 0;
const NOBODY = 65534;

/** Runs mount(8) or umount(8); true when it worked. */
function run(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
}

/**
 * Whether this process can make the read-only mounts the tests use (a tmpfs, and a bind mount remounted read-only):
 * each tried once on empty temporary folders, and undone. A mount that cannot be undone fails here, loudly, rather
 * than being left behind.
 */
const canMount = (() => {
  if (!root) return false;
  const src = mkdtempSync(path.join(os.tmpdir(), "cs-mount-probe-"));
  const dir = mkdtempSync(path.join(os.tmpdir(), "cs-mount-probe-"));
  const undo = () => {
    if (!run("umount", [dir])) throw new Error(`the mount probe could not unmount ${dir}`);
  };
  try {
    if (!run("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir])) return false;
    undo();
    if (!run("mount", ["--bind", src, dir])) return false;
    const ro = run("mount", ["-o", "remount,bind,ro", dir]);
    undo();
    return ro;
  } finally {
    rmdirSync(dir);
    rmdirSync(src);
  }
})();
const NO_MOUNT = "needs a read-only mount: run as root where mount(8) works (CI does)";

/** Runs `fn` with `src` seen read-only at a new empty folder (a bind mount remounted ro), unmounted afterwards. */
function readOnlyView<T>(src: string, fn: (ro: string) => T): T {
  const ro = tempDir("cs-ro-");
  expect(run("mount", ["--bind", src, ro]), "mount --bind").toBe(true);
  try {
    expect(run("mount", ["-o", "remount,bind,ro", ro]), "remount ro").toBe(true);
    return fn(ro);
  } finally {
    expect(run("umount", [ro]), `umount ${ro}`).toBe(true);
  }
}

/** Runs `fn` with an empty read-only file system (tmpfs) mounted at a new empty folder, unmounted afterwards. */
function emptyReadOnly<T>(fn: (ro: string) => T): T {
  const ro = tempDir("cs-ro-");
  expect(run("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", ro]), "mount tmpfs").toBe(true);
  try {
    return fn(ro);
  } finally {
    expect(run("umount", [ro]), `umount ${ro}`).toBe(true);
  }
}

/** The one error line of a run. */
function errorLine(r: { status: number | null; stderr: string }): string {
  expect(r.status, r.stderr).toBe(1);
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("error: "));
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0];
}

/** A backup to restore from, outside the data directory. */
function backupOf(dir: string): string {
  const file = path.join(tempDir(), "backup.db");
  copyFileSync(path.join(dir, "content-service.db"), file);
  return file;
}

describe("a data directory on read-only media", () => {
  it.skipIf(!canMount)(`serve and restore name the lock file and the read-only file system (${NO_MOUNT})`, () => {
    const { dir } = initDir();
    const from = backupOf(dir);
    expect(readdirSync(dir)).not.toContain("server.lock");
    const erofs = (f: string) => `${f} is on a read-only file system (EROFS)`;
    readOnlyView(dir, (ro) => {
      const lock = path.join(ro, "server.lock");
      // No server.lock yet: it cannot be created in the folder.
      for (const args of [
        ["serve", "--port", "0"],
        ["restore", "--from", from],
      ])
        expect(errorLine(cli([...args, "--data-dir", ro])), args[0]).toBe(`error: cannot open ${lock}: ${erofs(ro)}`);
    });
    // A server.lock left by an earlier start: opened (read-only), it cannot be written.
    writeFileSync(path.join(dir, "server.lock"), "");
    readOnlyView(dir, (ro) => {
      const lock = path.join(ro, "server.lock");
      for (const args of [
        ["serve", "--port", "0"],
        ["restore", "--from", from],
      ])
        expect(errorLine(cli([...args, "--data-dir", ro])), args[0]).toBe(`error: cannot lock ${lock}: ${erofs("it")}`);
    });
  });

  it.skipIf(!canMount)(`init and migrate name the read-only file system; keys list reads it (${NO_MOUNT})`, () => {
    const { dir, d } = initDir();
    expect(cli(["keys", "create", "--account", "1", "--name", "k", ...d]).status).toBe(0);
    rmSync(path.join(dir, "maintenance.lock"));
    readOnlyView(dir, (ro) => {
      for (const args of [["init"], ["migrate"]])
        expect(errorLine(cli([...args, "--data-dir", ro])), args[0]).toBe(
          `error: cannot open ${ro}/maintenance.lock: ${ro} is on a read-only file system (EROFS)`,
        );
    });
    // With a maintenance lock file there (taken shared, read-only), migrate reaches the database itself.
    writeFileSync(path.join(dir, "maintenance.lock"), "");
    readOnlyView(dir, (ro) => {
      const before = readdirSync(ro).sort();
      expect(errorLine(cli(["migrate", "--data-dir", ro]))).toBe(
        `error: cannot open ${ro}/content-service.db: ${ro} is on a read-only file system (EROFS)`,
      );
      const list = cli(["keys", "list", "--json", "--data-dir", ro]);
      expect(list.status, list.stderr).toBe(0);
      expect(list.json()).toMatchObject([{ name: "k" }]);
      expect(readdirSync(ro).sort()).toEqual(before);
    });
  });
  it.skipIf(!canMount)(`a data directory to be made there names the folder and EROFS, not ENOENT (${NO_MOUNT})`, () => {
    emptyReadOnly((ro) => {
      // The first folder that cannot be made, as mkdir(1) names it; Node's recursive mkdir said "no such file".
      for (const [args, dir] of [
        [["init"], "x"],
        [["init"], "x/y"],
        [["serve", "--port", "0"], "x"],
        [["restore", "--from", path.join(tempDir(), "none.db")], "x"],
      ] as const) {
        if (args[0] === "restore") writeFileSync(args[2], "");
        expect(errorLine(cli([...args, "--data-dir", path.join(ro, dir)])), `${args[0]} ${dir}`).toBe(
          `error: ${path.join(ro, "x")}: read-only file system (mkdir)`,
        );
      }
    });
  });
});

describe("another owner's data directory", () => {
  it.runIf(root)(
    "serve, restore, init and migrate name the lock file's folder or the lock file, with owner and mode",
    () => {
      const { dir } = initDir();
      const from = backupOf(dir);
      chmodSync(path.dirname(from), 0o755);
      rmSync(path.join(dir, "maintenance.lock"));
      chmodSync(dir, 0o755);
      const denied = (f: string, mode: string) =>
        `this user (uid ${NOBODY}) cannot write ${f} (owner uid 0, mode ${mode}) (EACCES): run as its owner or give it ` +
        "this user";
      for (const [args, lock] of [
        [["serve", "--port", "0"], "server.lock"],
        [["restore", "--from", from], "server.lock"],
        [["init"], "maintenance.lock"],
        [["migrate"], "maintenance.lock"],
      ] as const)
        expect(errorLine(asUser(NOBODY, [...args, "--data-dir", dir])), args[0]).toBe(
          `error: cannot open ${path.join(dir, lock)}: ${denied(dir, "755")}`,
        );
      // With the maintenance lock file there (the owner's, readable: taken shared), migrate reaches the database.
      writeFileSync(path.join(dir, "maintenance.lock"), "", { mode: 0o644 });
      const db = path.join(dir, "content-service.db");
      expect(errorLine(asUser(NOBODY, ["migrate", "--data-dir", dir]))).toBe(
        `error: cannot open ${db}: this user (uid ${NOBODY}) cannot write ${dir} (owner uid 0, mode 755), ${db} ` +
          "(owner uid 0, mode 600) (EACCES): run as their owner or give them this user",
      );
      // A lock file of the owner's that this user cannot even read: the line names it once, and calls it "it" after.
      const lock = path.join(dir, "server.lock");
      writeFileSync(lock, "", { mode: 0o600 });
      expect(errorLine(asUser(NOBODY, ["serve", "--port", "0", "--data-dir", dir]))).toBe(
        `error: cannot open ${lock}: ${denied("it", "600")}`,
      );
      // A folder this user cannot search.
      chmodSync(dir, 0o700);
      expect(errorLine(asUser(NOBODY, ["serve", "--port", "0", "--data-dir", dir]))).toBe(
        `error: cannot open ${lock}: ${denied(dir, "700")}`,
      );
    },
  );

  it.runIf(root)("another program's database read read-only (as immutable, through a URI) is named by its path", () => {
    // A space in the folder's name: the URI has it as %20, the line as the path.
    const dir = path.join(tempDir(), "data dir");
    mkdirSync(dir);
    const file = path.join(dir, "content-service.db");
    const db = new Database(file);
    db.exec("CREATE TABLE t (x)");
    db.close();
    chmodSync(file, 0o644);
    chmodSync(path.dirname(dir), 0o755);
    chmodSync(dir, 0o555);
    expect(errorLine(asUser(NOBODY, ["accounts", "list", "--data-dir", dir]))).toBe(
      `error: ${file} is not a content-service database (it has tables, e.g. "t", but no schema_migrations); ` +
        "refusing to use it: move it away or choose another --data-dir",
    );
  });
});
