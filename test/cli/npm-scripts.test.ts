/**
 * `npm start` and `npm run -s cli -- serve` (the README's ways to run from source): a SIGTERM to npm reaches the server,
 * which drains and stops. npm runs a script through `sh -c`, which does not pass the signal on; the scripts `exec`.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { tempDir, untilListening } from "../helpers/cli.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

it("a SIGTERM to `npm run cli -- serve`, also sent twice, stops the server it started after its drain", async () => {
  const dir = tempDir();
  const npm = spawn("npm", ["run", "--silent", "cli", "--", "serve", "--data-dir", dir, "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const server = await untilListening(npm);
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  npm.kill("SIGTERM");
  // A second one (as `timeout` sends): nothing between npm and the server may turn it into a SIGKILL.
  setTimeout(() => npm.kill("SIGTERM"), 20);
  expect((await server.exited).code, server.output()).toBe(0);
  expect(server.output()).toMatch(/stopped\n$/);
  // Nothing is left answering on the port.
  await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
}, 60_000);
