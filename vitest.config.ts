import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The end-to-end tests need the built executable: `npm run test:e2e` runs them.
    exclude: ["test/e2e/**", "node_modules/**"],
    // The dashboard's build, for the tests of its routes and pages.
    globalSetup: ["test/helpers/dashboard-build.setup.ts"],
    // CLI and process tests spawn real processes; the shared 2-core machines are slow at times.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
