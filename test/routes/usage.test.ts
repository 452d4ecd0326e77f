/**
 * GET /usage and the usage counters: what is counted (per key, per account, per UTC day), that counting never
 * writes the database per request (only a flush does, in one batch), and the report's range rules.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { createAccount, issueKey } from "../../src/domain/admin.js";
import { USAGE_FIELDS, type UsageCounts } from "../../src/domain/usage.js";
import { inlineWriter, type StoreWriter } from "../../src/domain/writer.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { startServer } from "../../src/server/start.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody, keyRow, sessionOf } from "../helpers/http.js";
import { png } from "../helpers/images.js";

const counts = (partial: Partial<UsageCounts> = {}): UsageCounts => ({
  requests: 0,
  generations: 0,
  words_generated: 0,
  finalizations: 0,
  learning_analyses: 0,
  images: 0,
  ...partial,
});

/** Rows of usage_daily, as stored. */
function storedRows(h: Harness) {
  return h.db.prepare("SELECT * FROM usage_daily ORDER BY account_id, key_id, day").all() as ({
    account_id: number;
    key_id: string;
    day: string;
  } & UsageCounts)[];
}

const generate = (h: Harness, auth: string, extra: Record<string, unknown> = {}) =>
  h.send("POST", "/api/v1/generate", {
    auth,
    body: { template_id: 1, user_direction: "Weekly written planning reviews for remote teams", ...extra },
  });

describe("GET /usage: what is counted", () => {
  it("counts requests, generations, words, finalizations, analyses and images per key and in totals", async () => {
    const h = makeHarness();
    const writer = h.key({ workspaceId: h.a.ws1 });
    const artist = h.key();
    const writerId = keyRow(h, writer).id;
    const artistId = keyRow(h, artist).id;
    h.services.store.apiKeys.rename(writerId, "writer");
    h.services.store.apiKeys.rename(artistId, "artist");

    const gen = await generate(h, writer);
    expect(gen.status).toBe(201);
    const words = gen.body.word_count as number;
    // Without references the builtin writer writes only what the direction supports: a short piece.
    expect(words).toBeGreaterThan(20);
    const regen = await generate(h, writer, { content_id: gen.body.content_id, seed: 7 });
    expect(regen.status).toBe(200);
    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: writer,
      body: { content_id: gen.body.content_id, finalized_content: "An edited piece of writing.", edit_seconds: 30 },
    });
    expect(fin.status).toBe(200);
    expect(fin.body.learning_triggered).toBe(true);
    await h.services.learning.idle();
    // A refused operation is a request, not a generation.
    expect((await generate(h, writer, { template_id: 999_999 })).status).toBe(404);

    const image = await h.send("POST", "/api/v1/images/generate", {
      auth: artist,
      body: { prompt: "a lighthouse", width: 64, height: 64 },
    });
    expect(image.status).toBe(201);
    const upload = await h.send("POST", "/api/v1/images", {
      auth: artist,
      body: { filename: "dot.png", data_base64: Buffer.from(png(2, 2)).toString("base64") },
    });
    expect(upload.status).toBe(201);
    expect((await h.send("GET", `/api/v1/images/${image.body.id}`, { auth: artist })).status).toBe(200);

    const res = await h.send("GET", "/api/v1/usage", { auth: writer });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    const regenWords = regen.body.word_count as number;
    const writerCounts = counts({
      requests: 4,
      generations: 2,
      words_generated: words + regenWords,
      finalizations: 1,
    });
    const artistCounts = counts({ requests: 3, images: 2 });
    // The analysis ran in the background for the account: in the totals and the day, under no key.
    const total = counts({
      requests: 7,
      generations: 2,
      words_generated: words + regenWords,
      finalizations: 1,
      learning_analyses: 1,
      images: 2,
    });
    expect(res.body.totals).toEqual(total);
    expect(res.body.keys).toEqual([
      { key_id: writerId, name: "writer", ...writerCounts },
      { key_id: artistId, name: "artist", ...artistCounts },
    ]);
    expect(res.body.days.at(-1)).toEqual({ day: "2026-01-15", ...total });
    // The report does not include the request asking for it; the next one sees it.
    const again = await h.send("GET", "/api/v1/usage", { auth: writer });
    expect(again.body.totals.requests).toBe(8);
  });

  it("counts a streamed generation once it is stored", async () => {
    const h = makeHarness();
    const key = h.key();
    const res = await generate(h, key, { stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const done = /event: done\ndata: (.*)\n/.exec(res.body as string);
    expect(done).not.toBeNull();
    const stored = JSON.parse(done![1]);
    const usage = await h.send("GET", "/api/v1/usage", { auth: key });
    expect(usage.body.totals).toMatchObject({ generations: 1, words_generated: stored.word_count, requests: 1 });
  });

  it("web-session requests count in the totals but belong to no key", async () => {
    const h = makeHarness();
    const session = await sessionOf(h, "admin@a.test");
    const key = h.key();
    for (let i = 0; i < 3; i++) expect((await h.send("GET", "/api/v1/users/me", { auth: session })).status).toBe(200);
    await h.send("GET", "/api/v1/users/me", { auth: key });
    const res = await h.send("GET", "/api/v1/usage", { auth: session });
    expect(res.body.totals.requests).toBe(4);
    expect(res.body.keys).toEqual([{ key_id: keyRow(h, key).id, name: "test key", ...counts({ requests: 1 }) }]);
  });

  it("counts each UTC day apart, across midnight", async () => {
    const h = makeHarness();
    const key = h.key();
    h.clock.set(Date.UTC(2026, 0, 15, 23, 59, 0));
    await h.send("GET", "/api/v1/users/me", { auth: key });
    await h.send("GET", "/api/v1/users/me", { auth: key });
    h.clock.advance(2 * 60_000); // 2026-01-16 00:01
    await h.send("GET", "/api/v1/users/me", { auth: key });
    const res = await h.send("GET", "/api/v1/usage?from=2026-01-14&to=2026-01-16", { auth: key });
    expect(res.status).toBe(200);
    expect(res.body.days.map((d: { day: string; requests: number }) => [d.day, d.requests])).toEqual([
      ["2026-01-14", 0],
      ["2026-01-15", 2],
      ["2026-01-16", 1],
    ]);
    // A flush keeps the days apart too.
    h.services.usage.flush();
    expect(storedRows(h).map((r) => [r.day, r.requests])).toEqual([
      ["2026-01-15", 2],
      ["2026-01-16", 2],
    ]);
    const only15 = await h.send("GET", "/api/v1/usage?from=2026-01-15&to=2026-01-15", { auth: key });
    expect(only15.body).toMatchObject({ from: "2026-01-15", to: "2026-01-15", totals: { requests: 2 } });
    expect(only15.body.days).toHaveLength(1);
  });
});

describe("GET /usage: batched writes", () => {
  it("writes nothing per request; a flush writes one row per account, key and day, and the report is unchanged", async () => {
    const h = makeHarness();
    const k1 = h.key();
    const k2 = h.key({ workspaceId: h.a.ws2 });
    const kb = h.key({ account: h.b.id });
    for (const auth of [k1, k1, k2, kb]) await h.send("GET", "/api/v1/users/me", { auth });
    await generate(h, k1);

    expect(storedRows(h)).toEqual([]);
    expect(h.services.usage.pendingRows).toBe(3);
    const before = h.services.usage.report(h.a.id, "2026-01-01", "2026-01-31");
    expect(before.totals).toMatchObject({ requests: 4, generations: 1 });

    expect(h.services.usage.flush()).toBe(3);
    expect(h.services.usage.pendingRows).toBe(0);
    expect(h.services.usage.flush()).toBe(0);
    const rows = storedRows(h);
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.key_id === keyRow(h, k1).id)).toMatchObject({ requests: 3, generations: 1 });
    expect(h.services.usage.report(h.a.id, "2026-01-01", "2026-01-31")).toEqual(before);

    // Later counts are added to the stored rows (an upsert), and the report merges memory and disk.
    await h.send("GET", "/api/v1/users/me", { auth: k1 });
    const merged = await h.send("GET", "/api/v1/usage?from=2026-01-01&to=2026-01-31", { auth: k1 });
    expect(merged.body.totals.requests).toBe(5);
    h.services.usage.flush();
    expect(storedRows(h)).toHaveLength(3);
    expect(storedRows(h).find((r) => r.key_id === keyRow(h, k1).id)!.requests).toBe(5);
    const after = await h.send("GET", "/api/v1/usage?from=2026-01-01&to=2026-01-31", { auth: k1 });
    expect(after.body.totals.requests).toBe(6);
    // The same answer as before the flush, but for the one request made since.
    const plusOne = (c: UsageCounts) => ({ ...c, requests: c.requests + 1 });
    expect(after.body.totals).toEqual(plusOne(merged.body.totals));
    expect(after.body.days).toEqual(merged.body.days.map((d: UsageCounts) => (d.requests ? plusOne(d) : d)));
    expect(after.body.keys).toEqual(
      merged.body.keys.map((k: UsageCounts & { key_id: string }) => (k.key_id === keyRow(h, k1).id ? plusOne(k) : k)),
    );
  });

  it("keeps the increments of a failed flush for the next one", () => {
    const h = makeHarness();
    h.services.usage.count(h.a.id, null, "requests", 2);
    const addMany = h.services.store.usage.addMany;
    h.services.store.usage.addMany = (() => {
      throw new Error("disk full");
    }) as unknown as typeof addMany;
    expect(() => h.services.usage.flush()).toThrow("disk full");
    h.services.usage.count(h.a.id, null, "requests", 1);
    h.services.store.usage.addMany = addMany;
    expect(h.services.usage.flush()).toBe(1);
    expect(storedRows(h)[0].requests).toBe(3);
  });
});

describe("GET /usage: ranges", () => {
  const h = makeHarness();
  const key = h.key();

  it("defaults to the last 30 days ending today (UTC)", async () => {
    const res = await h.send("GET", "/api/v1/usage", { auth: key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["days", "from", "keys", "to", "totals"]);
    expect(res.body).toMatchObject({ from: "2025-12-17", to: "2026-01-15" });
    expect(res.body.days).toHaveLength(30);
    expect(Object.keys(res.body.totals)).toEqual([...USAGE_FIELDS]);
    expect(res.body.days[0]).toEqual({ day: "2025-12-17", ...counts() });
  });

  it("takes from alone (to: today) and to alone (from: 29 days before)", async () => {
    const a = await h.send("GET", "/api/v1/usage?from=2026-01-10", { auth: key });
    expect(a.body).toMatchObject({ from: "2026-01-10", to: "2026-01-15" });
    const b = await h.send("GET", "/api/v1/usage?to=2025-03-01", { auth: key });
    expect(b.body).toMatchObject({ from: "2025-01-31", to: "2025-03-01" });
    expect(b.body.days).toHaveLength(30);
  });

  it("allows 366 days and a leap day", async () => {
    const res = await h.send("GET", "/api/v1/usage?from=2024-02-29&to=2025-02-28", { auth: key });
    expect(res.status).toBe(200);
    expect(res.body.days).toHaveLength(366);
    expect(res.body.days[0].day).toBe("2024-02-29");
  });

  // Found by the fuzz run: the day after 9999-12-31 is written +010000-01-01, which sorts before it as text, and
  // the report's walk over the days never ended (the server hung, filling its heap).
  it("answers ranges at the last and the first day that can be written", async () => {
    const last = await h.send("GET", "/api/v1/usage?to=9999-12-31", { auth: key });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ from: "9999-12-02", to: "9999-12-31" });
    expect(last.body.days).toHaveLength(30);
    expect(last.body.days.at(-1).day).toBe("9999-12-31");
    const first = await h.send("GET", "/api/v1/usage?to=0000-01-10", { auth: key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ from: "0000-01-01", to: "0000-01-10" });
    expect(first.body.days.map((d: { day: string }) => d.day)).toEqual(
      Array.from({ length: 10 }, (_, i) => `0000-01-${String(i + 1).padStart(2, "0")}`),
    );
  });

  it.each([
    ["a month 13", "?from=2026-13-01", "query.from"],
    ["a day that does not exist", "?to=2026-02-30", "query.to"],
    ["a non-leap February 29", "?from=2025-02-29", "query.from"],
    ["no zero padding", "?from=2026-1-5", "query.from"],
    ["a timestamp", "?to=2026-01-05T00:00:00Z", "query.to"],
    ["words", "?from=yesterday", "query.from"],
    ["an empty value", "?from=", "query.from"],
    ["a reversed range", "?from=2026-01-10&to=2026-01-09", "query.from"],
    ["a range of 367 days", "?from=2025-01-01&to=2026-01-02", "query.from"],
    ["from after today (to defaults to today)", "?from=2026-02-01", "query.from"],
  ])("refuses %s with 400 validation_failed", async (_name, query, at) => {
    const res = await h.send("GET", `/api/v1/usage${query}`, { auth: key });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect((details.issues as { path: string }[])[0].path).toBe(at);
  });
});

describe("GET /usage: who sees what", () => {
  it("an account never sees another's usage", async () => {
    const h = makeHarness();
    const a = h.key();
    const b = h.key({ account: h.b.id });
    for (let i = 0; i < 5; i++) await h.send("GET", "/api/v1/users/me", { auth: b });
    await generate(h, b);
    await h.send("GET", "/api/v1/users/me", { auth: a });
    const resA = await h.send("GET", "/api/v1/usage", { auth: a });
    expect(resA.body.totals).toEqual(counts({ requests: 1 }));
    expect(resA.body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([keyRow(h, a).id]);
    const resB = await h.send("GET", "/api/v1/usage", { auth: b });
    expect(resB.body.totals).toMatchObject({ requests: 6, generations: 1 });
    expect(resB.body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([keyRow(h, b).id]);
    h.services.usage.flush();
    expect((await h.send("GET", "/api/v1/usage", { auth: a })).body.totals.requests).toBe(2);
  });

  it("a key bound to one workspace sees the whole account's usage, whatever workspace_id it names", async () => {
    const h = makeHarness();
    const bound = h.key({ workspaceId: h.a.ws1, scopes: ["read"] });
    const elsewhere = h.key({ workspaceId: h.a.ws2 });
    const unbound = h.key();
    await generate(h, elsewhere);
    await h.send("GET", "/api/v1/users/me", { auth: unbound });
    const res = await h.send("GET", `/api/v1/usage?workspace_id=${h.a.ws2}`, { auth: bound });
    expect(res.status).toBe(200);
    expect(res.body.totals).toMatchObject({ requests: 2, generations: 1 });
    expect(res.body.keys).toHaveLength(2);
  });

  it("needs credentials, and a plan with API access for keys", async () => {
    const h = makeHarness();
    expectErrorBody(await h.send("GET", "/api/v1/usage"), 401);
    const starter = h.accountWithPlan("starter");
    expectErrorBody(await h.send("GET", "/api/v1/usage", { auth: starter.key }), 403, "plan_upgrade_required");
  });
});

describe("GET /usage while the counters are being written", () => {
  it("waits for a flush in progress instead of answering without its rows", async () => {
    const h = makeHarness();
    const key = h.key();
    for (let i = 0; i < 3; i++) expect((await h.send("GET", "/api/v1/users/me", { auth: key })).status).toBe(200);
    // A writer that holds the flush until released (the server's writer thread may be busy with finalizations).
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inline = inlineWriter(h.services.store);
    const slow: StoreWriter = { run: async (op, input) => gate.then(() => inline.run(op, input)) };
    const flushed = h.services.usage.flushVia(slow);
    const report = h.send("GET", "/api/v1/usage", { auth: key });
    let answered = false;
    void report.then(() => {
      answered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    release();
    expect(await flushed).toBeGreaterThan(0);
    const res = await report;
    expect(res.status).toBe(200);
    // The three requests before, flushed; the report's own request is counted after it is answered.
    expect(res.body.totals).toMatchObject({ requests: 3 });
  });
});

describe("usage at shutdown", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cs-usage-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a running server writes the counters still in memory when it closes", async () => {
    const server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger: memoryLogger() });
    const { account } = createAccount(server.services.store, "test", "Shutdown", "business", Date.now());
    const key = issueKey(server.services.store, "test", { accountId: account.id, name: "k" }, Date.now());
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${key.secret}` } });
      expect(res.status).toBe(200);
    }
    await server.close();
    const db = openDb(dir);
    try {
      const rows = db.prepare("SELECT key_id, requests FROM usage_daily WHERE account_id = ?").all(account.id);
      expect(rows).toEqual([{ key_id: key.row.id, requests: 3 }]);
    } finally {
      db.close();
    }
  });
});
