/**
 * The dashboard's build (scripts/build-dashboard.ts runs it): src/dashboard/ to dist/dashboard/, whose index.html the
 * server answers at / and whose assets/ names carry their content's hash (served as immutable). Addresses are relative
 * (`base: "./"`) so that the app works under any path a proxy puts the server at, as /docs does.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: "./",
  logLevel: "warn",
  // Preact's automatic JSX runtime (tsconfig.json says the same to the type checker).
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: path.resolve(here, "../../dist/dashboard"),
    emptyOutDir: true,
    assetsDir: "assets",
    // No inline script: the page's policy allows scripts from this origin only (src/routes/dashboard.ts).
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: "es2022",
    reportCompressedSize: false,
  },
});
