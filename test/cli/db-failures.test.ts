/**
 * A database the command cannot use is named, with what to do: a damaged file (serve, init, backup said only
 * "file is not a database"), and one this user cannot write (SQLite says "attempt to write a readonly database").
 */
import { randomBytes } from "node:crypto";
import { chmodSync, readdirSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { asUser, cli, initDir, startServe, tempDir } from "../helpers/cli.js";

/** What an empty database is refused as (db/open.ts), written out as the line shows it. */
const EMPTY = "the file is empty, 0 bytes";

describe("a database the command cannot use", () => {
  it("a damaged file: every command that opens it names it and points to restore", () => {
    const { dir, d, file } = initDir();
    writeFileSync(file, "not a database at all\n".repeat(400));
    const hint = `${file} is damaged (file is not a database): put a backup back with \`content-service restore --data-dir ${dir} --from FILE\``;
    for (const args of [
      ["serve", "--port", "0"],
      ["init"],
      ["backup", "--out", path.join(tempDir(), "b.db")],
      ["accounts", "list"],
      ["keys", "list"],
      ["migrate"],
    ]) {
      const run = cli([...args, ...d]);
      expect(run.status, args[0]).toBe(1);
      // init first says it reads the admin password from the (piped, empty) standard input.
      expect(run.stderr.trim().split("\n").at(-1), args[0]).toBe(`error: ${hint}`);
    }
  });

  it.each([
    ["random bytes", (file: string) => writeFileSync(file, randomBytes(64 * 1024)), "file is not a database"],
    ["cut in half", (file: string) => truncateSync(file, statSync(file).size / 2), "database disk image is malformed"],
    ["empty (0 bytes)", (file: string) => writeFileSync(file, ""), EMPTY],
    [
      // A -wal beside it holds no database either: this program's database files are never empty.
      "empty beside a -wal",
      (file: string) => {
        writeFileSync(file, "");
        writeFileSync(`${file}-wal`, randomBytes(4096));
      },
      EMPTY.replace("0 bytes", "0 bytes, beside a 4096-byte -wal"),
    ],
  ])(
    "a database that is %s: serve and a list command exit 1 with one line naming it and the restore; restore mends it",
    (_what, damage, reason) => {
      const { dir, d, file } = initDir();
      expect(cli(["keys", "create", "--account", "1", "--name", "kept", ...d]).status).toBe(0);
      const backup = path.join(tempDir(), "b.db");
      expect(cli(["backup", "--out", backup, ...d]).status).toBe(0);
      damage(file);
      // An empty file too: this program never leaves one (db/open.ts createDbFile), so no "remove it" hint.
      const hint = `${file} is damaged (${reason}): put a backup back with \`content-service restore --data-dir ${dir} --from FILE\``;
      for (const args of [
        ["serve", "--port", "0"],
        ["keys", "list"],
      ]) {
        const run = cli([...args, ...d]);
        expect(run.status, args[0]).toBe(1);
        // One line: no stack trace, no first start's credentials (an empty file had been taken for a new database).
        expect(run.stderr, args[0]).toBe(`error: ${hint}\n`);
        // Standard output: nothing but serve's `database opened` (the file opened, before its first read found it
        // damaged; an empty file is refused before it is opened).
        const logged = run.stdout.split("\n").filter((l) => l !== "");
        expect(
          logged.map((l) => JSON.parse(l).message),
          args[0],
        ).toEqual(args[0] === "serve" && !reason.startsWith(EMPTY) ? ["database opened"] : []);
      }
      const restored = cli(["restore", "--from", backup, ...d]);
      expect(restored.status, restored.stderr).toBe(0);
      expect(cli(["keys", "list", "--json", ...d]).json()).toMatchObject([{ name: "kept" }]);
    },
  );

  // Root may write any file: another user is needed, and the tests run as root in CI.
  it.runIf(process.getuid?.() === 0)(
    "one this user cannot write while a server runs: the files, their owner and mode",
    async () => {
      const { dir, d, file } = initDir();
      chmodSync(dir, 0o755);
      for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o644);
      const server = await startServe(dir);
      try {
        // The server's -wal and -shm are there, created by root: SQLite opens read-only and refuses the write.
        chmodSync(`${file}-wal`, 0o644);
        chmodSync(`${file}-shm`, 0o644);
        const run = asUser(65534, ["keys", "create", "--account", "1", "--name", "nobody", ...d]);
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(
          new RegExp(
            `^error: cannot write to ${dir}: this user \\(uid 65534\\) cannot write ${dir} \\(owner uid 0, mode 755\\), ` +
              `${file} \\(owner uid 0, mode 644\\), .* \\(EACCES\\): run as their owner or give them this user; ` +
              "the list commands work without writing\\n$",
          ),
        );
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    },
  );
});
