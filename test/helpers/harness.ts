/** The test harness: the app on a fresh migrated in-memory database, with a manual clock and seeded fixtures. */

import type { Plan } from "../../src/db/accounts.js";
import { migrate } from "../../src/db/migrate.js";
import { type Db, openDb } from "../../src/db/open.js";
import { createStore, type Store } from "../../src/db/store.js";
import { createAccount, createUser, createWorkspace, issueKey } from "../../src/domain/admin.js";
import { type Clock, ManualClock } from "../../src/domain/clock.js";
import { hashPassword } from "../../src/domain/passwords.js";
import { inlineWriter, type StoreWriter } from "../../src/domain/writer.js";
import { type App, createApp } from "../../src/http/app.js";
import type { ServerConfig, Services } from "../../src/http/context.js";
import { buildOpenApi } from "../../src/http/openapi.js";
import { ROUTES } from "../../src/routes/index.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { createServices, DEFAULT_CONFIG } from "../../src/server/services.js";
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";
import { Contract, type OpenApiDocument } from "./contract.js";
import { harnessSchema, postgresForHarnesses, settleAtFileEnd } from "./postgres-harness.js";

/** Options of one request sent through the app. */
export interface Send {
  /** Bearer value: an API key secret or a session token. */
  auth?: string;
  body?: unknown;
  /** A raw body string (sent as is). */
  raw?: string;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

/** A response with its parsed JSON body. */
export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of bodies.
  body: any;
}

/** A fresh application with one business account (two workspaces), keys of every posture and users. */
export interface Harness {
  app: App;
  services: Services;
  /** The connection under the services' store, for tests that read or change rows the API does not show. */
  db: Db;
  clock: ManualClock;
  logger: ReturnType<typeof memoryLogger>;
  send(method: string, path: string, opts?: Send): Promise<Answer>;
  /** Issues a key; defaults: account A, read+write, unbound. */
  key(opts?: {
    account?: number;
    scopes?: string[];
    workspaceId?: string | null;
    expires?: "30d" | "90d" | "365d" | "never";
  }): string;
  login(email: string, password?: string): Promise<string>;
  a: { id: number; ws1: string; ws2: string };
  b: { id: number; ws: string };
  /** Creates an account with a plan, its own workspace and a key; returns the key. */
  accountWithPlan(plan: Plan): { id: number; key: string; ws: string };
}

const PASSWORD = "correct horse battery staple";

/**
 * The internal description (the public one and /admin/*), built from the same route table the harness serves: every
 * answer of an internal operation is checked against it as the public ones are.
 */
export const contract = new Contract(
  buildOpenApi(ROUTES, DEFAULT_CONFIG, { internal: true }) as unknown as OpenApiDocument,
);

/**
 * The contract check every in-process response goes through: a documented operation must answer a documented
 * status with a body of the documented schema, or the test fails (ContractError). Requests to no documented
 * operation (unknown routes, wrong methods, internal and test-only routes) are checked by their own tests. The
 * operation is the one the path names once read as a URL (WHATWG, as the server and every HTTP client library read
 * it): `/contents/%2e%2e` is `/api/v1/`, and `/memories/\` is `/memories//`, not a content or a memory with that id.
 */
export async function checkContract(method: string, path: string, res: Response): Promise<void> {
  const routed = new URL(path, "http://localhost").pathname;
  const template = contract.templateOf(routed);
  const documented = template && contract.document.paths[template]?.[method.toLowerCase() as "get"];
  if (documented) await contract.check(method, routed, res);
}

/** Reads a response to its end: its body parsed as JSON, or the text itself where it is not JSON. */
export async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Sends a request through any app built over the harness's services (same store, limiter, clock). */
export async function sendTo(
  app: { handle(request: Request, env?: { remoteAddress?: string }): Promise<Response> },
  method: string,
  path: string,
  opts: Send & { bytes?: Uint8Array | ReadableStream<Uint8Array> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth !== undefined) headers.authorization = `Bearer ${opts.auth}`;
  let body = (opts.bytes ?? opts.raw) as BodyInit | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const init: RequestInit & { duplex?: "half" } = { method, headers, body };
  if (body instanceof ReadableStream) init.duplex = "half";
  const res = await app.handle(new Request(`http://test.local${path}`, init), {
    remoteAddress: opts.remoteAddress ?? "127.0.0.1",
  });
  // Probe apps serve routes the description does not have; only the real route table is held to it.
  if ((app as { routes?: unknown }).routes === ROUTES) await checkContract(init.method ?? "GET", path, res);
  return answerOf(res);
}

/**
 * The harness's database: the data directory's file when one is given, else a fresh one in memory, or a fresh
 * schema of the file's PostgreSQL database in the "postgres" project (postgres-harness.ts). There `db` is a
 * PostgreSQL connection typed as SQLite's: what a route test runs through it must be SQL both engines take.
 */
function harnessDatabase(dataDir: string | undefined): Db {
  const postgres = dataDir === undefined ? postgresForHarnesses() : undefined;
  if (postgres) return harnessSchema(postgres, (db) => migrate(db)) as unknown as Db;
  const db = openDb(dataDir ?? ":memory:");
  migrate(db);
  return db;
}

/** Builds a harness. */
export function makeHarness(
  options: {
    config?: Partial<ServerConfig>;
    pool?: WorkerPool;
    /** The services' writer made from the default one (which writes on this thread). */
    writer?: (inline: StoreWriter) => StoreWriter;
    /** A data directory whose database file the harness opens (default: a database in memory). */
    dataDir?: string;
    /** The services' clock made from the harness's ManualClock (sandbox mode's test clock runs on it). */
    clock?: (manual: ManualClock) => Clock;
  } = {},
): Harness {
  const db = harnessDatabase(options.dataDir);
  const manual = new ManualClock();
  const clock = options.clock?.(manual) ?? manual;
  const logger = memoryLogger();
  const pool = options.pool ?? inlinePool();
  const writer = options.writer?.(inlineWriter(createStore(db)));
  const services = createServices({ db, clock, logger, pool, config: options.config, writer });
  const app = createApp(services, ROUTES);
  settleAtFileEnd(async () => {
    await services.graph.idle();
    await services.learning.idle();
  });
  const store = services.store;
  const hash = hashPassword(PASSWORD);

  const A = createAccount(store, "test", "Account A", "business", clock.now());
  const ws2 = createWorkspace(store, "test", A.account.id, "Second", false, clock.now());
  createUser(store, "test", A.account.id, "admin@a.test", hash, "admin", clock.now());
  createUser(store, "test", A.account.id, "member@a.test", hash, "member", clock.now());
  const B = createAccount(store, "test", "Account B", "agency", clock.now());
  createUser(store, "test", B.account.id, "admin@b.test", hash, "admin", clock.now());

  const send = (method: string, path: string, opts?: Send) => sendTo(app, method, path, opts);

  return {
    app,
    services,
    db,
    clock: manual,
    logger,
    send,
    key(opts = {}) {
      return issueKey(
        store,
        "test",
        {
          accountId: opts.account ?? A.account.id,
          name: "test key",
          scopes: opts.scopes,
          workspaceId: opts.workspaceId === undefined ? null : opts.workspaceId,
          expires: opts.expires,
        },
        clock.now(),
      ).secret;
    },
    async login(email: string, password = PASSWORD) {
      const res = await send("POST", "/api/v1/auth/login", { body: { email, password } });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    a: { id: A.account.id, ws1: A.workspace.id, ws2: ws2.id },
    b: { id: B.account.id, ws: B.workspace.id },
    accountWithPlan(plan: Plan) {
      const created = createAccount(store, "test", `Account ${plan}`, plan, clock.now());
      const key = issueKey(store, "test", { accountId: created.account.id, name: "k" }, clock.now()).secret;
      return { id: created.account.id, key, ws: created.workspace.id };
    },
  };
}

/** Fills `{param}` placeholders of a route path with sample values. */
export function samplePath(path: string, values: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? (name === "id" ? "1" : "x1"));
}

/** Stores a plain-text reference material straight into the database (no passages, no graph touch). */
export function storeReference(
  store: Store,
  o: { accountId: number; workspaceId: string; content: string; now: string },
) {
  return store.references.create({
    accountId: o.accountId,
    workspaceId: o.workspaceId,
    title: "t",
    content: o.content,
    sourceType: "text",
    wordCount: o.content.split(/\s+/).length,
    passages: [],
    now: o.now,
  });
}
