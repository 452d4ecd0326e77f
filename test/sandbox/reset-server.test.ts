/**
 * A reset in a real server (src/server/start.ts with `sandbox`): the writer thread's and the worker threads'
 * connections stay open and see the state restored, the start's state is taken after what the data directory held.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { createAccount, issueKey } from "../../src/domain/admin.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { JOURNAL_DEFAULT } from "../../src/sandbox/index.js";
import { startServer } from "../../src/server/start.js";

it("resets a running server: its threads' connections read and write the state restored", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cs-reset-"));
  const db = openDb(dir);
  migrate(db);
  const store = createStore(db);
  const { account } = createAccount(store, "test", "Acme", "agency");
  const key = issueKey(store, "test", { accountId: account.id, name: "ci" }).secret;
  db.close();
  const server = await startServer({
    ...{ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger: memoryLogger() },
    sandbox: { journalSize: JOURNAL_DEFAULT },
  });
  try {
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${server.url}${p}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const before = await (await call("POST", "/api/v1/memories", { kind: "context", content: "Before." })).json();
    expect((await call("POST", "/_sandbox/reset")).status).toBe(204);
    expect((await call("GET", `/api/v1/memories/${before.id}`)).status).toBe(404);
    // The writer thread writes into the state restored (a key use's flush goes through it).
    await server.services.keyUsage.flushVia(server.services.writer);
    const after = await call("POST", "/api/v1/memories", { kind: "context", content: "After." });
    expect(after.status).toBe(201);
    const list = await (await call("GET", "/api/v1/memories")).json();
    expect(list.data.map((m: { content: string }) => m.content)).toEqual(["After."]);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
