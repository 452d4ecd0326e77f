/**
 * What the dashboard's browser tests share: a server started from source (or the executable, E2E), Debian's chromium
 * driven by playwright-core (which never downloads a browser of its own), the people and accounts a test needs made
 * through the admin API, and the checks every page gets: an axe-core pass (no serious or critical violation) and a
 * record of every request the page made (none to another origin) and every error it logged.
 *
 * Without /usr/bin/chromium the tests are skipped, with the reason in their name, except in CI (CI set), where that is
 * a failure: .ci/run installs the package.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, type Page, type Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type ServerProcess, startServe, tempDir, untilListening } from "../../helpers/cli.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../chromium.js";

export { CHROMIUM };

/** Where every screenshot goes, for a person to look at. */
export const SCREENSHOTS = path.join(os.tmpdir(), "content-service-dashboard");

/**
 * The screenshots docs/dashboard.md shows: with DASHBOARD_SCREENSHOTS set (to docs/screenshots), these are written
 * there too, so that a run of the browser tests refreshes the docs' pictures and adds nothing else.
 */
const DOCUMENTED = new Set([
  "sign-in",
  "content-list",
  "content-editor",
  "content-learning",
  "content-editor-375",
  "calendar",
  "library",
  "voice",
  "usage",
  "keys",
  "keys-secret",
  "workspaces",
  "admin",
]);

/** A describe block that runs in the browser, or a skip (a failure in CI) saying chromium is missing. */
export function describeInBrowser(title: string, body: () => void): void {
  if (existsSync(CHROMIUM)) describe(title, body);
  else if (process.env.CI)
    it(`finds ${CHROMIUM} for "${title}" (CI: .ci/run installs Debian's chromium package)`, () => {
      expect.fail(`${CHROMIUM} is missing: the dashboard's browser tests cannot run`);
    });
  else it.skip(`${title}: skipped, ${CHROMIUM} is absent (apt-get install chromium)`, () => {});
}

/** A person who can sign in. */
export interface Person {
  email: string;
  password: string;
  accountId: number;
}

/** A running server with its first start's admin and key, and a browser. */
export interface Dashboard {
  url: string;
  server: ServerProcess;
  browser: Browser;
  admin: Person;
  /** The first start's read+write API key. */
  apiKey: string;
  close(): Promise<void>;
}

function firstStartOf(output: string): { admin: Person; apiKey: string } {
  const login = /admin login: (\S+) \/ password (\S+)/.exec(output);
  const key = /API key \(read, write; shown once\): (svc_live_\S+)/.exec(output);
  if (!login || !key) throw new Error(`the first start printed no credentials:\n${output}`);
  return { admin: { email: login[1], password: login[2], accountId: 1 }, apiKey: key[1] };
}

/**
 * Starts a server on a new data folder: from source, or the executable at `executable`, run as the end-to-end tests
 * run it (its own folder, nothing of this repository in reach). Resolves once its start lines are all printed (the
 * first start's credentials come after the listening line).
 */
export async function startServer(options: { executable?: string; extra?: string[] } = {}): Promise<ServerProcess> {
  const dir = tempDir("cs-dashboard-");
  let server: ServerProcess;
  if (options.executable) {
    const child = spawn(options.executable, ["serve", "--data-dir", dir, "--port", "0", ...(options.extra ?? [])], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: dir, CONTENT_SERVICE_CACHE_DIR: path.join(dir, "cache") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server = await untilListening(child);
  } else server = await startServe(dir, options.extra ?? []);
  for (let i = 0; i < 200 && !server.output().includes("API reference:"); i++)
    await new Promise((r) => setTimeout(r, 25));
  return server;
}

/** Starts a server (startServer) and chromium, with the first start's admin and key. */
export async function startDashboard(options: { executable?: string; extra?: string[] } = {}): Promise<Dashboard> {
  const server = await startServer(options);
  const { admin, apiKey } = firstStartOf(server.output());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return {
    url: server.url,
    server,
    browser,
    admin,
    apiKey,
    async close() {
      await browser.close();
      server.child.kill("SIGTERM");
      await server.exited;
    },
  };
}

/** A call to the API from the test itself (to set up or to check what the page did). */
export async function call(
  d: Dashboard,
  method: string,
  apiPath: string,
  options: { auth?: string; body?: unknown } = {},
  // The tests read the fields they set up and check; the contract of every answer is the route suites' to check.
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer of any operation.
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (options.auth) headers.authorization = `Bearer ${options.auth}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${d.url}${apiPath}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A web session's token for a person (POST /auth/login). */
export async function sessionOf(d: Dashboard, person: Person = d.admin): Promise<string> {
  const res = await call(d, "POST", "/api/v1/auth/login", { body: { email: person.email, password: person.password } });
  if (res.status !== 200) throw new Error(`login ${person.email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

let made = 0;

/** A new account with the given plan (one default workspace) and its admin, made by the first start's admin. */
export async function newAccount(d: Dashboard, plan = "business", role: "admin" | "member" = "admin"): Promise<Person> {
  const admin = await sessionOf(d);
  made++;
  const account = await call(d, "POST", "/api/v1/admin/accounts", {
    auth: admin,
    body: { name: `Team ${made}`, plan },
  });
  if (account.status !== 201) throw new Error(`account: ${account.status} ${JSON.stringify(account.body)}`);
  return newPerson(d, account.body.id, role);
}

/** A new person in an account (the first start's is 1). */
export async function newPerson(d: Dashboard, accountId: number, role: "admin" | "member" = "member"): Promise<Person> {
  const admin = await sessionOf(d);
  made++;
  const person = { email: `person${made}@example.test`, password: `password-${made}-long-enough`, accountId };
  const res = await call(d, "POST", "/api/v1/admin/users", {
    auth: admin,
    body: { account_id: accountId, email: person.email, role, password: person.password },
  });
  if (res.status !== 201) throw new Error(`user: ${res.status} ${JSON.stringify(res.body)}`);
  return person;
}

/** A browser page and what it did: the URLs it asked for, the errors it logged (policy violations among them). */
export interface Visit {
  page: Page;
  context: BrowserContext;
  requests: string[];
  errors: string[];
}

/** How openPage opens a page: its viewport (1440 × 900 unless given) and the browser's time zone (the machine's). */
export interface PageOptions {
  width?: number;
  height?: number;
  /** An IANA zone (`Pacific/Kiritimati`), for pages that must not read a day through the browser's own zone. */
  timezoneId?: string;
}

/** A new page (its own context: no shared state) at a size, recording its requests and errors. */
export async function openPage(d: Dashboard, options: PageOptions = {}): Promise<Visit> {
  const context = await d.browser.newContext({
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
    timezoneId: options.timezoneId,
    permissions: ["clipboard-read", "clipboard-write"],
  });
  const page = await context.newPage();
  const visit: Visit = { page, context, requests: [], errors: [] };
  page.on("request", (request) => visit.requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") visit.errors.push(message.text());
  });
  page.on("pageerror", (error) => visit.errors.push(error.message));
  return visit;
}

/** Requests a test holds back: `release` lets them reach the server, `stop` takes the hold off the page. */
export interface HeldRequests {
  release(): void;
  stop(): Promise<void>;
}

/**
 * Holds the page's requests to `url` (a glob, `**\/api/v1/contents`), those of `method` alone when it is given, until
 * the test calls `release`: what a page shows while its request runs is then seen for certain, not raced.
 */
export async function holdRequests(page: Page, url: string, method?: string): Promise<HeldRequests> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hold = async (route: Route) => {
    if (!method || route.request().method() === method) await held;
    await route.continue();
  };
  await page.route(url, hold);
  return { release, stop: () => page.unroute(url, hold) };
}

/** The requests of a visit that went anywhere but the server (none should: the page loads nothing from elsewhere). */
export function foreignRequests(d: Dashboard, visit: Visit): string[] {
  const origin = new URL(d.url).origin;
  return visit.requests.filter(
    (url) => !url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin,
  );
}

/** Opens the dashboard at a page (`#/keys`) and signs in there as the person. */
export async function signIn(
  d: Dashboard,
  visit: Visit,
  person: Person = d.admin,
  fragment = "#/contents",
): Promise<void> {
  const { page } = visit;
  await page.goto(`${d.url}/${fragment}`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One axe-core violation, as the tests report it. */
export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now. axe is evaluated through
 * the DevTools protocol, which the page's policy does not govern (an injected <script> would be refused by it).
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    interface AxeViolation {
      id: string;
      impact?: string;
      help: string;
      nodes: { target: string[] }[];
    }
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? "",
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Saves a screenshot of the page under SCREENSHOTS (and the docs' folder: DOCUMENTED) and answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const docs = process.env.DASHBOARD_SCREENSHOTS;
  if (docs && DOCUMENTED.has(name)) {
    mkdirSync(docs, { recursive: true });
    copyFileSync(file, path.join(docs, `${name}.png`));
  }
  return file;
}
