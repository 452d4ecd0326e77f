/**
 * Password checks do not wait behind long foreground work (src/server/start.ts, the password pool): a sign-in and a
 * user's creation are answered while image renderings hold the foreground pool.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createAccount, createUser, issueKey } from "../../src/domain/admin.js";
import { hashPassword } from "../../src/domain/passwords.js";
import { createApp } from "../../src/http/app.js";
import { ROUTES } from "../../src/routes/index.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { createServices } from "../../src/server/services.js";
import { type RunningServer, startServer } from "../../src/server/start.js";
import type { TaskName } from "../../src/workers/tasks.js";
import { sendTo } from "../helpers/http.js";
import { hookedPool } from "../helpers/pools.js";

const PASSWORD = "correct horse battery staple";
const LOGIN = { email: "admin@pw.test", password: PASSWORD };

describe("password checks while the foreground pool is held", () => {
  it("answer a login and create a user; the held rendering completes once released", async () => {
    const db = openDb(":memory:");
    migrate(db);
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const foreground: TaskName[] = [];
    const pool = hookedPool(async (name) => {
      foreground.push(name);
      await gate;
    });
    const passwords: TaskName[] = [];
    const passwordPool = hookedPool((name) => {
      passwords.push(name);
    });
    const services = createServices({ db, pool, passwordPool, logger: memoryLogger() });
    const app = createApp(services, ROUTES);
    const { account } = createAccount(services.store, "test", "Pw", "business", Date.now());
    createUser(services.store, "test", account.id, LOGIN.email, hashPassword(PASSWORD), "admin", Date.now());
    const key = issueKey(services.store, "test", { accountId: account.id, name: "k", workspaceId: null }).secret;

    const render = sendTo(app, "POST", "/api/v1/images/generate", {
      auth: key,
      body: { prompt: "a held picture", width: 64, height: 64 },
    });
    while (foreground.length === 0) await new Promise((r) => setTimeout(r, 5));

    // Held renderings hold the foreground pool until released: a login waiting for it is not answered in 5 s.
    const waiting = new AbortController();
    const timeout = sleep(5_000, undefined, { signal: waiting.signal }).catch(() => undefined);
    const login = await Promise.race([sendTo(app, "POST", "/api/v1/auth/login", { body: LOGIN }), timeout]);
    waiting.abort();
    if (!login) throw new Error("the login waited for the held foreground pool");
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const wrong = await sendTo(app, "POST", "/api/v1/auth/login", { body: { ...LOGIN, password: "not it" } });
    expect(wrong.status).toBe(401);
    const created = await sendTo(app, "POST", "/api/v1/admin/users", {
      auth: login.body.token,
      body: { account_id: account.id, email: "new@pw.test", role: "member" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(passwords).toEqual(["verifyPassword", "verifyPassword", "hashPassword"]);
    expect(foreground).toEqual(["renderImage"]);

    release();
    expect((await render).status).toBe(201);
    const fresh = await sendTo(app, "POST", "/api/v1/auth/login", {
      body: { email: "new@pw.test", password: created.body.password },
    });
    expect(fresh.status).toBe(200);
    db.close();
  });

  it("go to the foreground pool when no password pool is given (tests, one-shot commands)", async () => {
    const db = openDb(":memory:");
    migrate(db);
    const names: TaskName[] = [];
    const services = createServices({
      db,
      pool: hookedPool((name) => void names.push(name)),
      logger: memoryLogger(),
    });
    const { account } = createAccount(services.store, "test", "Pw", "business", Date.now());
    createUser(services.store, "test", account.id, LOGIN.email, hashPassword(PASSWORD), "admin", Date.now());
    const login = await sendTo(createApp(services, ROUTES), "POST", "/api/v1/auth/login", { body: LOGIN });
    expect(login.status).toBe(200);
    expect(names).toEqual(["verifyPassword"]);
    expect(services.passwords).toBe(services.pool);
    db.close();
  });
});

describe("a running server's password checks", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cs-passwords-"));
  let server: RunningServer;
  let key: string;
  const send = (method: string, route: string, opts: { auth?: string; body?: unknown }) =>
    sendTo(server.app, method, route, opts);

  beforeAll(async () => {
    server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger: memoryLogger() });
    const store = server.services.store;
    const { account } = createAccount(store, "test", "Pw", "business", Date.now());
    createUser(store, "test", account.id, LOGIN.email, hashPassword(PASSWORD), "admin", Date.now());
    key = issueKey(store, "test", { accountId: account.id, name: "k", workspaceId: null }).secret;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answer a login before the 2048 × 2048 renderings queued ahead of it on the one foreground thread", async () => {
    // Queued on the foreground thread, the login would come after all four (first come, first served). On its own
    // thread it comes after a password check (60-700 ms, the machine's load permitting), far before the fourth
    // rendering: the test asks only that, not that it beat the first (which a loaded machine can reverse).
    const order: string[] = [];
    const renders = [1, 2, 3, 4].map(async (seed) => {
      const r = await send("POST", "/api/v1/images/generate", {
        auth: key,
        body: { prompt: "a large picture of the harbour at dusk", width: 2048, height: 2048, seed },
      });
      expect(r.status).toBe(201);
      order.push(`render ${seed}`);
    });
    // The renderings are on the foreground pool (one thread) before the login is sent.
    await new Promise((r) => setTimeout(r, 100));
    const started = performance.now();
    const login = await send("POST", "/api/v1/auth/login", { body: LOGIN });
    const loginMs = performance.now() - started;
    order.push("login");
    expect(login.status).toBe(200);
    await Promise.all(renders);
    expect(order.indexOf("login"), `login took ${loginMs.toFixed(0)} ms: ${order.join(", ")}`).toBeLessThan(
      order.indexOf("render 4"),
    );
  }, 30_000);
});
