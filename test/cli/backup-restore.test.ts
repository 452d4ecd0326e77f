import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import { UsageError } from "../../src/cli/errors.js";
import { acquireRestoreLock, holdCommandLock } from "../../src/cli/lock.js";
import { knownMigrations, migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { asUser, cli, initDir, startServe, tempDir } from "../helpers/cli.js";

// In-process runs of backupDatabase: `during.check` runs in the copy's check (after the copy, before it is put in
// place), `during.noHardLinks` makes link() fail as on a file system without hard links (vfat: EPERM).
const during = vi.hoisted(() => ({
  check: undefined as (() => void) | undefined,
  noHardLinks: false,
  // What link() fails with when noHardLinks is set.
  linkCode: "EPERM",
}));

// In-process runs of backupDatabase get a copy check that fails (see "deletes the partial copy").
vi.mock("../../src/db/backup-copy.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/db/backup-copy.js")>();
  return {
    ...real,
    checkCopy: (file: string, addonFile?: string) => {
      if (process.env.CS_TEST_FAIL_CHECK === "1") throw new Error("the backup failed its integrity check: forced");
      real.checkCopy(file, addonFile);
      during.check?.();
    },
  };
});

// Every fsyncFile of the in-process runs, with whether --out (`during.out`) was there then.
const synced = vi.hoisted(() => ({ out: "", calls: [] as [string, boolean][] }));
vi.mock("../../src/db/open.js", async (importOriginal) =>
  (await import("../helpers/fsync-spy.js")).recordingFsyncs(await importOriginal(), synced),
);

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const linkSync: typeof real.linkSync = (existing, made) => {
    if (during.noHardLinks)
      throw Object.assign(new Error(`${during.linkCode}: link refused`), { code: during.linkCode, syscall: "link" });
    return real.linkSync(existing, made);
  };
  return { ...real, default: { ...real, linkSync }, linkSync };
});

const accountNames = (d: string[]) =>
  cli(["accounts", "list", "--json", ...d])
    .json()
    .map((a: { name: string }) => a.name);

function integrity(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma("integrity_check", { simple: true });
  } finally {
    db.close();
  }
}

/**
 * A temporary folder with a FIFO and, where this user may make one (root), a null character device: never the real
 * /dev/null, which a run as root of the unfixed backup had replaced with a regular 0600 file.
 */
function specialFiles(): { tmp: string; nul: string | undefined; fifo: string } {
  const tmp = tempDir();
  const nul = path.join(tmp, "null");
  const fifo = path.join(tmp, "fifo");
  expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
  return { tmp, nul: spawnSync("mknod", [nul, "c", "1", "3"]).status === 0 ? nul : undefined, fifo };
}

describe("backup --out", () => {
  it("refuses the live database, its -wal/-shm/-journal (also through a symlink) with exit 2, leaving it whole", () => {
    const { dir, d } = initDir();
    const link = path.join(tempDir(), "link");
    symlinkSync(dir, link);
    for (const out of [
      path.join(dir, "content-service.db"),
      path.join(dir, "content-service.db-wal"),
      path.join(dir, "content-service.db-shm"),
      path.join(dir, "content-service.db-journal"),
      path.join(link, "content-service.db"),
    ]) {
      const run = cli(["backup", "--out", out, ...d]);
      expect(run.status, out).toBe(2);
      expect(run.stderr).toMatch(/^error: --out .* is the database of /);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(readdirSync(dir).filter((n) => n.includes(".partial"))).toEqual([]);
    expect(integrity(path.join(dir, "content-service.db"))).toBe("ok");
    expect(accountNames(d)).toEqual(["Default account"]);
  });

  it("refuses an existing directory up front with exit 2 and leaves no partial file", () => {
    const { d } = initDir();
    const out = tempDir();
    const run = cli(["backup", "--out", out, ...d]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/is a directory/);
    expect(readdirSync(path.dirname(out)).filter((n) => n.startsWith(`${path.basename(out)}.partial`))).toEqual([]);
  });

  it("keeps an existing file unless --force, and never replaces a database in use, even with --force", () => {
    const { d } = initDir();
    const other = initDir();
    const otherDb = path.join(other.dir, "content-service.db");
    // The other data directory's database, in use: its -wal beside it (a server or a command has it open).
    const holder = new Database(otherDb);
    holder.pragma("journal_mode = WAL");
    holder.exec("CREATE TABLE IF NOT EXISTS keep_me (x)");
    const before = accountNames(other.d);
    const refused = cli(["backup", "--out", otherDb, ...d]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `error: --out ${otherDb} exists: choose a new file, or pass --force to replace it`,
    );
    const forced = cli(["backup", "--out", otherDb, "--force", ...d]);
    expect(forced.status).toBe(1);
    expect(forced.stderr).toMatch(/-wal file beside it: it is a database in use/);
    holder.close();
    expect(accountNames(other.d)).toEqual(before);

    // A symbolic link whose file is missing is there too: the copy would replace the link.
    const dangling = path.join(tempDir(), "link.db");
    symlinkSync(path.join(tempDir(), "missing.db"), dangling);
    expect(cli(["backup", "--out", dangling, ...d]).status).toBe(2);

    const plain = path.join(tempDir(), "old.db");
    writeFileSync(plain, "old");
    expect(cli(["backup", "--out", plain, ...d]).status).toBe(2);
    const replaced = cli(["backup", "--out", plain, "--force", ...d]);
    expect(replaced.status).toBe(0);
    expect(integrity(plain)).toBe("ok");
  });

  it("refuses a device, a FIFO or a symbolic link at --out, even with --force, and leaves it as it was (exit 2)", () => {
    const { d } = initDir();
    const { tmp, nul, fifo } = specialFiles();
    const file = path.join(tmp, "old.db");
    writeFileSync(file, "old");
    const link = path.join(tmp, "link.db");
    symlinkSync(file, link);
    const stdoutLink = path.join(tmp, "stdout");
    symlinkSync("/dev/stdout", stdoutLink);
    for (const [out, kind] of [
      ...(nul ? ([[nul, "a character device"]] as const) : []),
      [fifo, "a FIFO"],
      [link, "a symbolic link"],
      [stdoutLink, "a symbolic link"],
    ] as const)
      for (const force of [[], ["--force"]]) {
        const run = cli(["backup", "--out", out, ...force, ...d]);
        expect({ status: run.status, stdout: run.stdout }, run.stderr).toEqual({ status: 2, stdout: "" });
        expect(run.stderr).toBe(
          `error: --out ${out} is ${kind}, not a file: a backup goes to a new file or replaces a file only\n`,
        );
      }
    if (nul) expect(lstatSync(nul).isCharacterDevice()).toBe(true);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("old");
    expect(readdirSync(tmp).sort()).toEqual(["fifo", "link.db", ...(nul ? ["null"] : []), "old.db", "stdout"]);
  });

  it("reports its progress on stderr and writes a sound copy", () => {
    const { dir, d } = initDir();
    const out = path.join(tempDir(), "b.db");
    const run = cli(["backup", "--out", out, ...d]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`backing up ${dir} to ${out}…`);
    expect(run.stdout).toContain(`backup written: ${out}`);
    expect(integrity(out)).toBe("ok");
  });

  it("writes the copy for its owner alone (0600), whatever the umask: it holds the database's secrets", () => {
    const { dir, d } = initDir();
    // Whatever the database's own mode (the copy is written, then opened again for its check).
    for (const mode of [0o644, 0o400]) {
      chmodSync(path.join(dir, "content-service.db"), mode);
      const out = path.join(tempDir(), `b-${mode.toString(8)}.db`);
      const run = cli(["backup", "--out", out, ...d]);
      expect(run.status, run.stderr).toBe(0);
      expect(statSync(out).mode & 0o777).toBe(0o600);
      expect(integrity(out)).toBe("ok");
    }
  });

  it("keeps a file that appears at --out during the copy unless --force: refused as up front (exit 2)", async () => {
    const { dir, d } = initDir();
    const { backupDatabase } = await import("../../src/cli/maintenance.js");
    const other = path.join(tempDir(), "other.db");
    expect(cli(["backup", "--out", other, ...d]).status).toBe(0);
    const link = path.join(tempDir(), "link");
    symlinkSync(path.join(path.dirname(link), "missing"), link);
    // What appears meanwhile: another process's file, a second backup started at the same moment, a FIFO, a link.
    const appears: [string, (out: string) => void, string][] = [
      ["a file", (out) => writeFileSync(out, "theirs"), "exists: choose a new file, or pass --force to replace it"],
      ["a backup", (out) => copyFileSync(other, out), "exists: choose a new file, or pass --force to replace it"],
      ["a FIFO", (out) => spawnSync("mkfifo", [out]), "is a FIFO, not a file"],
      ["a link", (out) => symlinkSync(link, out), "is a symbolic link, not a file"],
    ];
    for (const noHardLinks of [false, true])
      for (const [what, make, refusal] of appears) {
        const outDir = tempDir();
        const out = path.join(outDir, "b.db");
        const atOut = () => (lstatSync(out).isFile() ? readFileSync(out) : lstatSync(out).mode);
        during.noHardLinks = noHardLinks;
        during.check = () => make(out);
        let kept: unknown;
        try {
          expect(() => backupDatabase(dir, out), `${what}, hard links: ${!noHardLinks}`).toThrow(
            expect.objectContaining({ constructor: UsageError, message: expect.stringContaining(refusal) }),
          );
          kept = atOut();
          // The same refusal as up front, for the same file.
          expect(() => backupDatabase(dir, out)).toThrow(`--out ${out} ${refusal}`);
        } finally {
          during.check = undefined;
          during.noHardLinks = false;
        }
        expect(atOut()).toEqual(kept);
        if (what === "a file") expect(readFileSync(out, "utf8")).toBe("theirs");
        expect(readdirSync(outDir)).toEqual(["b.db"]);
      }
    // With --force a file that appeared is replaced, as one there before would be.
    const out = path.join(tempDir(), "b.db");
    during.check = () => writeFileSync(out, "theirs");
    try {
      backupDatabase(dir, out, () => {}, { replace: true });
    } finally {
      during.check = undefined;
    }
    expect(integrity(out)).toBe("ok");
    expect(readdirSync(path.dirname(out))).toEqual(["b.db"]);
  });

  it("writes a new file where the file system has no hard links (link fails with EPERM, or EACCES as on some CIFS and FUSE mounts)", async () => {
    const { dir } = initDir();
    const { backupDatabase } = await import("../../src/cli/maintenance.js");
    for (const code of ["EPERM", "EACCES", "EMLINK"]) {
      const out = path.join(tempDir(), "b.db");
      during.noHardLinks = true;
      during.linkCode = code;
      try {
        expect(backupDatabase(dir, out).file).toBe(out);
      } finally {
        during.noHardLinks = false;
        during.linkCode = "EPERM";
      }
      expect(statSync(out).mode & 0o777).toBe(0o600);
      expect(integrity(out)).toBe("ok");
      expect(readdirSync(path.dirname(out))).toEqual(["b.db"]);
    }
  });

  it("leaves alone a copy under way into the same file by a process of the same pid (another container's)", async () => {
    const { dir } = initDir();
    const { backupDatabase } = await import("../../src/cli/maintenance.js");
    const out = path.join(tempDir(), "b.db");
    // Its temporary file, by the name this process's pid alone would give.
    const theirs = `${out}.partial-${process.pid}`;
    writeFileSync(theirs, "a copy being written");
    expect(backupDatabase(dir, out).file).toBe(out);
    expect(readFileSync(theirs, "utf8")).toBe("a copy being written");
    expect(integrity(out)).toBe("ok");
  });

  it("fsyncs the copy before it has its name, and then its folder, with or without --force", async () => {
    const { dir } = initDir();
    const { backupDatabase } = await import("../../src/cli/maintenance.js");
    for (const [noHardLinks, replace] of [
      [false, false],
      [true, false],
      [false, true],
    ]) {
      const out = path.join(tempDir(), "b.db");
      if (replace) writeFileSync(out, "old");
      synced.out = out;
      synced.calls = [];
      during.noHardLinks = noHardLinks;
      try {
        backupDatabase(dir, out, () => {}, { replace });
      } finally {
        during.noHardLinks = false;
      }
      const ours = synced.calls.filter(([name]) => name.startsWith(path.dirname(out)));
      expect(ours).toEqual([
        [expect.stringMatching(/b\.db\.partial-/), replace],
        [path.dirname(out), true],
      ]);
      expect(integrity(out)).toBe("ok");
    }
  });

  // Another user than root, whom no permission stops.
  it.runIf(process.getuid?.() === 0)(
    "writes into a folder this user may write but not read (a drop folder, 0733): its fsync is skipped",
    () => {
      const { dir, d } = initDir();
      chmodSync(dir, 0o755);
      for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o644);
      const drop = tempDir();
      chmodSync(drop, 0o733);
      const out = path.join(drop, "b.db");
      const run = asUser(65534, ["backup", "--out", out, ...d]);
      expect(run.status, run.stderr).toBe(0);
      expect(statSync(out).uid).toBe(65534);
      expect(integrity(out)).toBe("ok");
      expect(readdirSync(drop)).toEqual(["b.db"]);
    },
  );

  it("deletes the partial copy when the copy fails its check", async () => {
    const { dir } = initDir();
    const { backupDatabase } = await import("../../src/cli/maintenance.js");
    const outDir = tempDir();
    process.env.CS_TEST_FAIL_CHECK = "1";
    try {
      expect(() => backupDatabase(dir, path.join(outDir, "b.db"))).toThrow(/integrity check/);
    } finally {
      delete process.env.CS_TEST_FAIL_CHECK;
    }
    expect(readdirSync(outDir)).toEqual([]);
  });
});

describe("restore --from", () => {
  it("restores an older backup and says it needs migrating, which migrate then does", () => {
    const { dir, d } = initDir();
    const older = path.join(tempDir(), "older.db");
    const db = openDb(path.dirname(older), { file: path.basename(older) });
    migrate(db, knownMigrations().slice(0, -1));
    db.close();
    const run = cli(["restore", "--from", older, ...d]);
    expect(run.status, run.stderr).toBe(0);
    // Until then, a command that reads records names the file and the command to run.
    const list = cli(["accounts", "list", ...d]);
    expect(list.status).toBe(1);
    expect(list.stderr).toBe(
      `error: ${path.join(dir, "content-service.db")} needs 1 migration(s): run \`content-service migrate --data-dir ${dir}\` first\n`,
    );
    expect(run.stderr).toContain(
      `note: the restored database needs 1 migration(s): \`serve\` applies them when it starts, or run \`content-service migrate --data-dir ${dir}\``,
    );
    expect(cli(["migrate", ...d]).status).toBe(0);
    expect(cli(["restore", "--from", older, "--json", ...d]).json().pending_migrations).toBe(1);
  });

  it("puts a backup back: later writes are gone and the database is sound", () => {
    const { dir, d } = initDir();
    expect(cli(["accounts", "create", "--name", "Before", "--plan", "pro", ...d]).status).toBe(0);
    const backup = path.join(tempDir(), "b.db");
    expect(cli(["backup", "--out", backup, ...d]).status).toBe(0);
    expect(cli(["accounts", "create", "--name", "After", "--plan", "pro", ...d]).status).toBe(0);
    expect(accountNames(d)).toEqual(["Default account", "Before", "After"]);
    const run = cli(["restore", "--from", backup, ...d]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`restoring ${dir} from ${backup}…`);
    expect(accountNames(d)).toEqual(["Default account", "Before"]);
    expect(integrity(path.join(dir, "content-service.db"))).toBe("ok");
    expect(readdirSync(dir).filter((n) => n.includes(".restore-"))).toEqual([]);
    // The restored database takes writes again.
    expect(cli(["accounts", "create", "--name", "Again", "--plan", "pro", ...d]).status).toBe(0);
  });

  it("keeps the replaced database's mode (and owner), and checkpoints it before its -wal goes", () => {
    const { dir, d } = initDir();
    const file = path.join(dir, "content-service.db");
    const backup = path.join(tempDir(), "b.db");
    expect(cli(["backup", "--out", backup, ...d]).status).toBe(0);
    chmodSync(file, 0o600);
    const before = statSync(file);
    const run = cli(["restore", "--from", backup, ...d]);
    expect(run.status, run.stderr).toBe(0);
    const after = statSync(file);
    expect([after.mode & 0o777, after.uid, after.gid]).toEqual([0o600, before.uid, before.gid]);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it("refuses what is not a sound content-service database of a migration set it knows (exit 1)", () => {
    const { d } = initDir();
    const scratch = tempDir();
    const text = path.join(scratch, "notes.txt");
    writeFileSync(text, "not a database, not at all, and long enough to have a header".repeat(4));
    const foreign = path.join(scratch, "foreign.db");
    const f = new Database(foreign);
    f.exec("CREATE TABLE t (x)");
    f.close();
    // A table of that name, of another shape: the backup's failure, never the data directory's database's.
    const odd = path.join(scratch, "odd.db");
    const o = new Database(odd);
    o.exec("CREATE TABLE schema_migrations (x)");
    o.close();
    const newer = path.join(scratch, "newer.db");
    expect(cli(["backup", "--out", newer, ...d]).status).toBe(0);
    const n = new Database(newer);
    n.prepare("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 'x', '2030-01-01T00:00:00Z')").run();
    n.close();
    for (const [from, message] of [
      [text, /not a SQLite database/],
      [foreign, /not a content-service database/],
      [odd, new RegExp(`\\nerror: ${odd} is not a content-service database this program can read: `)],
      [newer, /does not know.*refusing to restore/],
      [path.join(scratch, "missing.db"), /no file/],
    ] as const) {
      const run = cli(["restore", "--from", from, ...d]);
      expect(run.status, from).toBe(1);
      expect(run.stderr).toMatch(message);
    }
    expect(accountNames(d)).toEqual(["Default account"]);
  });

  it("says what a damaged backup's integrity check found on one line (SQLite's findings span several)", () => {
    const { d } = initDir();
    const file = path.join(tempDir(), "damaged.db");
    expect(cli(["backup", "--out", file, ...d]).status).toBe(0);
    // Page 3's header: its first freeblock and its cell content area point past the page.
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    bytes.writeUInt16BE(0xffff, 2 * pageSize + 1);
    bytes.writeUInt16BE(1, 2 * pageSize + 5);
    writeFileSync(file, bytes);
    const run = cli(["restore", "--from", file, ...d]);
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(
      /^error: .* failed its integrity check: \*\*\* in database main \*\*\*; Tree \d+ page 3: /,
    );
    expect(lines.filter((l) => !l.startsWith("checking "))).toHaveLength(1);
  });

  it("refuses a --from that is a device or a FIFO, also through a link, and says what it is (exit 2)", () => {
    const { d } = initDir();
    const { tmp, nul, fifo } = specialFiles();
    const link = path.join(tmp, "link");
    symlinkSync(nul ?? fifo, link);
    for (const [from, kind] of [
      ...(nul ? [[nul, "a character device"]] : []),
      [fifo, "a FIFO"],
      [link, nul ? "a character device" : "a FIFO"],
    ]) {
      const run = cli(["restore", "--from", from, ...d]);
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(`error: --from ${from} is ${kind}, not a file: give a backup file\n`);
    }
    expect(accountNames(d)).toEqual(["Default account"]);
  });

  it("refuses the live database itself as --from (exit 2)", () => {
    const { dir, d } = initDir();
    const run = cli(["restore", "--from", path.join(dir, "content-service.db"), ...d]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: --from .* is the database of .* itself/);
  });

  it("is refused while a server uses the data directory", async () => {
    const { dir, d } = initDir();
    const backup = path.join(tempDir(), "b.db");
    expect(cli(["backup", "--out", backup, ...d]).status).toBe(0);
    const server = await startServe(dir);
    try {
      const run = cli(["restore", "--from", backup, ...d]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`error: a server is using ${dir} (pid ${server.child.pid})`);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    expect(cli(["restore", "--from", backup, ...d]).status).toBe(0);
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(true);
  });

  it("takes turns with the other commands: neither runs while the other does", () => {
    const { dir, d } = initDir();
    const backup = path.join(tempDir(), "b.db");
    expect(cli(["backup", "--out", backup, ...d]).status).toBe(0);
    // A command under way (this process holds what each command holds while it runs).
    const command = holdCommandLock(dir);
    try {
      const run = cli(["restore", "--from", backup, ...d]);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`error: another command is using ${dir}: restore when it ends\n`);
      // Commands do not exclude each other, and the refused restore left no lock behind.
      expect(cli(["accounts", "create", "--name", "Beside", "--plan", "pro", ...d]).status).toBe(0);
    } finally {
      command.release();
    }
    // A restore under way (held by this process): each command is refused and writes nothing.
    const restore = acquireRestoreLock(dir);
    try {
      const refused = `error: a restore is under way in ${dir} (pid ${process.pid}): run this again when it ends\n`;
      for (const args of [
        ["accounts", "create", "--name", "During", "--plan", "pro"],
        ["accounts", "list"],
        ["migrate"],
        ["backup", "--out", path.join(tempDir(), "during.db")],
        ["init"],
      ]) {
        const run = cli([...args, ...d]);
        expect(run.status, args.join(" ")).toBe(1);
        // init first says it reads the password from standard input.
        expect(run.stderr.endsWith(refused), run.stderr).toBe(true);
      }
    } finally {
      restore.release();
    }
    expect(accountNames(d)).toEqual(["Default account", "Beside"]);
    expect(cli(["restore", "--from", backup, ...d]).status).toBe(0);
    expect(accountNames(d)).toEqual(["Default account"]);
  });

  // Two users besides root: root may write any file, and the tests run as root in CI.
  it.runIf(process.getuid?.() === 0)(
    "leaves lock files the database's other writers can take: another user's command does not block a restore",
    () => {
      const { dir, d } = initDir();
      const db = path.join(dir, "content-service.db");
      const backup = path.join(tempDir(), "b.db");
      expect(cli(["backup", "--out", backup, ...d]).status).toBe(0);
      chmodSync(path.dirname(backup), 0o755);
      chmodSync(backup, 0o644);
      // A data directory shared by two users: the database writable by both.
      chmodSync(dir, 0o777);
      for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o666);
      rmSync(path.join(dir, "maintenance.lock"), { force: true });
      const first = asUser(65534, ["accounts", "list", ...d]);
      expect(first.status, first.stderr).toBe(0);
      expect(statSync(path.join(dir, "maintenance.lock")).mode & 0o777).toBe(0o666);
      const restore = asUser(1234, ["restore", "--from", backup, ...d]);
      expect(restore.status, restore.stderr).toBe(0);
      expect(existsSync(db)).toBe(true);
      // A lock file this user cannot write is named, with what to do.
      chmodSync(path.join(dir, "maintenance.lock"), 0o644);
      const refused = asUser(1234, ["restore", "--from", backup, ...d]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        `cannot lock ${path.join(dir, "maintenance.lock")}: this user (uid 1234) cannot write it (owner uid 65534, ` +
          "mode 644) (EACCES): give it the database file's owner and mode, or remove it while nothing runs\n",
      );
    },
  );
});
