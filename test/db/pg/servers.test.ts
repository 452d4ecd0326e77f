/**
 * Servers on one PostgreSQL database (`serve --database-url`, issue 34): a first start initialises it once, every
 * server answers as one service over it (what one writes the other reads, a key revoked through one is refused by
 * the other at its next request), a finalization's writes go through the writer thread's own connection, and the
 * migrations of a second start find nothing to do.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { initDatabase } from "../../../src/cli/setup.js";
import { migrate } from "../../../src/db/migrate.js";
import { openPostgres } from "../../../src/db/pg/connection.js";
import type { RunningServer } from "../../../src/server/start.js";
import { tempDir } from "../../helpers/cli.js";
import { sendTo } from "../../helpers/http.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";
import { ADMIN_EMAIL, ADMIN_PASSWORD, initialisedDatabase, serverOn } from "../../helpers/postgres-servers.js";

describePostgres("two servers on one PostgreSQL database", () => {
  let database: TestDatabase;
  let one: RunningServer;
  let two: RunningServer;
  let key: string;

  beforeAll(async () => {
    database = await testDatabase();
    key = initialisedDatabase(database.url);
    const init = { accountName: "Team", plan: "business" as const, adminEmail: ADMIN_EMAIL, password: ADMIN_PASSWORD };
    expect(initDatabase({ dataDir: tempDir(), databaseUrl: database.url }, init).created).toBe(false);
    one = await serverOn(database.url);
    two = await serverOn(database.url);
  });

  afterAll(async () => {
    await Promise.allSettled([one?.close(), two?.close()]);
    await database?.drop();
  });

  it("reads through one server what was written through the other", async () => {
    const made = await sendTo(one.app, "POST", "/api/v1/contents", {
      auth: key,
      body: { title: "Shared", content: "Written through the first server." },
    });
    expect(made.status).toBe(201);
    const read = await sendTo(two.app, "GET", `/api/v1/contents/${made.body.content_id}`, { auth: key });
    expect(read.status).toBe(200);
    expect(read.body.content).toBe("Written through the first server.");
  });

  it("refuses through the other server, at its next request, a key revoked through one", async () => {
    const login = await sendTo(one.app, "POST", "/api/v1/auth/login", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);
    const issued = await sendTo(one.app, "POST", "/api/v1/api-keys", {
      auth: login.body.token,
      body: { name: "short-lived", scopes: ["read"] },
    });
    expect(issued.status).toBe(201);
    expect((await sendTo(two.app, "GET", "/api/v1/api-keys/current", { auth: issued.body.key })).status).toBe(200);
    const revoked = await sendTo(one.app, "DELETE", `/api/v1/api-keys/${issued.body.id}`, { auth: login.body.token });
    expect(revoked.status).toBe(200);
    expect((await sendTo(two.app, "GET", "/api/v1/api-keys/current", { auth: issued.body.key })).status).toBe(401);
  });

  it("finalizes through the writer thread's own connection, and the other server reads the finalized text", async () => {
    const made = await sendTo(two.app, "POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "A short post on servers sharing one database." },
    });
    expect(made.status).toBe(201);
    const finalized = await sendTo(two.app, "POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: made.body.content_id, finalized_content: "The final text, edited by a person." },
    });
    expect(finalized.status).toBe(200);
    const read = await sendTo(one.app, "GET", `/api/v1/contents/${made.body.content_id}`, { auth: key });
    expect(read.body.status).toBe("finalized");
    expect(read.body.content).toBe("The final text, edited by a person.");
  });

  it("finds no migration pending on a database another server migrated", () => {
    const db = openPostgres(database.url);
    try {
      expect(migrate(db)).toEqual([]);
    } finally {
      db.close();
    }
  });
});
