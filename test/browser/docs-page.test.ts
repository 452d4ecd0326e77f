/**
 * The API reference page in a real browser: Debian's chromium, driven by playwright-core (which never downloads a
 * browser of its own), opens /docs on a server started from source, and finds every operation of the description
 * rendered, and finalize found by the page's search (whose index runs in a blob: worker), while every request the
 * page makes goes to the server's own origin. Screenshots of the rendered page are written to the temp folder
 * (their paths are printed) for a person to look at.
 *
 * Without /usr/bin/chromium the test is skipped, with the reason in its name, except in CI (CI set), where that
 * is a failure: .ci/run installs the package.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServe, tempDir } from "../helpers/cli.js";

const CHROMIUM = "/usr/bin/chromium";
const present = existsSync(CHROMIUM);
const SCREENSHOTS = path.join(os.tmpdir(), "content-service-docs-page");

interface Description {
  paths: Record<string, Record<string, { operationId: string; summary: string }>>;
}

/**
 * What the page did: the URLs it asked for (workers included), each with how it ended ("ok", or the browser's error
 * such as net::ERR_BLOCKED_BY_CSP), those that reached the network, and the policy violations it reported.
 */
interface Visit {
  requests: { url: string; outcome: string }[];
  sent: string[];
  /** The titles Redoc's search (its index runs in a blob: worker) lists for "finalize". */
  searched: string[];
  violations: string[];
  sections: { id: string; title: string }[];
}

if (!present && process.env.CI) {
  it(`finds ${CHROMIUM} (CI: .ci/run installs Debian's chromium package)`, () => {
    expect.fail(`${CHROMIUM} is missing: the browser test of /docs cannot run`);
  });
} else if (!present) {
  it.skip(`/docs in a real browser: skipped, ${CHROMIUM} is absent (apt-get install chromium)`, () => {});
} else {
  describe("/docs in a real browser", () => {
    let server: ServerProcess;
    let browser: Browser;
    let description: Description;
    let visit: Visit;

    beforeAll(async () => {
      server = await startServe(tempDir());
      description = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as Description;
      browser = await chromium.launch({ executablePath: CHROMIUM });
      visit = await open(browser, `${server.url}/docs`);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      server?.child.kill("SIGTERM");
      await server?.exited;
    });

    it("renders every operation of the live description, by its summary", () => {
      const operations = Object.values(description.paths).flatMap((methods) => Object.values(methods));
      expect(operations.length).toBeGreaterThan(50);
      const rendered = new Map(visit.sections.map((s) => [s.id.replace(/^.*operation\//, ""), s.title]));
      expect(rendered.size).toBe(operations.length);
      for (const op of operations) expect(rendered.get(op.operationId), op.operationId).toBe(op.summary);
      const generate = description.paths["/api/v1/generate"]?.post;
      expect(rendered.get(generate?.operationId ?? "")).toBe(generate?.summary);
    });

    it("searches the operations: the index's worker runs under the page's policy", () => {
      const finalize = Object.values(description.paths)
        .flatMap((m) => Object.values(m))
        .find((op) => op.operationId === "finalizeContent");
      expect(
        visit.searched.some((t) => t.includes(finalize?.summary ?? "?")),
        visit.searched.join("\n"),
      ).toBe(true);
    });

    it("requests nothing from another origin, and breaks none of its policy", () => {
      const origin = new URL(server.url).origin;
      const fetched = visit.requests.filter((r) => r.outcome === "ok").map((r) => r.url);
      expect(fetched).toEqual(
        expect.arrayContaining([
          `${origin}/docs`,
          `${origin}/docs/redoc.standalone.js`,
          `${origin}/api/v1/openapi.json`,
        ]),
      );
      for (const url of visit.sent) expect(new URL(url).origin, url).toBe(origin);
      // Redoc's sidebar shows its logo from Redoc's CDN: the page's policy refuses it before it leaves the browser
      // (it is not among those sent), and nothing else is refused.
      const elsewhere = visit.requests.filter((r) => new URL(r.url).origin !== origin);
      expect(elsewhere).toEqual([{ url: "https://cdn.redoc.ly/redoc/logo-mini.svg", outcome: "csp" }]);
      expect(visit.violations).toEqual(["https://cdn.redoc.ly/redoc/logo-mini.svg img-src"]);
    });
  });
}

/** Opens the page, waits for Redoc to render the operations, writes the screenshots, then searches. */
async function open(browser: Browser, url: string): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const requests: { url: string; outcome: string }[] = [];
  context.on("requestfinished", (r) => requests.push({ url: r.url(), outcome: "ok" }));
  context.on("requestfailed", (r) => requests.push({ url: r.url(), outcome: r.failure()?.errorText ?? "failed" }));
  // Every request that leaves the browser for the network passes here; one for another origin is recorded and
  // refused, so that the test never depends on what the network would have answered.
  const sent: string[] = [];
  const origin = new URL(url).origin;
  await context.route("**/*", (r) => {
    sent.push(r.request().url());
    return new URL(r.request().url()).origin === origin ? r.continue() : r.abort("blockedbyclient");
  });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.blockedURI} ${e.violatedDirective}`));
  });
  await page.goto(url);
  // Each operation's section, under its tag (Redoc marks an inner element `operation/<id>` too).
  const selector = "[data-section-id^='tag/'][data-section-id*='/operation/']";
  await page.waitForSelector(selector, { timeout: 60_000 });
  await page.waitForLoadState("networkidle");
  const sections = await page.locator(selector).evaluateAll((els) =>
    els.map((e) => ({
      id: e.getAttribute("data-section-id") ?? "",
      title: e.querySelector("h2")?.textContent?.trim() ?? "",
    })),
  );
  await page.screenshot({ path: `${SCREENSHOTS}-top.png` });
  await page.locator("[data-section-id='tag/Generation/operation/generate']").scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENSHOTS}-generate.png` });
  console.log(`screenshots of /docs: ${SCREENSHOTS}-top.png, ${SCREENSHOTS}-generate.png`);
  await page.fill("input[placeholder='Search...']", "finalize");
  const results = page.locator("[data-role='search:results'] > li");
  // No result in time is the search test's failure (an empty list), not the other tests'.
  await results
    .first()
    .waitFor({ timeout: 30_000 })
    .catch(() => undefined);
  const searched = (await results.allTextContents()).map((t) => t.trim());
  const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  await context.close();
  return { requests, sent, searched, violations, sections };
}
