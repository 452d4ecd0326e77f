import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The end-to-end tests need the built executable: `npm run test:e2e` runs them.
    exclude: ["test/e2e/**", "node_modules/**"],
  },
});
