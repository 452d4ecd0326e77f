/** RunningServer.close when a step fails: the later steps run all the same, and the first failure is its outcome. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { memoryLogger } from "../../src/runtime/log.js";
import { startServer } from "../../src/server/start.js";

it("a flush that fails at close (a full disk) still lets the pools, the writer and the database close", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cs-close-"));
  const threads = () => process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
  const before = threads();
  try {
    const server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger: memoryLogger() });
    expect(threads()).toBeGreaterThan(before);
    server.services.keyUsage.flush = () => {
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    await expect(server.close()).rejects.toMatchObject({ code: "SQLITE_FULL" });
    // The threads ended, and the last connection closed (it removes the -wal as it closes).
    expect(threads()).toBe(before);
    expect(existsSync(path.join(dir, "content-service.db-wal"))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
