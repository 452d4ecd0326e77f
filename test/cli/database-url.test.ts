/**
 * `--database-url` (CONTENT_SERVICE_DATABASE_URL): the commands that read or change records run on a PostgreSQL
 * database instead of the data directory's file (issue 34). A URL that is not postgres:// is a usage error naming
 * where it came from; what copies the SQLite file (backup, restore, scheduled backups) and sandbox mode are refused
 * with it, naming PostgreSQL's own tools; and on a real database `init`, `migrate`, `keys` and `accounts` work.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, tempDir } from "../helpers/cli.js";
import { describePostgres, type TestDatabase, testDatabase } from "../helpers/postgres.js";

describe("--database-url's value", () => {
  it("is a usage error when it is not a postgres:// URL, named from the flag or the variable", () => {
    const flag = cli(["keys", "list", "--database-url", "mysql://db/x"]);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/--database-url must be a postgres:\/\/ URL, not mysql:\/\/…/);
    const env = cli(["keys", "list"], { env: { CONTENT_SERVICE_DATABASE_URL: "not a url" } });
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/--database-url \(from CONTENT_SERVICE_DATABASE_URL\) is not a URL/);
  });

  it("refuses backup, restore, scheduled backups and sandbox mode, which need the SQLite file", () => {
    const url = ["--database-url", "postgres://u:p@127.0.0.1:1/x"];
    const backup = cli(["backup", ...url, "--out", `${tempDir()}/b.db`]);
    expect(backup.status).toBe(2);
    expect(backup.stderr).toMatch(/backup copies the data directory's SQLite file; .*pg_dump/);
    const restore = cli(["restore", ...url, "--from", "b.db"]);
    expect(restore.status).toBe(2);
    expect(restore.stderr).toMatch(/restore replaces the data directory's SQLite file/);
    const scheduled = cli(["serve", ...url, "--port", "0", "--backup-schedule", "0 3 * * *"]);
    expect(scheduled.status).toBe(2);
    expect(scheduled.stderr).toMatch(/--backup-schedule copies the data directory's SQLite file: .*pg_dump/);
    const sandbox = cli(["serve", ...url, "--port", "0", "--sandbox"]);
    expect(sandbox.status).toBe(2);
    expect(sandbox.stderr).toMatch(/--sandbox runs on the data directory's SQLite file/);
  });

  it("names the database without its password when it cannot connect", () => {
    const run = cli(["keys", "list", "--database-url", "postgres://someone:s3cret@127.0.0.1:1/nowhere"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot connect to postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere/);
    expect(run.stderr).not.toMatch(/s3cret/);
  });
});

describePostgres("the record commands on a PostgreSQL database", () => {
  let database: TestDatabase;
  const on = () => ["--database-url", database.url];
  beforeAll(async () => {
    database = await testDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("says a new database needs migrating, then init makes the first account once", () => {
    const before = cli(["accounts", "list", ...on()]);
    expect(before.status).toBe(1);
    const init = cli(["init", ...on(), "--json"], { input: "correct horse battery staple" });
    expect(init.status, init.stderr).toBe(0);
    expect(init.json()).toMatchObject({ created: true, account_id: 1 });
    const again = cli(["init", ...on()], { input: "" });
    expect(again.stdout).toMatch(/^already initialised: postgres:\/\/content_service:\*\*\*@/);
    expect(cli(["migrate", ...on()]).stdout).toBe("up to date\n");
  });

  it("creates, lists and revokes keys there", () => {
    const made = cli(["keys", "create", ...on(), "--account", "1", "--name", "ci", "--json"]);
    expect(made.status, made.stderr).toBe(0);
    const id = made.json().id;
    const listed = cli(["keys", "list", ...on(), "--json"]);
    expect(listed.json().map((k: { name: string }) => k.name)).toContain("ci");
    const revoked = cli(["keys", "revoke", ...on(), String(id), "--json"]);
    expect(revoked.status, revoked.stderr).toBe(0);
  });

  it("names the database, not a data directory, for a record it does not hold", () => {
    const missing = cli(["accounts", "set-plan", ...on(), "9", "agency"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no account 9 in this database: `content-service accounts list --database-url URL`/);
  });
});
