import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../src/http/errors.js";

const ROOT = path.resolve(import.meta.dirname, "..");

describe("README", () => {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

  it("documents exactly the error codes the server has, with their statuses", () => {
    const table = readme.split("<!-- error-codes:start -->")[1].split("<!-- error-codes:end -->")[0];
    const rows = [...table.matchAll(/^\| (\d{3}) \| `(\w+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CODES);
  });

  it("shows the install-and-start and test commands that .ci/run runs", () => {
    const ci = readFileSync(path.join(ROOT, ".ci/run"), "utf8");
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm test");
    expect(ci).toMatch(/^npm ci$/m);
    expect(ci).toMatch(/^(run_tests \w+ )?npm test$/m);
  });
});
