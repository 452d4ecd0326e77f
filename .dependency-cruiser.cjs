/**
 * The dependency rule of docs/architecture.md, checked by `npm test` (`npm run lint:deps`): each layer of src/
 * imports only the layers listed after it, and no file is part of an import cycle, type-only imports included.
 *
 *   main → cli → server → routes → mcp → http → workers → domain → db → runtime
 *                       ↘ jobs ↗
 *                       ↘ sandbox → http
 *
 * `server` is the composition root (it wires the store, the worker pool, the route table and the periodic jobs
 * together and listens); `workers` is the thread pool and its task table, which run domain code; `runtime` is what
 * every layer may use (assets, build facts, the logger).
 */
const LAYERS = {
  main: ["cli"],
  cli: ["server", "sandbox", "jobs", "routes", "mcp", "http", "workers", "domain", "db", "runtime"],
  server: ["sandbox", "jobs", "routes", "mcp", "http", "workers", "domain", "db", "runtime"],
  jobs: ["workers", "domain", "db", "runtime"],
  // Sandbox mode (src/sandbox/index.ts): mounted by the server, built on the pipeline; nothing below knows it.
  sandbox: ["http", "workers", "domain", "db", "runtime"],
  routes: ["mcp", "http", "workers", "domain", "db", "runtime"],
  mcp: ["http", "workers", "domain", "db", "runtime"],
  http: ["workers", "domain", "db", "runtime"],
  workers: ["domain", "db", "runtime"],
  domain: ["db", "runtime"],
  db: ["runtime"],
  runtime: [],
  // The web app runs in the browser: it reaches the server through HTTP only (its typed client), never its code.
  dashboard: [],
};

const layerPath = (name) => (name === "main" ? "^src/main\\.ts$" : `^src/${name}/`);

module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "A cycle makes two files one unit that cannot be read, tested or moved apart.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...Object.entries(LAYERS).map(([layer, allowed]) => ({
      name: `layer-${layer}`,
      comment: `src/${layer} may import only ${allowed.length ? allowed.join(", ") : "built-in and npm modules"}.`,
      severity: "error",
      from: { path: layerPath(layer) },
      to: {
        path: "^src/",
        pathNot: [layerPath(layer), ...allowed.map(layerPath)],
      },
    })),
    {
      name: "no-unknown-layer",
      comment: "Every file of src/ belongs to one of the layers above.",
      severity: "error",
      from: { path: "^src/", pathNot: Object.keys(LAYERS).map(layerPath) },
      to: {},
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
  },
};
