import { defineConfig } from "vitest/config";

/**
 * The API suites run again on PostgreSQL (issue 34), where a server for them is named: .ci/run starts one and sets
 * CONTENT_SERVICE_TEST_DATABASE_URL; in CI the project runs whatever is set, so that a missing server fails. Each
 * harness there has a schema of its own (test/helpers/postgres-harness.ts).
 */
const POSTGRES_SUITES = [
  "test/routes/**/*.test.ts",
  // The rate limits through the app: on PostgreSQL the buckets are rows of the database (http/stored-ratelimit.ts).
  "test/http/ratelimit.test.ts",
  "test/http/pipeline/rate-limit.test.ts",
];
const onPostgres = Boolean(process.env.CONTENT_SERVICE_TEST_DATABASE_URL || process.env.CI);

export default defineConfig({
  test: {
    // CLI and process tests spawn real processes; the shared 2-core machines are slow at times.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The dashboard's build, for the tests of its routes and pages.
    globalSetup: ["test/helpers/dashboard-build.setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: ["test/**/*.test.ts"],
          // The end-to-end tests need the built executable: `npm run test:e2e` runs them.
          exclude: ["test/e2e/**", "node_modules/**"],
        },
      },
      ...(onPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: "postgres",
                include: POSTGRES_SUITES,
                setupFiles: ["test/helpers/postgres-setup.ts"],
              },
            },
          ]
        : []),
    ],
  },
});
