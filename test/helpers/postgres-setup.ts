/**
 * The setup of each test file of the "postgres" project (vitest.config.ts): a database of the file's own on the test
 * server (postgres.ts testDatabase), one connection to it for the file's harnesses (postgres-harness.ts), both gone
 * when the file ends; the schemas a test's harnesses took are given back when it ends, for the next test's.
 */
import { afterAll, afterEach, beforeEach } from "vitest";
import { openPostgres } from "../../src/db/pg/connection.js";
import { testDatabase } from "./postgres.js";
import { releaseTestSchemas, settleHarnesses, testBegins, usePostgresForHarnesses } from "./postgres-harness.js";

const database = await testDatabase();
const db = openPostgres(database.url);
usePostgresForHarnesses(db, database.url);

// Registered before the file's own hooks: this beforeEach runs first, this afterEach last (hooks run as a stack).
beforeEach(testBegins);
afterEach(releaseTestSchemas);

afterAll(async () => {
  await settleHarnesses();
  db.close();
  await database.drop();
});
