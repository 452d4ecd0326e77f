/**
 * A database locked by another process (the command line writes to the same file) past busy_timeout: the write is
 * answered 503 service_busy with Retry-After, not a 500, on the HTTP thread's connection and on the writer thread's;
 * once the lock is released the same writes go through.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "../../src/db/open.js";
import { createAccount, issueKey } from "../../src/domain/admin.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { type RunningServer, startServer } from "../../src/server/start.js";
import { expectErrorBody, sendTo } from "../helpers/http.js";

describe("a write that finds the database locked by another process", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cs-busy-"));
  const logger = memoryLogger();
  let server: RunningServer;
  let other: Db;
  let key: string;

  const send = (method: string, route: string, body?: unknown) =>
    sendTo(server.app, method, route, { auth: key, body });
  const memory = { kind: "voice", title: "Plain words", content: "Short sentences, no jargon." };

  beforeAll(async () => {
    server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger });
    const { account } = createAccount(server.services.store, "test", "Busy", "business", Date.now());
    key = issueKey(server.services.store, "test", { accountId: account.id, name: "k", workspaceId: null }).secret;
    // Another process's connection, as `content-service accounts set-limits` would open it.
    other = openDb(dir);
  });
  afterAll(async () => {
    if (other?.inTransaction) other.exec("ROLLBACK");
    other?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 service_busy with Retry-After, on either connection, and the write goes through once released", async () => {
    const generated = await send("POST", "/api/v1/generate", { template_id: 1, user_direction: "How teams plan" });
    expect(generated.status).toBe(201);
    const finalize = {
      content_id: generated.body.content_id,
      finalized_content: `${generated.body.content}\n\nA closing line.`,
      edit_seconds: 60,
    };

    other.exec("BEGIN IMMEDIATE");
    // The finalization is written by the writer thread; the memory by the HTTP thread's own connection.
    const [finalized, created] = await Promise.all([
      send("POST", "/api/v1/finalizeContent", finalize),
      send("POST", "/api/v1/memories", memory),
    ]);
    for (const res of [finalized, created]) {
      const details = expectErrorBody(res, 503, "service_busy");
      expect(details.retry_after_seconds).toBe(1);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(JSON.stringify(res.body)).not.toMatch(/SQLITE|database is locked|\.ts:/);
    }
    // Logged as the failure it is, with SQLite's code.
    expect(logger.lines.some((l) => l.message === "unhandled error" && String(l.code).startsWith("SQLITE_BUSY"))).toBe(
      true,
    );
    other.exec("ROLLBACK");

    expect((await send("POST", "/api/v1/memories", memory)).status).toBe(201);
    expect((await send("POST", "/api/v1/finalizeContent", finalize)).status).toBe(200);
  });
});
