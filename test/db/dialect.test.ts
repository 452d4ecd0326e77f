/**
 * The query modules' SQL on both engines (src/db/dialect.ts). The texts the store gives a PostgreSQL connection use
 * none of SQLite's own forms; and on a real PostgreSQL (CONTENT_SERVICE_TEST_DATABASE_URL, as .ci/run sets it)
 * every one of them prepares, and every statement a store call runs answers there what it answers on SQLite over the
 * same rows. The PostgreSQL tables are made here from the migrated SQLite schema (same tables, columns and keys;
 * integers as BIGINT, texts COLLATE "C"), without its triggers: the rows they keep are copied in.
 *
 * Without the variable the PostgreSQL part is skipped, with the reason in its name, except in CI (CI set), where
 * that is a failure.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqlConnection } from "../../src/db/connection.js";
import type { ContentFilter } from "../../src/db/contents.js";
import { isPostgres, sqlFor } from "../../src/db/dialect.js";
import { hasFirstAccount } from "../../src/db/first-account.js";
import { migrate } from "../../src/db/migrate.js";
import { type Db, openDb } from "../../src/db/open.js";
import { recountUnknownStorage } from "../../src/db/storage.js";
import { createStore, type Store } from "../../src/db/store.js";

const DATABASE_URL = process.env.CONTENT_SERVICE_TEST_DATABASE_URL;

/** One statement call: its text, how it was called, its parameters, and (on SQLite) what it answered. */
interface Call {
  sql: string;
  method: "get" | "all" | "run" | "iterate";
  params: unknown[];
  pluck: boolean;
  result?: unknown;
}

/** A PostgreSQL-dialect connection that runs nothing: each call is recorded and answered from `answers`, in order. */
function replaying(answers: Call[] = []) {
  const calls: Call[] = [];
  const texts = new Set<string>();
  const prepare = (sql: string) => {
    texts.add(sql);
    let pluck = false;
    const call =
      (method: Call["method"]) =>
      (...params: unknown[]) => {
        const answer = answers[calls.length]?.result;
        calls.push({ sql, method, params, pluck });
        return method === "iterate" ? ((answer as unknown[] | undefined) ?? [])[Symbol.iterator]() : answer;
      };
    const stmt = {
      get: call("get"),
      all: (...params: unknown[]) => call("all")(...params) ?? [],
      run: (...params: unknown[]) => call("run")(...params) ?? { changes: 0, lastInsertRowid: 0 },
      iterate: call("iterate"),
      pluck(toggle = true) {
        pluck = toggle;
        return stmt;
      },
    };
    return stmt;
  };
  const transaction = (fn: (...a: unknown[]) => unknown) =>
    Object.assign((...a: unknown[]) => fn(...a), { deferred: fn, immediate: fn });
  const db = { dialect: "postgres", inTransaction: false, prepare, transaction } as unknown as SqlConnection;
  return { db, calls, texts };
}

/** A SQLite connection whose statement calls are recorded with their answers. */
function recording(db: Db) {
  const calls: Call[] = [];
  const prepare = (sql: string) => {
    const real = db.prepare(sql);
    let pluck = false;
    const call =
      (method: Call["method"]) =>
      (...params: unknown[]) => {
        const raw = method === "iterate" ? [...real.iterate(...params)] : real[method](...params);
        calls.push({ sql, method, params, pluck, result: raw });
        return method === "iterate" ? (raw as unknown[])[Symbol.iterator]() : raw;
      };
    const stmt = {
      get: call("get"),
      all: call("all"),
      run: call("run"),
      iterate: call("iterate"),
      pluck(toggle = true) {
        pluck = toggle;
        real.pluck(toggle);
        return stmt;
      },
    };
    return stmt;
  };
  const connection = {
    prepare,
    transaction: (fn: (...a: unknown[]) => unknown) => db.transaction(fn),
    get inTransaction() {
      return db.inTransaction;
    },
  } as unknown as SqlConnection;
  return { db: connection, calls };
}

/** Every filter combination of the contents list (as test/db/list-plans.test.ts walks them). */
function contentFilters(workspaceId: string): ContentFilter[] {
  const filters: ContentFilter[] = [];
  for (const status of [undefined, "draft", "published"] as const)
    for (const plannedFrom of [undefined, "2030-06-01"])
      for (const plannedTo of [undefined, "2030-06-30"])
        for (const overdue of [{}, { overdueBefore: "2030-06-15" }, { notOverdueOn: "2030-06-15" }])
          filters.push({ workspaceId, status, plannedFrom, plannedTo, ...overdue, afterId: 0, limit: 50 });
  return filters;
}

/** Every text the store, the list and the setup checks prepare on a PostgreSQL connection. */
function postgresTexts(): string[] {
  const { db, texts } = replaying();
  const store = createStore(db);
  for (const f of contentFilters("w")) [...store.contents.list(f)];
  store.graph.nodes("w", "proper_noun", 5, { mentions: 2, id: "a" });
  hasFirstAccount(db);
  recountUnknownStorage(db);
  return [...texts];
}

/** SQLite's own forms, each with what PostgreSQL says instead (src/db/dialect.ts). */
const SQLITE_ONLY: [RegExp, string][] = [
  [/\bINDEXED BY\b/i, "no index hints"],
  [/\bjson_(each|group_array|object)\b/i, "json_array_elements_text, json_agg"],
  [/\binstr\(/i, "strpos"],
  [/\bGLOB\b/i, "a regular expression"],
  [/\bsqlite_\w+/i, "to_regclass"],
  [/\bINSERT OR\b/i, "ON CONFLICT"],
  [/\browid\b/i, "the primary key"],
  [/\bCOLLATE NOCASE\b/i, "lower()"],
  [/\b(IFNULL|total_changes|typeof)\(|\bPRAGMA\b/i, "coalesce, pg_typeof"],
  [/\bLIMIT -1\b/i, "no LIMIT"],
  [/\bIS [@:$?]/i, "IS NOT DISTINCT FROM"],
];

describe("the query modules' SQL", () => {
  it("tells the engines apart by the connection's dialect", () => {
    const sqlite = openDb(":memory:");
    const { db: postgres } = replaying();
    expect([isPostgres(sqlite), isPostgres(postgres)]).toEqual([false, true]);
    expect(sqlFor(sqlite, { sqlite: "a", postgres: "b" })).toBe("a");
    expect(sqlFor(postgres, { sqlite: "a", postgres: "b" })).toBe("b");
  });

  it("gives a PostgreSQL connection none of SQLite's own forms", () => {
    const texts = postgresTexts();
    expect(texts.length).toBeGreaterThan(150);
    const found = texts.flatMap((sql) =>
      SQLITE_ONLY.filter(([form]) => form.test(sql)).map(([form, instead]) => `${form} (use ${instead}):\n${sql}`),
    );
    expect(found).toEqual([]);
  });
});

/** A statement's text and parameters as PostgreSQL takes them: `$n` for `?` and for each name (`@x`, `:x`, `$x`). */
function toPostgres(sql: string, params: unknown[]): { text: string; values: unknown[] } {
  const named =
    params.length === 1 && typeof params[0] === "object" && params[0] !== null && !Buffer.isBuffer(params[0]);
  const names: string[] = [];
  let positional = 0;
  const text = sql.replace(/'(?:[^']|'')*'|"[^"]*"|::|[@:$][A-Za-z_]\w*|\?/g, (token) => {
    if (token.startsWith("'") || token.startsWith('"') || token === "::") return token;
    if (token === "?") return `$${++positional}`;
    const name = token.slice(1);
    if (!names.includes(name)) names.push(name);
    return `$${names.indexOf(name) + 1}`;
  });
  const values = named ? names.map((n) => (params[0] as Record<string, unknown>)[n] ?? null) : params;
  return { text, values };
}

/**
 * The PostgreSQL tables of the migrated SQLite schema: columns with their defaults (all literals), primary keys and
 * unique indexes; no triggers.
 */
function tablesOf(db: Db): { name: string; columns: string[]; ddl: string[] }[] {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
    .pluck()
    .all() as string[];
  return tables.map((name) => {
    const cols = db.prepare(`SELECT * FROM pragma_table_xinfo('${name}')`).all() as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const keys = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const typeOf = (t: string) =>
      /INT/i.test(t) ? "BIGINT" : /BLOB/i.test(t) ? "BYTEA" : /REAL/i.test(t) ? "DOUBLE PRECISION" : 'TEXT COLLATE "C"';
    const defs = cols.map((c) => {
      const identity =
        keys.length === 1 && c.pk === 1 && typeOf(c.type) === "BIGINT" ? " GENERATED BY DEFAULT AS IDENTITY" : "";
      const fallback = c.dflt_value === null ? "" : ` DEFAULT ${c.dflt_value}`;
      return `"${c.name}" ${typeOf(c.type)}${c.notnull ? " NOT NULL" : ""}${fallback}${identity}`;
    });
    if (keys.length) defs.push(`PRIMARY KEY (${keys.map((c) => `"${c.name}"`).join(", ")})`);
    const ddl = [`CREATE TABLE "${name}" (${defs.join(", ")})`];
    const indexes = db.prepare(`SELECT * FROM pragma_index_list('${name}')`).all() as {
      name: string;
      unique: number;
      origin: string;
    }[];
    for (const index of indexes.filter((i) => i.unique && i.origin !== "pk")) {
      const on = db.prepare(`SELECT name FROM pragma_index_info('${index.name}')`).pluck().all() as string[];
      const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(index.name) as string | null;
      const where = sql && /\bWHERE\b(.*)$/is.exec(sql)?.[1];
      ddl.push(
        `CREATE UNIQUE INDEX "${index.name}_pg" ON "${name}" (${on.map((c) => `"${c}"`).join(", ")})${where ? ` WHERE ${where}` : ""}`,
      );
    }
    return { name, columns: cols.map((c) => c.name), ddl };
  });
}

/** A SQLite store with rows of every kind a read below looks at, in account 1 and its two workspaces. */
function seeded(db: Db): { store: Store; ws: string; other: string } {
  const store = createStore(db);
  const now = "2030-06-15T08:00:00.000Z";
  const account = store.accounts.create("A", "business", now);
  const ws = store.workspaces.create(account.id, "One", false, now).id;
  const other = store.workspaces.create(account.id, "Two", false, now).id;
  store.users.create(account.id, "ann@a.test", "h", "admin", now);
  // Stored before addresses were kept in NFC: found only through the non-ASCII scan.
  db.prepare(
    "INSERT INTO users (id, account_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(900, account.id, "rene\u0301@a.test", "h", "member", now);
  store.apiKeys.create({
    id: "key_1",
    accountId: account.id,
    name: "k",
    keyHash: "hash1",
    displayPrefix: "cs_",
    scopes: ["read"],
    workspaceId: ws,
    expiresAt: "2031-01-01T00:00:00.000Z",
    createdAt: now,
    createdByUserId: null,
    replacesKeyId: null,
  });
  for (const [name, category, description] of [
    ["Weekly Digest", "Newsletter", "A WEEKLY round-up"],
    ["Élan Launch", "Produit", "Lancement du ÉTÉ"],
  ])
    store.templates.create({
      accountId: account.id,
      name,
      category,
      description,
      format: "article",
      sections: [{ key: "hook", heading: null, role: "hook", words: 50, instruction: "Open." }],
      targetWords: 50,
      tone: "informative",
      createdAt: now,
    });
  for (const [kind, title] of [
    ["voice", "Tone"],
    ["context", "Facts"],
    ["voice", "Words"],
  ] as const)
    store.memories.create({ accountId: account.id, workspaceId: ws, kind, title, content: `${title}.`, now });
  const references = [1, 2, 3].map(
    (i) =>
      store.references.create({
        accountId: account.id,
        workspaceId: ws,
        title: `Ref ${i}`,
        content: `Text ${i}`,
        sourceType: "text",
        wordCount: 2,
        passages: [
          { text: `Passage ${i}a`, wordCount: 2 },
          { text: `Passage ${i}b`, wordCount: 2 },
        ],
        now,
      }).id,
  );
  const days = [null, "2030-05-31", "2030-06-10", "2030-06-15", "2030-07-01"];
  const statuses = ["draft", "generated", "finalized", "published"] as const;
  const contents: number[] = [];
  for (const day of days)
    for (const status of statuses)
      for (const workspaceId of [ws, ws, other]) {
        const row = store.contents.create({
          accountId: account.id,
          workspaceId,
          templateId: null,
          title: "t",
          content: `text ${contents.length}`,
          status: status === "published" ? "finalized" : status,
          now,
        });
        contents.push(row.id);
        if (day) store.contents.schedule(row.id, day, day, now);
        if (status === "published") store.contents.publish(row.id, now);
      }
  for (const [posts, subject] of [
    [null, null],
    [["a", "b"], null],
    [null, "Hello"],
  ] as const)
    store.conversions.create({
      accountId: account.id,
      workspaceId: ws,
      contentId: contents[0]!,
      targetFormat: posts ? "social_thread" : "email",
      output: "out",
      posts: posts && [...posts],
      subject,
      now,
    });
  const entity = (id: string, label: string, mentions: number) => ({
    id,
    label,
    type: label[0] === label[0]!.toUpperCase() ? ("proper_noun" as const) : ("key_phrase" as const),
    mentions,
  });
  for (const [i, id] of references.entries())
    store.graph.saveDocument(
      ws,
      { kind: "reference", id, version: 0 },
      {
        entities: [
          entity("acme", "Acme", 3 + i),
          entity("acme widgets", "Acme Widgets", 2),
          entity("widget", "widget", 2),
          entity(`solo${i}`, `Solo ${i}`, 1),
        ],
        pairs: [
          { source: "acme", target: "widget", weight: 2 },
          { source: "acme", target: `solo${i}`, weight: 1 },
        ],
      },
      now,
    );
  for (const [key, expires] of [
    ["k1", "2030-06-14T00:00:00.000Z"],
    ["k2", "2030-06-16T00:00:00.000Z"],
    ["k3", "2030-06-13T00:00:00.000Z"],
  ])
    store.idempotency.save({
      account_id: account.id,
      caller: "key_1",
      idempotency_key: key!,
      fingerprint: "f",
      status: 201,
      headers: "{}",
      body: Buffer.from([0, 1, 2, 255]),
      body_kept: 1,
      created_at: now,
      expires_at: expires!,
    });
  store.learning.enqueue({
    id: "job_1",
    accountId: account.id,
    workspaceId: ws,
    contentId: contents[0]!,
    input: {},
    now,
  });
  store.signInBackoff.put({ subject: "email:ann@a.test", failures: 2, last_failure_ms: 10, blocked_until_ms: 20 });
  store.signInBackoff.put({
    subject: "email:ann@a.test addr:1.2.3.4",
    failures: 1,
    last_failure_ms: 10,
    blocked_until_ms: 0,
  });
  return { store, ws, other };
}

/** The store calls compared on both engines, each over the rows `seeded` made. */
function storeCalls(ws: string, other: string): [string, (s: Store) => unknown][] {
  return [
    ["accounts", (s) => [s.accounts.list(), s.accounts.any()]],
    ["api keys", (s) => [s.apiKeys.list(1), s.apiKeys.byHash("hash1"), s.apiKeys.countActive(1, "2030-06-15")]],
    ["users by email, NFC and not", (s) => [s.users.byEmail("ann@a.test"), s.users.byEmail("ren\u00e9@a.test")]],
    ["workspaces", (s) => [s.workspaces.listByAccount(1), s.workspaces.holdings(ws), s.workspaces.page(1, "", 5)]],
    [
      "templates by category and text, capitals and not",
      (s) => [
        s.templates.list({ accountId: 1, afterId: 0, limit: 50 }),
        s.templates.list({ accountId: 1, category: "NEWSLETTER", afterId: 0, limit: 50 }),
        s.templates.list({ accountId: 1, q: "Weekly ROUND", afterId: 0, limit: 50 }),
        s.templates.list({ accountId: 1, q: "du ÉTÉ", afterId: 0, limit: 50 }),
        s.templates.list({ accountId: 1, q: "du été", afterId: 0, limit: 50 }),
        s.templates.ownByName(1, "weekly DIGEST"),
        s.templates.ownByName(1, "élan launch"),
        s.templates.countOwn(1),
      ],
    ],
    [
      "memories by ids, in the order asked",
      (s) => [
        s.memories.byIds(1, [3, 1, 99, 2, 3]),
        s.memories.presentIds(1, [2, 77]),
        s.memories.list({ workspaceId: ws, kind: "voice", afterId: 0, limit: 9 }),
      ],
    ],
    [
      "references by ids and their passages",
      (s) => [
        s.references.byIds(1, [3, 1]),
        s.references.passagesOf([2, 1]),
        [...s.references.list({ workspaceId: ws, afterId: 0, limit: 9 })],
      ],
    ],
    ["contents by every filter", (s) => contentFilters(ws).map((f) => [...s.contents.list(f)].map((r) => r.id))],
    [
      "conversions alike, with and without posts and subject",
      (s) =>
        [
          ["email", null, null],
          ["social_thread", ["a", "b"], null],
          ["email", null, "Hello"],
          ["email", null, "Other"],
        ].map(([targetFormat, posts, subject]) =>
          s.conversions.sameAs({
            accountId: 1,
            workspaceId: ws,
            contentId: 1,
            targetFormat: targetFormat as "email",
            output: "out",
            posts: posts as string[] | null,
            subject: subject as string | null,
            now: "",
          }),
        ),
    ],
    [
      "graph nodes, pages and sources",
      (s) => [
        s.graph.nodes(ws, null, 3),
        s.graph.nodes(ws, null, 3, { mentions: 2, id: "acme widgets" }),
        s.graph.nodes(ws, "proper_noun", 10),
        s.graph.labelsOf(ws, ["widget", "acme", "nothing"]),
        s.graph.node(ws, "acme"),
        s.graph.sourcesOf(ws, "acme", 0, 2),
        s.graph.pendingSources(ws),
        s.graph.staleCount(ws),
        s.graph.version(ws),
        s.graph.pendingCount(ws),
      ],
    ],
    [
      "graph search, ranked and paged",
      (s) => [
        s.graph.search({ workspaceId: ws, q: "acme", type: null, limit: 10, after: null }),
        s.graph.search({ workspaceId: ws, q: "widget", type: null, limit: 10, after: null }),
        // Pages the label starts fill (graph.ts labelStarts), with and without a cursor and a type.
        s.graph.search({ workspaceId: ws, q: "acme", type: null, limit: 2, after: null }),
        s.graph.search({
          workspaceId: ws,
          q: "acme",
          type: "proper_noun",
          limit: 1,
          after: { rank: 0, mentions: 5, id: "acme" },
        }),
        s.graph.related(ws, "acme", 3),
        s.graph.related(ws, "widget", 3),
        s.graph.search({
          workspaceId: ws,
          q: "o",
          type: "proper_noun",
          limit: 2,
          after: { rank: 1, mentions: 1, id: "solo0" },
        }),
      ],
    ],
    [
      "graph edges",
      (s) => [
        s.graph.edges(ws, ["acme", "widget", "solo1"], 1, 10),
        s.graph.edges(ws, ["acme", "widget", "solo1"], 1, 1),
        s.graph.related(ws, "acme", 10),
        s.graph.related(other, "acme", 10),
      ],
    ],
    ["storage and learning reads", (s) => [s.storage.used(1), s.learning.backlog(), s.learning.due("2030-07-01", 5)]],
    [
      "writes: stored bytes counted again, graph upkeep, key and job states",
      (s) => {
        s.graph.markUpdated(ws, "2030-06-15T09:00:00.000Z");
        s.graph.markUpdated("ws_gone", "2030-06-15T09:00:00.000Z");
        s.apiKeys.touchMany([["key_1", "2030-06-15T09:00:00.000Z"]]);
        s.contents.publish(2, "2030-06-15T09:00:00.000Z");
        return [
          s.storage.recount(1),
          s.graph.updatedAt(ws),
          s.graph.updatedAt("ws_gone"),
          s.graph.removeStale(ws),
          s.graph.removeStaleOf(ws, 2),
          s.graph.settle(ws),
          s.apiKeys.expireBy("key_1", "2030-12-01T00:00:00.000Z"),
          s.apiKeys.expireBy("key_1", "2031-06-01T00:00:00.000Z"),
          s.apiKeys.byId("key_1"),
          s.learning.claimNext({
            owner: "srv_1",
            now: "2030-06-15T09:00:00.000Z",
            leaseUntil: "2030-06-15T09:01:00.000Z",
          }),
          s.learning.claimNext({
            owner: "srv_2",
            now: "2030-06-15T09:00:00.000Z",
            leaseUntil: "2030-06-15T09:01:00.000Z",
          }),
          s.learning.renew("job_1", { owner: "srv_2", attempt: 1 }, "2030-06-15T09:02:00.000Z"),
          s.learning.renew("job_1", { owner: "srv_1", attempt: 1 }, "2030-06-15T09:02:00.000Z"),
          s.learning.leasesPassed("2030-06-15T09:01:30.000Z"),
          s.learning.leasesPassed("2030-06-15T09:02:00.000Z"),
          s.learning.requeueExpired("2030-06-15T09:02:00.000Z"),
          s.learning.job("job_1"),
          s.periodic.claim("learning-retry", "2030-06-15T09:00:00.000Z", "srv_1"),
          s.periodic.claim("learning-retry", "2030-06-15T09:00:00.000Z", "srv_2"),
          s.periodic.claim("learning-retry", "2030-06-15T09:01:00.000Z", "srv_2"),
        ];
      },
    ],
    [
      "writes: upserts, ignored duplicates, inserts returning ids",
      (s) => {
        s.misc.settingOnce("k", "first");
        s.misc.settingOnce("k", "second");
        s.misc.revokeSession("jti", "2031");
        s.misc.revokeSession("jti", "2032");
        s.usage.addMany([
          {
            account_id: 1,
            key_id: "",
            day: "2030-06-15",
            requests: 1,
            generations: 2,
            words_generated: 3,
            finalizations: 0,
            learning_analyses: 0,
            images: 0,
          },
          {
            account_id: 1,
            key_id: "",
            day: "2030-06-15",
            requests: 5,
            generations: 0,
            words_generated: 1,
            finalizations: 1,
            learning_analyses: 0,
            images: 0,
          },
        ]);
        s.learning.useQuota(1, "2030-06");
        s.learning.useQuota(1, "2030-06");
        return [
          s.misc.setting("k"),
          s.misc.isSessionRevoked("jti"),
          s.usage.range(1, "2030-06-01", "2030-06-30"),
          s.learning.quotaUsed(1, "2030-06"),
          s.accounts.create("New", "pro", "2030-06-15"),
          s.users.create(1, "new@a.test", "h", "member", "2030-06-15"),
          s.memories.update(1, { title: "Renamed" }, "2030-06-16"),
          s.signInBackoff.clearStartingWith("email:ann@a.test "),
          s.signInBackoff.list(),
          s.idempotency.purgeExpired("2030-06-15T00:00:00.000Z", 1),
          s.idempotency.purgeExpired("2030-06-15T00:00:00.000Z", 5),
          s.idempotency.find(1, "key_1", "k2", "2030-06-15T00:00:00.000Z"),
          s.idempotency.claim([1, "key_1", "c1"], "fp", "server-a", "2030-06-15T00:00:00.000Z"),
          s.idempotency.claim([1, "key_1", "c1"], "fp", "server-b", "2030-06-15T00:00:00.000Z"),
          s.idempotency.renewClaim([1, "key_1", "c1"], "server-a"),
          s.idempotency.renewClaim([1, "key_1", "c1"], "server-b"),
          s.idempotency.takeOverClaim(
            [1, "key_1", "c1"],
            { fingerprint: "fp", claimed_by: "server-a", renewals: 0 },
            "server-b",
            "2030-06-15T00:00:01.000Z",
          ),
          s.idempotency.takeOverClaim(
            [1, "key_1", "c1"],
            { fingerprint: "fp", claimed_by: "server-a", renewals: 1 },
            "server-b",
            "2030-06-15T00:00:01.000Z",
          ),
          s.idempotency.findClaim([1, "key_1", "c1"]),
          s.idempotency.releaseClaim([1, "key_1", "c1"], "server-a"),
          s.idempotency.claim([1, "key_1", "c2"], "fp", "server-a", "2030-06-14T00:00:00.000Z"),
          s.idempotency.purgeClaims("2030-06-14T12:00:00.000Z", 5),
          s.idempotency.findClaim([1, "key_1", "c1"]),
          s.idempotency.releaseClaim([1, "key_1", "c1"], "server-b"),
          s.idempotency.findClaim([1, "key_1", "c1"]),
        ];
      },
    ],
  ];
}

const postgresPart = DATABASE_URL ? describe : describe.skip;
if (!DATABASE_URL && process.env.CI) {
  it("finds a PostgreSQL to test on (CI: .ci/run sets CONTENT_SERVICE_TEST_DATABASE_URL)", () => {
    expect(DATABASE_URL).toBeDefined();
  });
}

postgresPart(
  `the query modules' SQL on PostgreSQL${DATABASE_URL ? "" : " (skipped: no CONTENT_SERVICE_TEST_DATABASE_URL)"}`,
  () => {
    const database = `dialect_test_${process.pid}_${Date.now()}`;
    let admin: pg.Client;
    let client: pg.Client;
    const sqlite = openDb(":memory:");
    migrate(sqlite);
    const { ws, other } = seeded(sqlite);

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      const url = new URL(DATABASE_URL!);
      url.pathname = `/${database}`;
      // BIGINT read as a number, as better-sqlite3 reads SQLite's integers.
      const types = {
        getTypeParser: (oid: number, format?: string) =>
          oid === 20 ? Number : pg.types.getTypeParser(oid, format as "text"),
      };
      client = new pg.Client({ connectionString: url.toString(), types: types as pg.CustomTypesConfig });
      await client.connect();
      for (const table of tablesOf(sqlite)) {
        for (const ddl of table.ddl) await client.query(ddl);
        const columns = table.columns.map((c) => `"${c}"`).join(", ");
        const rows = sqlite.prepare(`SELECT ${columns} FROM "${table.name}"`).raw().all() as unknown[][];
        const marks = table.columns.map((_, i) => `$${i + 1}`).join(", ");
        for (const row of rows) await client.query(`INSERT INTO "${table.name}" (${columns}) VALUES (${marks})`, row);
      }
    });

    afterAll(async () => {
      await client?.end();
      await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin?.end();
    });

    /** Rows as compared: in the statement's order, or sorted when it names none (the engines' orders differ). */
    const inOrder = (sql: string, rows: unknown) =>
      Array.isArray(rows) && !/\bORDER BY\b/.test(sql)
        ? [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
        : rows;

    /** What one recorded call answers on PostgreSQL, in the shape better-sqlite3 gives it. */
    async function answer(call: Call): Promise<unknown> {
      const { text, values } = toPostgres(call.sql, call.params);
      if (call.method === "run") return (await client.query(text, values)).rowCount;
      const rows = call.pluck
        ? (await client.query({ text, values, rowMode: "array" })).rows.map((r) => r[0])
        : (await client.query(text, values)).rows;
      return call.method === "get" ? rows[0] : rows;
    }

    it("prepares every statement the store gives a PostgreSQL connection", async () => {
      const failed: string[] = [];
      for (const [i, sql] of postgresTexts().entries()) {
        const { text } = toPostgres(sql, []);
        try {
          await client.query(`PREPARE checked_${i} AS ${text}`);
          await client.query(`DEALLOCATE checked_${i}`);
        } catch (e) {
          failed.push(`${(e as Error).message}:\n${sql}`);
        }
      }
      expect(failed).toEqual([]);
    });

    for (const [name, calls] of storeCalls(ws, other)) {
      it(`answers as SQLite does: ${name}`, async () => {
        const onSqlite = recording(sqlite);
        calls(createStore(onSqlite.db));
        const onPostgres = replaying(onSqlite.calls);
        calls(createStore(onPostgres.db));
        expect(onPostgres.calls.length).toBe(onSqlite.calls.length);
        expect(onSqlite.calls.length).toBeGreaterThan(0);
        for (const [i, call] of onPostgres.calls.entries()) {
          const sqliteCall = onSqlite.calls[i]!;
          const expected =
            sqliteCall.method === "run" ? (sqliteCall.result as { changes: number }).changes : sqliteCall.result;
          expect(inOrder(call.sql, await answer(call)), `${call.sql}\n${JSON.stringify(call.params)}`).toEqual(
            inOrder(call.sql, expected),
          );
        }
      });
    }
  },
);
