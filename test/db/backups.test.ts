import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { createAccount } from "../../src/domain/admin.js";
import { backupName, takeBackup } from "../../src/jobs/backups.js";
import { cli, startServe, tempDir } from "../helpers/cli.js";

describe("scheduled backups", () => {
  it("writes consistent copies and keeps the newest N", async () => {
    const dir = tempDir();
    const db = openDb(dir);
    migrate(db);
    const store = createStore(db);
    const out = path.join(dir, "backups");
    const t0 = Date.UTC(2026, 10, 22, 3, 0, 0);
    for (let i = 0; i < 4; i++) {
      createAccount(store, "test", `acct ${i}`, "business");
      await takeBackup(db, out, 2, t0 + i * 86_400_000);
    }
    const files = readdirSync(out).sort();
    expect(files).toEqual([backupName(t0 + 2 * 86_400_000), backupName(t0 + 3 * 86_400_000)]);
    const copy = openDb(out, { readonly: true, file: files[1] });
    expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(copy.prepare("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 4 });
    copy.close();
    db.close();
  });

  it("keeps no copy that fails its check", async () => {
    const dir = tempDir();
    const db = openDb(dir);
    migrate(db);
    const out = path.join(dir, "backups");
    const failing = () => Promise.reject(new Error("the backup failed its integrity check: page 7"));
    await expect(takeBackup(db, out, 2, Date.now(), failing)).rejects.toThrow("integrity check");
    expect(readdirSync(out)).toEqual([]);
    db.close();
  });

  it("runs on the serve schedule and refuses a bad cron expression", async () => {
    const bad = cli(["serve", "--data-dir", tempDir(), "--backup-schedule", "every day"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/not a cron expression/);
    const dir = tempDir();
    const server = await startServe(dir, ["--backup-schedule", "* * * * * *", "--backup-keep", "2"]);
    const backups = path.join(dir, "backups");
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
  });
});
