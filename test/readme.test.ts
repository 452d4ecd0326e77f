import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../src/domain/errors.js";
import type { RouteDef } from "../src/http/route.js";
import { ROUTES } from "../src/routes/index.js";
import { type ServerProcess, startServe, tempDir } from "./helpers/cli.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** The text of `file` between `<!-- name:start -->` and `<!-- name:end -->`. */
function marked(file: string, name: string): string {
  const text = read(file);
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  expect(start, `${file} has no ${name} markers`).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  return text.slice(start, end);
}

describe("docs/api.md", () => {
  it("documents exactly the error codes the server has, with their statuses", () => {
    const table = marked("docs/api.md", "error-codes");
    const rows = [...table.matchAll(/^\| (\d{3}) \| `(\w+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CODES);
  });
});

describe("docs/api.md's list of the operations kept from API keys", () => {
  const list = marked("docs/api.md", "session-only");
  const named = [...list.matchAll(/`(?:([A-Z]+) )?(\/[\w/{}*-]+)`/g)].map(([, method, p]) => ({ method, path: p }));
  /** Whether a listed entry (`PUT /me/settings`, or a whole folder as `/admin/*`) names the route. */
  const names = (entry: (typeof named)[number], route: RouteDef) =>
    entry.path.endsWith("/*")
      ? route.path.startsWith(`/api/v1${entry.path.slice(0, -1)}`)
      : route.method === entry.method && route.path === `/api/v1${entry.path}`;
  const kept = ROUTES.filter((route) => route.access === "session" || route.access === "admin");

  it.each(kept.map((route) => [`${route.method} ${route.path}`, route] as const))("names %s", (_, route) => {
    expect(named.some((entry) => names(entry, route))).toBe(true);
  });

  it("names no operation that an API key may call", () => {
    for (const entry of named)
      expect(
        kept.some((route) => names(entry, route)),
        entry.path,
      ).toBe(true);
  });
});

describe("the guide's pages", () => {
  const pages = [
    "README.md",
    "CHANGELOG.md",
    ...readdirSync(path.join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];

  it.each(pages)("%s links only to pages that exist", (page) => {
    for (const [, link] of read(page).matchAll(/\]\(([\w./-]+\.md)(#[\w-]*)?\)/g)) {
      const target = path.normalize(path.join(path.dirname(page), link));
      expect(existsSync(path.join(ROOT, target)), `${page} links ${link}`).toBe(true);
    }
  });
});

describe("README", () => {
  const readme = read("README.md");

  it("shows the install-and-start and test commands that .ci/run runs", () => {
    const ci = read(".ci/run");
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm test");
    expect(ci).toMatch(/^npm ci$/m);
    expect(ci).toMatch(/^(run_tests \w+ )?npm test$/m);
  });

  it("is a guide of at most 200 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(201);
  });

  describe("its walkthrough, run as written against a fresh server", () => {
    let server: ServerProcess;
    afterAll(() => server?.child.kill("SIGTERM"));

    it("succeeds at every request, learns the edit and publishes", { timeout: 120_000 }, async () => {
      server = await startServe(tempDir("cs-readme-"));
      const key = /API key [^:]*: (svc_live_\w+)/.exec(server.output())?.[1];
      expect(key, server.output()).toBeDefined();
      const blocks = [...marked("README.md", "walkthrough").matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
      const script = blocks
        .join("\n")
        .replace(/^KEY=.*$/m, `KEY=${key}`)
        .replace(/^BASE=.*$/m, `BASE=${server.url}/api/v1`);
      // Every curl fails the script on an error status, as set -e and pipefail fail it on any other step.
      const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n';
      const run = spawnSync("bash", ["-c", prelude + script], { encoding: "utf8", timeout: 90_000 });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('"from": "attic"');
      expect(run.stdout).toContain('"says_attic": false');
      expect(run.stdout).toContain('"says_loft": true');
      expect(run.stdout).toContain('"status": "published"');
      expect(run.stdout).toContain('"1/');
    });
  });
});
