/**
 * The data directory and its database are their owner's alone when the program creates them, whatever the umask:
 * the database holds password and key hashes and the session signing secret. One made readable by others earlier
 * is noted by `serve`.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENTRY, startServe, tempDir } from "../helpers/cli.js";

const mode = (file: string) => statSync(file).mode & 0o777;

describe("the modes of a new data directory", () => {
  it("are 0700 for the folders and 0600 for the database, under umask 000", () => {
    const root = tempDir();
    const dir = path.join(root, "new", "data");
    const quoted = [...ENTRY, "init", "--data-dir", dir].map((a) => `'${a}'`).join(" ");
    const run = spawnSync("sh", ["-c", `umask 000 && exec '${process.execPath}' ${quoted} </dev/null`], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(mode(path.join(root, "new"))).toBe(0o700);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, "content-service.db"))).toBe(0o600);
  });

  it("a restore into a new data directory makes its database 0600 too, under umask 000", () => {
    const root = tempDir();
    const source = path.join(root, "source");
    const umask000 = (args: string[]) => {
      const quoted = [...ENTRY, ...args].map((a) => `'${a}'`).join(" ");
      return spawnSync("sh", ["-c", `umask 000 && exec '${process.execPath}' ${quoted} </dev/null`], {
        encoding: "utf8",
        env: { ...process.env, NODE_OPTIONS: "" },
      });
    };
    expect(umask000(["init", "--data-dir", source]).status).toBe(0);
    const backup = path.join(root, "b.db");
    expect(umask000(["backup", "--out", backup, "--data-dir", source]).status).toBe(0);
    const target = path.join(root, "restored");
    const run = umask000(["restore", "--from", backup, "--data-dir", target]);
    expect(run.status, run.stderr).toBe(0);
    // It had been 0666 less the umask: readable by every user, with the password hashes and the signing secret.
    expect(mode(path.join(target, "content-service.db"))).toBe(0o600);
  });

  it("serve notes a database other users can read, and says nothing of a private one", async () => {
    const dir = tempDir();
    const quiet = await startServe(dir);
    quiet.child.kill("SIGTERM");
    await quiet.exited;
    expect(quiet.output()).not.toMatch(/^note: /m);
    chmodSync(dir, 0o755);
    chmodSync(path.join(dir, "content-service.db"), 0o644);
    const exposed = await startServe(dir);
    exposed.child.kill("SIGTERM");
    await exposed.exited;
    expect(exposed.output()).toContain(
      `note: ${path.join(dir, "content-service.db")} (mode 644, in a folder of mode 755) can be read by other users`,
    );
  });
});
