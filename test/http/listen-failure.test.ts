/** startServer when it cannot listen: it rejects and lets go of what it started (threads, connections). */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { memoryLogger } from "../../src/runtime/log.js";
import { startServer } from "../../src/server/start.js";

it("rejects on a port in use and closes its pools and its database", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cs-listen-"));
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const port = (taken.address() as net.AddressInfo).port;
  const threads = () => process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
  const before = threads();
  try {
    await expect(
      startServer({ dataDir: dir, host: "127.0.0.1", port, workers: 1, logger: memoryLogger() }),
    ).rejects.toMatchObject({ code: "EADDRINUSE" });
    // The last connection to a WAL database removes its -wal file as it closes.
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(true);
    expect(existsSync(path.join(dir, "content-service.db-wal"))).toBe(false);
    expect(threads()).toBe(before);
  } finally {
    taken.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
