/**
 * The vitest example of docs/sandbox.md ("From a test") runs as it is written: its code block is copied out and run
 * by a vitest of its own, with `content-service` on the PATH being this source tree's launcher (bin/). A change of
 * the sandbox that breaks what the docs tell a user to write fails here.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The first ```ts block after the heading `## From a test`. */
function docsExample(): string {
  const doc = readFileSync(path.join(ROOT, "docs/sandbox.md"), "utf8");
  const section = doc.slice(doc.indexOf("## From a test"));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("docs/sandbox.md has no ts block under ## From a test");
  return block[1];
}

it("the docs' vitest example passes against serve --sandbox", () => {
  const work = mkdtempSync(path.join(tmpdir(), "cs-docs-example-"));
  try {
    // Inside the repository so that vitest resolves from its node_modules; a config of its own includes only it.
    const dir = mkdtempSync(path.join(ROOT, "test", ".docs-example-"));
    try {
      writeFileSync(path.join(dir, "sandbox.example.ts"), docsExample());
      writeFileSync(
        path.join(dir, "vitest.config.mjs"),
        `export default { test: { include: ["${dir}/sandbox.example.ts"], testTimeout: 60000, hookTimeout: 60000 } };\n`,
      );
      const bin = path.join(work, "bin");
      mkdirSync(bin);
      writeFileSync(path.join(bin, "content-service"), `#!/bin/sh\nexec node ${ROOT}/bin/content-service.js "$@"\n`);
      chmodSync(path.join(bin, "content-service"), 0o755);
      const run = spawnSync("npx", ["vitest", "run", "--config", path.join(dir, "vitest.config.mjs")], {
        cwd: ROOT,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CONTENT_SERVICE_SANDBOX: undefined },
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}, 150_000);
