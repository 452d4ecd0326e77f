/**
 * The lock files' failure lines name the file once: the line starts "cannot open FILE: " or "cannot lock FILE: ", and
 * the reason calls the file "it" (a folder in the way is named). Read-only media need a mount, which
 * unwritable-dir.test.ts makes where it can; here access(2)'s answer is given instead (lock.ts's AccessCheck).
 */
import { chmodSync, constants, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type AccessCheck, cannotWrite, readOnlyLock } from "../../src/cli/lock.js";
import { asUser, initDir, tempDir } from "../helpers/cli.js";

/** access(2) answering EROFS for writes to every path in `ro`, ENOENT for `missing`, else success. */
function readOnlyMedia(ro: string[], missing: string[] = []): AccessCheck {
  return (file, mode) =>
    missing.includes(file) ? "ENOENT" : mode & constants.W_OK && ro.includes(file) ? "EROFS" : undefined;
}

describe("a lock file on read-only media", () => {
  it("a lock file that exists: 'cannot lock FILE: it is on a read-only file system', the path said once", () => {
    const dir = tempDir();
    const lock = path.join(dir, "server.lock");
    const message = readOnlyLock(lock, readOnlyMedia([dir, lock])).message;
    expect(message).toBe(`cannot lock ${lock}: it is on a read-only file system (EROFS)`);
    expect(message.split(lock)).toHaveLength(2);
    expect(`cannot open ${lock}: ${cannotWrite(lock, readOnlyMedia([dir, lock]))}`).toBe(
      `cannot open ${lock}: it is on a read-only file system (EROFS)`,
    );
  });

  it("a lock file to be made: the folder is named, as before", () => {
    const dir = tempDir();
    const lock = path.join(dir, "server.lock");
    expect(cannotWrite(lock, readOnlyMedia([dir], [lock]))).toBe(`${dir} is on a read-only file system (EROFS)`);
  });
});

describe("another owner's lock file", () => {
  it.skipIf(process.getuid?.() !== 0)("names it once, with its owner and mode (accounts list as another user)", () => {
    const { dir, file } = initDir();
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    const lock = path.join(dir, "maintenance.lock");
    writeFileSync(lock, "", { mode: 0o600 });
    chmodSync(lock, 0o600);
    const run = asUser(65534, ["accounts", "list", "--data-dir", dir]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toBe(
      `error: cannot open ${lock}: this user (uid 65534) cannot write it (owner uid 0, mode 600) (EACCES): run as its ` +
        "owner or give it this user\n",
    );
  });
});
