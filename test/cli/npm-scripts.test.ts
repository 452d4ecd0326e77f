/**
 * `npm start` and `npm run cli -- serve` (the README's way to run from source): a SIGTERM to npm reaches the server,
 * which drains and stops. npm runs a script through `sh -c`, which does not pass the signal on; the scripts `exec`.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { tempDir } from "../helpers/cli.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

it("a SIGTERM to `npm run cli -- serve`, also sent twice, stops the server it started after its drain", async () => {
  const dir = tempDir();
  const npm = spawn("npm", ["run", "--silent", "cli", "--", "serve", "--data-dir", dir, "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  npm.stdout!.on("data", (d) => {
    out += d;
  });
  npm.stderr!.on("data", (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(m[1]);
      }
    }, 50);
    exited.then(() => {
      clearInterval(timer);
      reject(new Error(`npm exited before the server listened:\n${out}`));
    });
  });
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  npm.kill("SIGTERM");
  // A second one (as `timeout` sends): nothing between npm and the server may turn it into a SIGKILL.
  setTimeout(() => npm.kill("SIGTERM"), 20);
  expect(await exited, out).toBe(0);
  expect(out).toMatch(/stopped\n$/);
  // Nothing is left answering on the port.
  await expect(fetch(`${url}/healthz`)).rejects.toThrow();
}, 60_000);
