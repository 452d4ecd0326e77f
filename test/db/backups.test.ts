import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import { checkCopy, copyDatabase, databaseFingerprint } from "../../src/db/backup-copy.js";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { createAccount } from "../../src/domain/admin.js";
import { backupName, ensureBackupDir, takeBackup } from "../../src/jobs/backups.js";
import { piscinaPool } from "../../src/workers/pool.js";
import { asUser, cli, startServe, tempDir } from "../helpers/cli.js";

// Every fsyncFile of this process (the backups' own, not SQLite's), with whether the backup (`synced.out`) had its name
// then; `note` puts another step in the same sequence.
const synced = vi.hoisted(() => ({ out: "", calls: [] as [string, boolean][] }));
vi.mock("../../src/db/open.js", async (importOriginal) =>
  (await import("../helpers/fsync-spy.js")).recordingFsyncs(await importOriginal(), synced),
);
const note = (step: string) => synced.calls.push([step, existsSync(synced.out)]);

/** A migrated data directory with its database open, its default backup folder, and takeBackup's copy step for it. */
function dataDirToBackUp() {
  const dir = tempDir();
  const db = openDb(dir);
  migrate(db);
  return { dir, db, out: path.join(dir, "backups"), copy: (tmp: string) => copyDatabase({ dataDir: dir }, tmp) };
}

describe("scheduled backups: copies, their checks and their files", () => {
  it("writes consistent copies and keeps the newest N", async () => {
    const { dir, db, out, copy } = dataDirToBackUp();
    const store = createStore(db);
    // Backups are their owner's alone, whatever the database's mode and the umask.
    chmodSync(path.join(dir, "content-service.db"), 0o644);
    const t0 = Date.UTC(2026, 10, 22, 3, 0, 0);
    for (let i = 0; i < 4; i++) {
      createAccount(store, "test", `acct ${i}`, "business");
      await takeBackup(copy, out, 2, { nowMs: t0 + i * 86_400_000 });
    }
    const files = readdirSync(out).sort();
    expect(files).toEqual([backupName(t0 + 2 * 86_400_000), backupName(t0 + 3 * 86_400_000)]);
    for (const f of files) expect(statSync(path.join(out, f)).mode & 0o777).toBe(0o600);
    const newest = openDb(out, { readonly: true, file: files[1] });
    expect(newest.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(newest.prepare("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 4 });
    newest.close();
    db.close();
  });

  it("fsyncs the checked copy before it has its name, and then the folder", async () => {
    const { db, out, copy } = dataDirToBackUp();
    const now = Date.UTC(2026, 10, 22, 3, 0, 0);
    synced.out = path.join(out, backupName(now));
    synced.calls = [];
    // A power loss after the link must not leave a name on pages never written, nor lose the name once reported.
    const check = (tmp: string) => {
      checkCopy(tmp);
      note("checked");
    };
    await takeBackup(copy, out, 2, { nowMs: now, check });
    expect(synced.calls.filter(([name]) => name === "checked" || name.startsWith(out))).toEqual([
      ["checked", false],
      [expect.stringMatching(/^.*\.db\.partial-\d+-[0-9a-f]{8}$/), false],
      [out, true],
    ]);
    db.close();
  });

  it("checks a copy that is there: one gone before its check is an error, not a new empty database that passes", () => {
    const dir = tempDir();
    const gone = path.join(dir, `${backupName(Date.UTC(2026, 10, 24))}.partial-1-0badc0de`);
    expect(() => checkCopy(gone)).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("removes crashed backups' temporary files unmodified for over an hour, with their checks' -wal, -shm and -journal, and nothing else", async () => {
    const { db, out, copy } = dataDirToBackUp();
    mkdirSync(out);
    const stamp = "content-service-20261122T030000Z.db";
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    const put = (name: string, modified: Date, folder = false) => {
      const file = path.join(out, name);
      if (folder) mkdirSync(file);
      else writeFileSync(file, "a copy");
      utimesSync(file, modified, modified);
      return name;
    };
    const crashed = [
      put(`${stamp}.partial-123-0badc0de`, hoursAgo(2)),
      put(`${stamp}.partial-1-deadbeef`, hoursAgo(30)),
      // What a check killed with the copy open leaves beside it goes with it, however recently written.
      put(`${stamp}.partial-123-0badc0de-journal`, hoursAgo(2)),
      put(`${stamp}.partial-1-deadbeef-wal`, new Date()),
      put(`${stamp}.partial-1-deadbeef-shm`, hoursAgo(0.5)),
      // Its copy gone before: once as old as a leftover.
      put(`${stamp}.partial-127-0badc0de-wal`, hoursAgo(2)),
    ];
    const kept = [
      // Another server's copy under way (VACUUM INTO writes it, its check opens it), or one just checked.
      put(`${stamp}.partial-124-0badc0de`, new Date()),
      put(`${stamp}.partial-125-0badc0de`, hoursAgo(0.9)),
      // Beside a copy under way (a long check writes none of them), or recent with its copy gone.
      put(`${stamp}.partial-124-0badc0de-shm`, hoursAgo(2)),
      put(`${stamp}.partial-128-0badc0de-journal`, hoursAgo(0.5)),
      // Not named as takeBackup names its temporary files.
      put(`${stamp}.partial`, hoursAgo(2)),
      put(`${stamp}.partial-123-0badc0de-wal2`, hoursAgo(2)),
      put(`${stamp}-wal`, hoursAgo(2)),
      put(`${stamp}.partial-123-0badc0d`, hoursAgo(2)),
      put(`${stamp}.partial-123-0BADC0DE`, hoursAgo(2)),
      put(`mine.db.partial-123-0badc0de`, hoursAgo(2)),
      put(`content-service-20261122.db.partial-123-0badc0de`, hoursAgo(2)),
      // Not a file, so not removed: nor is what is beside it.
      put(`${stamp}.partial-126-0badc0de`, hoursAgo(2), true),
      put(`${stamp}.partial-126-0badc0de-wal`, hoursAgo(2)),
    ];
    const reported: string[][] = [];
    const now = Date.UTC(2026, 10, 23, 3, 0, 0);
    await takeBackup(copy, out, 2, {
      nowMs: now,
      leftoversRemoved: (files) => reported.push(files),
    });
    expect(reported.map((files) => [...files].sort())).toEqual([crashed.map((name) => path.join(out, name)).sort()]);
    expect(readdirSync(out).sort()).toEqual([...kept, backupName(now)].sort());
    // Nothing left over: nothing reported.
    await takeBackup(copy, out, 2, {
      nowMs: now + 1000,
      leftoversRemoved: (files) => reported.push(files),
    });
    expect(reported).toHaveLength(1);
    db.close();
  });

  it("touches its temporary file while it is under way, so that another server never takes it for a leftover", async () => {
    const { db, out, copy } = dataDirToBackUp();
    const ages: number[] = [];
    const age = (file: string) => Date.now() - statSync(file).mtimeMs;
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    try {
      // A check that outlasts an hour without writing to the file (a large database's integrity check).
      const check = (tmp: string) => {
        const old = new Date(Date.now() - 50 * 60_000);
        utimesSync(tmp, old, old);
        ages.push(age(tmp));
        vi.advanceTimersByTime(20 * 60_000);
        ages.push(age(tmp));
        checkCopy(tmp);
      };
      await takeBackup(copy, out, 2, { check });
    } finally {
      vi.useRealTimers();
    }
    expect(ages[0]).toBeGreaterThanOrEqual(50 * 60_000);
    expect(ages[1]).toBeLessThan(20 * 60_000);
    db.close();
  });

  it("keeps no copy that fails its check", async () => {
    const { db, out, copy } = dataDirToBackUp();
    const failing = () => Promise.reject(new Error("the backup failed its integrity check: page 7"));
    await expect(takeBackup(copy, out, 2, { check: failing })).rejects.toThrow("integrity check");
    expect(readdirSync(out)).toEqual([]);
    db.close();
  });

  it("two of the same second in one folder (two servers sharing it): the one placed first is kept, the other fails", async () => {
    const out = tempDir();
    const dirs = [tempDir(), tempDir()];
    dirs.forEach((dir, i) => {
      const db = openDb(dir);
      migrate(db);
      createAccount(createStore(db), "test", `server ${i}`, "business");
      db.close();
    });
    const now = Date.UTC(2026, 10, 22, 3, 0, 0);
    // The first server's copy is made, and waits (for its check) while the second's runs whole. Both had used one
    // temporary name: the second removed the first's copy, and the first's check then made an empty database that
    // replaced the second's backup.
    let resume = () => {};
    const waiting = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let copied = () => {};
    const made = new Promise<void>((resolve) => {
      copied = resolve;
    });
    const first = takeBackup(
      async (tmp) => {
        copyDatabase({ dataDir: dirs[0] }, tmp);
        copied();
        await waiting;
      },
      out,
      7,
      { nowMs: now },
    );
    await made;
    const file = path.join(out, backupName(now));
    await expect(takeBackup((tmp) => copyDatabase({ dataDir: dirs[1] }, tmp), out, 7, { nowMs: now })).resolves.toBe(
      file,
    );
    resume();
    await expect(first).rejects.toThrow(`${file} exists: this backup is dropped and that file kept`);
    expect(readdirSync(out)).toEqual([backupName(now)]);
    const copy = openDb(out, { readonly: true, file: backupName(now) });
    expect(copy.prepare("SELECT name FROM accounts").pluck().all()).toContain("server 1");
    copy.close();
  });
});

describe("scheduled backups: under writes and on the serve schedule", () => {
  it("finishes a consistent snapshot while another connection keeps committing", async () => {
    const dir = tempDir();
    const writer = openDb(dir);
    // ~2,000 pages: SQLite's online backup copies 100 per step and starts over after another connection's commit.
    writer.exec(`
      CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
      CREATE TABLE tally (n INTEGER NOT NULL);
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 8000)
      INSERT INTO rows (body) SELECT randomblob(1000) FROM c;
      INSERT INTO tally VALUES (8000);
    `);
    const insert = writer.prepare("INSERT INTO rows (body) VALUES (randomblob(1000))");
    const bump = writer.prepare("UPDATE tally SET n = n + 1");
    const commit = writer.transaction(() => {
      insert.run();
      bump.run();
    });
    const count = () => (writer.prepare("SELECT count(*) AS n FROM rows").get() as { n: number }).n;
    // As the server does it: the copy and its check on a worker thread, with connections of that thread.
    const pool = piscinaPool(1, { background: true });
    try {
      const before = count();
      let done = false;
      const backup = takeBackup(
        (tmp) => pool.run("copyBackup", { db: { dataDir: dir }, file: tmp }),
        path.join(dir, "backups"),
        1,
        {
          check: (tmp) => pool.run("checkBackup", { file: tmp }),
          sync: (tmp) => pool.run("syncBackup", { file: tmp }),
        },
      ).finally(() => {
        done = true;
      });
      backup.catch(() => {});
      // One commit per turn of the event loop until the backup is done (the online backup's steps take turns too).
      let during = 0;
      const deadline = Date.now() + 30_000;
      while (!done && Date.now() < deadline) {
        commit();
        during++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Done while the commits went on, not after they stopped at the deadline.
      expect(done).toBe(true);
      expect(during).toBeGreaterThan(0);
      const file = await backup;
      const after = count();
      const copy = openDb(path.dirname(file), { readonly: true, file: path.basename(file) });
      try {
        expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
        const rows = copy.prepare("SELECT count(*) AS n, max(id) AS last FROM rows").get() as {
          n: number;
          last: number;
        };
        const tally = copy.prepare("SELECT n FROM tally").get() as { n: number };
        // Every row committed before the backup began, and whole transactions only: one snapshot.
        expect(rows.n).toBeGreaterThanOrEqual(before);
        expect(rows.n).toBeLessThanOrEqual(after);
        expect(rows.last).toBe(rows.n);
        expect(tally.n).toBe(rows.n);
      } finally {
        copy.close();
      }
      expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
    } finally {
      await pool.close();
      writer.close();
    }
  });

  it("runs on the serve schedule and refuses a bad cron expression", async () => {
    const bad = cli(["serve", "--data-dir", tempDir(), "--backup-schedule", "every day"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/not a cron expression/);
    // Well formed, but the 30th of February never comes: said so, not called malformed.
    for (const never of ["0 3 30 2 *", "0 0 3 31 4 *"]) {
      const run = cli(["serve", "--data-dir", tempDir(), "--backup-schedule", never]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`"${never}" never fires: no month it names has that day of the month`);
    }
    for (const malformed of ["0 3 32 2 *", "0 3 30 13 *", "0 3 30 2"]) {
      expect(cli(["serve", "--data-dir", tempDir(), "--backup-schedule", malformed]).stderr).toMatch(
        /is not a cron expression/,
      );
    }
    const dir = tempDir();
    const backups = path.join(dir, "backups");
    // A crashed backup's temporary file: removed at the first run, and said so.
    mkdirSync(backups);
    const leftover = path.join(backups, "content-service-20261122T030000Z.db.partial-123-0badc0de");
    writeFileSync(leftover, "a copy");
    const old = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(leftover, old, old);
    const server = await startServe(dir, ["--backup-schedule", "* * * * * *", "--backup-keep", "2"]);
    const started = Date.now();
    while (
      !(existsSync(backups) && readdirSync(backups).filter((f) => f.endsWith(".db")).length >= 2) &&
      Date.now() - started < 15_000
    )
      await new Promise((r) => setTimeout(r, 200));
    server.child.kill("SIGTERM");
    await server.exited;
    const files = readdirSync(backups).filter((f) => f.endsWith(".db"));
    expect(files.length).toBe(2);
    expect(existsSync(leftover)).toBe(false);
    const removed = server
      .stdout()
      .split("\n")
      .filter((line) => line.includes("backup leftovers removed"));
    expect(removed.map((line) => JSON.parse(line).files)).toEqual([[leftover]]);
  });

  it("refuses to start with a backup folder it cannot use, and makes a missing one", async () => {
    const dir = tempDir();
    const file = path.join(dir, "afile");
    writeFileSync(file, "");
    for (const [folder, reason] of [
      [path.join(file, "backups"), `${path.join(file, "backups")}: not a directory`],
      // mkdir there fails with ENOENT though /proc exists: Node's recursive mkdir had retried for ever.
      ["/proc/content-service-nope/backups", "/proc/content-service-nope: no such file or directory"],
    ]) {
      const run = cli([
        "serve",
        "--data-dir",
        path.join(dir, "data"),
        "--port",
        "0",
        "--backup-schedule",
        "0 3 * * *",
        "--backup-dir",
        folder,
      ]);
      expect(run.status, folder).toBe(1);
      expect(run.stderr, folder).toBe(`error: cannot use the backup folder: ${reason}\n`);
    }
    // The refused starts made no credentials.
    expect(existsSync(path.join(dir, "data", "content-service.db"))).toBe(false);
    ensureBackupDir(path.join(dir, "new", "a", "b"));
    expect(statSync(path.join(dir, "new", "a", "b")).isDirectory()).toBe(true);
    ensureBackupDir(path.join(dir, "new", "a", "b"));
  });
});

describe("a backup folder this user can write but not list", () => {
  it.skipIf(process.getuid?.() !== 0)("fails serve's start (as another user): its newest N could not be kept", () => {
    const base = tempDir();
    chmodSync(base, 0o755);
    const parent = path.join(base, "d");
    mkdirSync(parent);
    chmodSync(parent, 0o777);
    const drop = path.join(base, "drop");
    mkdirSync(drop);
    chmodSync(drop, 0o733);
    const data = path.join(parent, "data");
    const run = asUser(65534, [
      "serve",
      "--data-dir",
      data,
      "--port",
      "0",
      "--backup-schedule",
      "0 3 * * *",
      "--backup-dir",
      drop,
    ]);
    expect({ status: run.status, stderr: run.stderr }).toEqual({
      status: 1,
      stderr:
        `error: cannot use the backup folder: ${drop}: this user can write it but not list it (permission denied), ` +
        "and the newest backups are kept by listing it\n",
    });
    expect(existsSync(path.join(data, "content-service.db"))).toBe(false);
  });
});

describe("a database file whose name begins with file:", () => {
  it("is opened in its folder, not read as an SQLite URI relative to the working directory", () => {
    // restore --from DIR/file:b.db and a backup's check open it by folder and name: with URI filenames on, the name
    // alone had been taken for the URI file:b.db, a b.db in the working directory (a new empty one, for the check).
    const dir = tempDir();
    const file = path.join(dir, "file:copy.db");
    const made = new Database(file);
    made.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)");
    made.close();
    const copy = openDb(dir, { readonly: true, file: "file:copy.db" });
    try {
      expect(copy.prepare("SELECT x FROM t").get()).toEqual({ x: 7 });
      expect(copy.name).toBe(file);
    } finally {
      copy.close();
    }
  });
});

describe("databaseFingerprint (a copy read without locks must find the files as they were)", () => {
  it("is the same while nothing writes, and changes with a write, a -wal appearing or the file replaced", () => {
    const dir = tempDir();
    const db = openDb(dir);
    migrate(db);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    // Closed cleanly: no -wal or -shm, as a data directory read as immutable has.
    const quiet = databaseFingerprint(dir);
    expect(databaseFingerprint(dir)).toBe(quiet);
    const file = path.join(dir, "content-service.db");
    const writer = new Database(file);
    writer.prepare("SELECT count(*) FROM sqlite_master").get();
    expect(databaseFingerprint(dir), "a -wal and -shm appear").not.toBe(quiet);
    writer.pragma("journal_mode = DELETE");
    writer.close();
    const again = databaseFingerprint(dir);
    const raw = new Database(file);
    raw.exec("CREATE TABLE t (x)");
    raw.close();
    expect(databaseFingerprint(dir), "a write in rollback mode").not.toBe(again);
    const before = databaseFingerprint(dir);
    const bytes = readFileSync(file);
    // Held open, the old file keeps its inode number from being given to the new one at once.
    const old = new Database(file, { readonly: true });
    rmSync(file);
    writeFileSync(file, bytes);
    old.close();
    expect(databaseFingerprint(dir), "the same bytes in another file").not.toBe(before);
  });
});
