/**
 * A new database file appears at its name whole (db/open.ts createDbFile): a first start killed as it made the file
 * had left an empty file there, which every later start refused until it was removed by hand.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type CreateStep, DB_FILE, openDb } from "../../src/db/open.js";
import { ENTRY, tempDir } from "../helpers/cli.js";

const OPEN_TS = pathToFileURL(path.resolve(import.meta.dirname, "../../src/db/open.ts")).href;

/** Throws unless `file` is absent or a whole database in WAL mode (its header's read and write versions are 2). */
function absentOrWhole(file: string): "absent" | "whole" {
  if (!existsSync(file)) return "absent";
  const head = readFileSync(file).subarray(0, 100);
  expect(head.length, `${file} is shorter than a header`).toBe(100);
  expect(head.subarray(0, 16).toString("latin1")).toBe("SQLite format 3\0");
  expect([head[18], head[19]]).toEqual([2, 2]);
  return "whole";
}

/** Runs openDb on `dir` in a child process that kills itself with SIGKILL after creation step `at`; its pid. */
function killedAt(dir: string, at: CreateStep): number {
  const script = `
    import { openDb } from ${JSON.stringify(OPEN_TS)};
    openDb(${JSON.stringify(dir)}, { createStep: (step) => { if (step === ${JSON.stringify(at)}) process.kill(process.pid, "SIGKILL"); } });
  `;
  const child = spawnSync(process.execPath, [ENTRY[0], ENTRY[1], "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  expect(child.signal, child.stderr).toBe("SIGKILL");
  return child.pid;
}

describe("a new database file", () => {
  it("is never seen empty at its name: absent at each step of its creation until it is whole, then whole", () => {
    const dir = tempDir();
    const file = path.join(dir, DB_FILE);
    const seen: string[] = [];
    const db = openDb(dir, {
      createStep: (step, temp) => {
        seen.push(`${step}: ${absentOrWhole(file)}`);
        expect(path.dirname(temp)).toBe(dir);
      },
      // Before the first statement: before this change the file was there, empty, until the journal_mode pragma.
      opened: () => seen.push(`opened: ${absentOrWhole(file)}`),
    });
    db.close();
    expect(seen).toEqual(["created: absent", "written: absent", "synced: absent", "placed: whole", "opened: whole"]);
    // Only the database is left (its -wal and -shm went with the connection).
    expect(readdirSync(dir)).toEqual([DB_FILE]);
  });

  it("is its owner's alone (0600), from its temporary name on", () => {
    const dir = tempDir();
    const modes: number[] = [];
    openDb(dir, {
      createStep: (_step, temp) => void (existsSync(temp) && modes.push(statSync(temp).mode & 0o777)),
    }).close();
    expect(modes).toEqual([0o600, 0o600, 0o600, 0o600]);
    expect(statSync(path.join(dir, DB_FILE)).mode & 0o777).toBe(0o600);
  });

  it.each<CreateStep>(["created", "written", "synced"])(
    "killed (SIGKILL) after step '%s': no file at its name; the next start makes it, and the leftover goes once a minute old",
    (at) => {
      const dir = tempDir();
      const file = path.join(dir, DB_FILE);
      const pid = killedAt(dir, at);
      expect(existsSync(file)).toBe(false);
      const left = readdirSync(dir);
      expect(left.length).toBeGreaterThan(0);
      for (const name of left) expect(name).toMatch(new RegExp(`^${DB_FILE.replace(".", "\\.")}\\.creating-${pid}-`));
      const db = openDb(dir);
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      db.close();
      // Fresh, it is kept: a process in another pid namespace (a container sharing the folder) looks gone from here.
      expect(readdirSync(dir).sort()).toEqual([DB_FILE, ...left].sort());
      const old = new Date(Date.now() - 120_000);
      for (const name of left) utimesSync(path.join(dir, name), old, old);
      openDb(dir).close();
      expect(readdirSync(dir)).toEqual([DB_FILE]);
    },
  );

  it("killed (SIGKILL) after it is linked into place: the next open removes the database's second name at once", () => {
    const dir = tempDir();
    const file = path.join(dir, DB_FILE);
    const pid = killedAt(dir, "placed");
    const left = readdirSync(dir).filter((n) => n !== DB_FILE);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^${DB_FILE.replace(".", "\\.")}\\.creating-${pid}-`));
    expect(statSync(path.join(dir, left[0])).ino).toBe(statSync(file).ino);
    openDb(dir).close();
    expect(readdirSync(dir)).toEqual([DB_FILE]);
  });

  it("removes the temporary files of processes that are gone, and keeps those of live ones", () => {
    const dir = tempDir();
    const dead = killedAt(tempDir(), "created");
    const name = (pid: number, suffix = "") => `${DB_FILE}.creating-${pid}-0badf00d${suffix}`;
    const stale = [name(dead), name(dead, "-journal")];
    // This process's number but older than it: a crashed start that had the same pid (a container's server).
    const ownOld = name(process.pid);
    // A live process (the test runner's parent) may be creating it now; so may a thread of this process.
    const live = [name(process.ppid), name(process.pid, "-journal")];
    // Another database's, and a name that is not one of these.
    const others = [`backup.db.creating-${dead}-0badf00d`, `${DB_FILE}.creating-x`];
    // A gone process's, but fresh: perhaps one in another pid namespace, creating it now.
    const fresh = name(dead, "-wal");
    for (const n of [...stale, ownOld, ...live, ...others, fresh]) writeFileSync(path.join(dir, n), "");
    const old = new Date(Date.now() - 3_600_000);
    for (const n of [...stale, ownOld]) utimesSync(path.join(dir, n), old, old);
    openDb(dir).close();
    expect(readdirSync(dir).sort()).toEqual([DB_FILE, ...live, ...others, fresh].sort());
  });

  it("of a process with this one's number, older than it but fresh, is kept: another container's pid 1 may be making it", () => {
    const dir = tempDir();
    // A fresh process: its own number on a file a second older than itself, then an open of that folder.
    const script = `
      import { utimesSync, writeFileSync } from "node:fs";
      import { openDb } from ${JSON.stringify(OPEN_TS)};
      const file = ${JSON.stringify(path.join(dir, DB_FILE))} + ".creating-" + process.pid + "-0badf00d";
      writeFileSync(file, "");
      const before = new Date(performance.timeOrigin - 1000);
      utimesSync(file, before, before);
      openDb(${JSON.stringify(dir)}).close();
      process.stdout.write(file);
    `;
    const child = spawnSync(process.execPath, [ENTRY[0], ENTRY[1], "--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(child.status, child.stderr).toBe(0);
    expect(existsSync(child.stdout)).toBe(true);
  });

  it("made by another process meanwhile, is kept and used: this one's is removed", () => {
    const theirs = path.join(tempDir(), "theirs.db");
    const made = openDb(path.dirname(theirs), { file: "theirs.db" });
    made.exec("CREATE TABLE theirs (x)");
    made.pragma("wal_checkpoint(TRUNCATE)");
    made.close();
    const dir = tempDir();
    const file = path.join(dir, DB_FILE);
    const db = openDb(dir, { createStep: (step) => void (step === "synced" && copyFileSync(theirs, file)) });
    expect(db.prepare("SELECT name FROM sqlite_master").pluck().all()).toEqual(["theirs"]);
    db.close();
    expect(readdirSync(dir)).toEqual([DB_FILE]);
  });

  it("is not made where an empty one exists: that file, another's (a `> file`), is still refused", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, DB_FILE), "");
    expect(() => openDb(dir)).toThrow(expect.objectContaining({ code: "SQLITE_NOTADB" }));
    expect(readdirSync(dir)).toEqual([DB_FILE]);
  });
});
