/**
 * A PostgreSQL database of its own for each test file: `testDatabase()` creates an empty one with a random name on
 * the server CONTENT_SERVICE_TEST_DATABASE_URL names (.ci/run starts one on loopback: .ci/postgres) and gives its
 * URL and a drop function for afterAll. `describePostgres` runs a suite only where that server is: without the
 * variable the suite is skipped with the reason in its name, except in CI (CI set), where that is a failure.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";

/** The server the suites run on: its database is only used to create and drop the test files' databases. */
export const TEST_SERVER_URL = process.env.CONTENT_SERVICE_TEST_DATABASE_URL;

/** What the developer is told when the variable is unset. */
const HOW_TO =
  "set CONTENT_SERVICE_TEST_DATABASE_URL=postgres://content_service:content_service@127.0.0.1:5432/content_service " +
  "(a role that may create databases; .ci/postgres makes one)";

/** A fresh database: its URL, and how to drop it when the file is done. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A suite that needs PostgreSQL: run where the server is named, skipped (failed in CI) where it is not. */
export function describePostgres(title: string, body: () => void): void {
  if (TEST_SERVER_URL) {
    describe(title, body);
  } else if (process.env.CI) {
    it(`${title}: finds PostgreSQL (CI: .ci/run starts it and sets CONTENT_SERVICE_TEST_DATABASE_URL)`, () => {
      expect.fail(`CONTENT_SERVICE_TEST_DATABASE_URL is unset: the PostgreSQL suite cannot run (${HOW_TO})`);
    });
  } else {
    describe.skip(`${title}: skipped, no PostgreSQL server (${HOW_TO})`, body);
  }
}

/** Runs one statement on the test server's own database. */
async function onServer(sql: string): Promise<void> {
  if (!TEST_SERVER_URL) throw new Error(`no PostgreSQL server for the tests: ${HOW_TO}`);
  const client = new pg.Client({ connectionString: TEST_SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates an empty database of a random name (UTF-8, C collation: byte order, as SQLite compares text). */
export async function testDatabase(): Promise<TestDatabase> {
  const name = `cs_test_${randomBytes(6).toString("hex")}`;
  await onServer(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const url = new URL(TEST_SERVER_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    // WITH (FORCE) ends connections a failed test left open (PostgreSQL 13 and later).
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
