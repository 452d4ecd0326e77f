/**
 * Idempotency-Key on POST (DESIGN §3): replay of the first completed response, 409 for another request under the
 * same key, one execution for concurrent duplicates, scoping per caller, expiry after 24 h, and what is not stored.
 */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import type { Ctx } from "../../src/http/context.js";
import { IDEMPOTENCY_TTL_MS, MAX_KEPT_BYTES, PURGE_BATCH } from "../../src/http/idempotency.js";
import { describedRoutes } from "../../src/http/openapi.js";
import { type RouteDef, route } from "../../src/http/route.js";
import { ROUTES } from "../../src/routes/index.js";
import { type Answer, type Harness, makeHarness, type Send } from "../helpers/harness.js";
import { expectErrorBody, expectRateHeaders, keyRow, PROBE_ROUTE, sendTo, sessionOf } from "../helpers/http.js";

const contentsOf = (h: Harness) => (h.db.prepare("SELECT count(*) AS n FROM contents").get() as { n: number }).n;
const storedKeys = (h: Harness) =>
  (h.db.prepare("SELECT count(*) AS n FROM idempotency_keys").get() as { n: number }).n;

/** A POST with an Idempotency-Key. */
function post(h: Harness, path: string, auth: string, key: string, body?: unknown, opts: Send = {}) {
  return h.send("POST", path, { auth, body, ...opts, headers: { "idempotency-key": key, ...(opts.headers ?? {}) } });
}

const replayed = (res: Answer) => res.headers.get("idempotent-replayed");

describe("Idempotency-Key: replay", () => {
  it("replays the first response (status, body, content-type) with Idempotent-Replayed and creates one record", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await post(h, "/api/v1/contents", key, "create-1", { title: "Plan", content: "Draft text" });
    expect(first.status).toBe(201);
    expect(replayed(first)).toBeNull();
    const second = await post(h, "/api/v1/contents", key, "create-1", { title: "Plan", content: "Draft text" });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(replayed(second)).toBe("true");
    expect(contentsOf(h)).toBe(1);
    // The replay is a request of its own: its own trace id, rate-limit headers and stability header.
    expect(second.headers.get("x-trace-id")).not.toBe(first.headers.get("x-trace-id"));
    expect(expectRateHeaders(second).remaining).toBe(expectRateHeaders(first).remaining - 1);
    expect(second.headers.get("x-api-stability")).toBe("beta");
  });

  it("treats the same JSON with other whitespace or key order as the same body", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await post(h, "/api/v1/contents", key, "k", { title: "T", content: "C" });
    const again = await h.send("POST", "/api/v1/contents", {
      auth: key,
      raw: '{ "content" : "C",\n  "title": "T" }',
      headers: { "idempotency-key": "k", "content-type": "application/json" },
    });
    expect(again.status).toBe(201);
    expect(replayed(again)).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(contentsOf(h)).toBe(1);
  });

  it.each([
    ["another body", "/api/v1/contents", { title: "Other" }],
    ["another path", "/api/v1/memories", { kind: "context", title: "Plan", content: "Draft text" }],
    ["another query", "/api/v1/contents?workspace_id=WS2", { title: "Plan", content: "Draft text" }],
  ])("answers 409 idempotency_key_reused for the same key with %s", async (_name, path, body) => {
    const h = makeHarness();
    const key = h.key();
    expect((await post(h, "/api/v1/contents", key, "k", { title: "Plan", content: "Draft text" })).status).toBe(201);
    const res = await post(h, path.replace("WS2", h.a.ws2), key, "k", body);
    expectErrorBody(res, 409, "idempotency_key_reused");
    expect(contentsOf(h)).toBe(1);
    expect((await h.send("GET", "/api/v1/memories", { auth: key })).body.data).toEqual([]);
  });

  it("runs again under a different key", async () => {
    const h = makeHarness();
    const key = h.key();
    const a = await post(h, "/api/v1/contents", key, "k-a", { title: "Same" });
    const b = await post(h, "/api/v1/contents", key, "k-b", { title: "Same" });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.content_id).not.toBe(a.body.content_id);
    expect(replayed(b)).toBeNull();
    expect(contentsOf(h)).toBe(2);
  });

  it("without the header, every POST runs", async () => {
    const h = makeHarness();
    const key = h.key();
    for (let i = 0; i < 2; i++)
      expect((await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "x" } })).status).toBe(201);
    expect(contentsOf(h)).toBe(2);
    expect(storedKeys(h)).toBe(0);
  });
});

describe("Idempotency-Key: concurrent duplicates", () => {
  it("identical requests fired together run once and get identical answers", async () => {
    const h = makeHarness();
    const key = h.key();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(h, "/api/v1/generate", key, "gen-1", { template_id: 1, user_direction: "Planning reviews" }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers.filter((a) => replayed(a) === "true")).toHaveLength(4);
    expect(contentsOf(h)).toBe(1);
    const usage = await h.send("GET", "/api/v1/usage", { auth: key });
    expect(usage.body.totals).toMatchObject({ requests: 5, generations: 1 });
  });

  it("a duplicate waits while the first is running; another body under the key is refused at once", async () => {
    const h = makeHarness();
    let runs = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const slow: RouteDef = route({
      method: "POST",
      path: "/api/v1/__slow",
      operationId: "slow",
      ...PROBE_ROUTE,
      body: v.object({ n: v.number() }),
      async handler(ctx: Ctx<unknown, unknown, { n: number }>) {
        runs += 1;
        entered();
        await gate;
        return { status: 201, body: { run: runs, n: ctx.body.n }, headers: { location: `/api/v1/__slow/${runs}` } };
      },
    });
    const app = createApp(h.services, [...ROUTES, slow]);
    const key = h.key();
    const send = (n: number) =>
      sendTo(app, "POST", "/api/v1/__slow", { auth: key, body: { n }, headers: { "idempotency-key": "slow-1" } });

    const first = send(1);
    await started;
    const duplicate = send(1);
    const other = await send(2);
    expectErrorBody(other, 409, "idempotency_key_reused");
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(runs).toBe(1);
    release();
    const [a, b] = await Promise.all([first, duplicate]);
    expect(runs).toBe(1);
    expect(a).toMatchObject({ status: 201, body: { run: 1, n: 1 } });
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get("location")).toBe("/api/v1/__slow/1");
    expect(replayed(b)).toBe("true");
  });

  it("a duplicate of a request that failed with a 5xx runs itself (nothing was stored)", async () => {
    const h = makeHarness();
    let runs = 0;
    const flaky: RouteDef = route({
      method: "POST",
      path: "/api/v1/__flaky",
      operationId: "flaky",
      ...PROBE_ROUTE,
      async handler() {
        runs += 1;
        await new Promise((r) => setImmediate(r));
        if (runs === 1) throw new Error("transient");
        return { body: { run: runs } };
      },
    });
    const app = createApp(h.services, [...ROUTES, flaky]);
    const key = h.key();
    const send = () => sendTo(app, "POST", "/api/v1/__flaky", { auth: key, headers: { "idempotency-key": "f" } });
    const [a, b] = await Promise.all([send(), send()]);
    expectErrorBody(a, 500, "internal_error");
    expect(b).toMatchObject({ status: 200, body: { run: 2 } });
    const c = await send();
    expect(c).toMatchObject({ status: 200, body: { run: 2 } });
    expect(replayed(c)).toBe("true");
    expect(runs).toBe(2);
  });
});

describe("Idempotency-Key: scope and lifetime", () => {
  it("is scoped per API key, per session user and per account", async () => {
    const h = makeHarness();
    const k1 = h.key();
    const k2 = h.key();
    const session = await sessionOf(h, "admin@a.test");
    const member = await sessionOf(h, "member@a.test");
    const kb = h.key({ account: h.b.id });
    const ids = new Set<number>();
    for (const auth of [k1, k2, session, member, kb]) {
      const res = await post(h, "/api/v1/contents", auth, "shared-key", { title: "Same" });
      expect(res.status).toBe(201);
      expect(replayed(res)).toBeNull();
      ids.add(res.body.content_id);
    }
    expect(ids.size).toBe(5);
    expect(contentsOf(h)).toBe(5);
    // Each caller's own retry is a replay.
    for (const auth of [k1, session, kb])
      expect(replayed(await post(h, "/api/v1/contents", auth, "shared-key", { title: "Same" }))).toBe("true");
    expect(contentsOf(h)).toBe(5);
  });

  it("a logout is kept per session: another session of the user logging out under the same key is signed out", async () => {
    const h = makeHarness();
    const first = await sessionOf(h, "admin@a.test");
    const logout = (auth: string) => post(h, "/api/v1/auth/logout", auth, "logout-1", {});
    expect((await logout(first)).status).toBe(200);
    // The same session cannot retry: it has ended, and credentials are checked before the key is looked up.
    const retry = await logout(first);
    expect(retry.status).toBe(401);
    const second = await sessionOf(h, "admin@a.test");
    const res = await logout(second);
    expect(res.status).toBe(200);
    expect(replayed(res)).toBeNull();
    expect((await h.send("GET", "/api/v1/users/me", { auth: second })).status).toBe(401);
  });

  it("replays for 24 hours, then runs again; the periodic purge removes expired responses", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await post(h, "/api/v1/contents", key, "day", { title: "T" });
    h.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    const within = await post(h, "/api/v1/contents", key, "day", { title: "T" });
    expect(replayed(within)).toBe("true");
    expect(within.body).toEqual(first.body);
    expect(await h.services.idempotency.purgeExpired()).toBe(0);
    h.clock.advance(1);
    const after = await post(h, "/api/v1/contents", key, "day", { title: "T" });
    expect(after.status).toBe(201);
    expect(replayed(after)).toBeNull();
    expect(after.body.content_id).not.toBe(first.body.content_id);
    expect(contentsOf(h)).toBe(2);
    // Expired, the key was free for another body too.
    h.clock.advance(IDEMPOTENCY_TTL_MS);
    expect((await post(h, "/api/v1/contents", key, "day", { title: "Other" })).status).toBe(201);
    expect(storedKeys(h)).toBe(1);
    h.clock.advance(IDEMPOTENCY_TTL_MS);
    expect(await h.services.idempotency.purgeExpired()).toBe(1);
    expect(storedKeys(h)).toBe(0);
  });

  it("the purge deletes in batches until no expired response is left, and keeps the live ones", async () => {
    const h = makeHarness();
    const key = h.key();
    const count = PURGE_BATCH * 2 + 5;
    for (let i = 0; i < count; i++) {
      // Within the key's 100 requests a minute.
      if (i % 90 === 89) h.clock.advance(60_000);
      expect((await post(h, "/api/v1/contents", key, `old-${i}`, { title: `T${i}` })).status).toBe(201);
    }
    h.clock.advance(IDEMPOTENCY_TTL_MS);
    await post(h, "/api/v1/contents", key, "live", { title: "Live" });
    const batches: number[] = [];
    const purged = await h.services.idempotency.purgeExpired(async (input) => {
      const n = h.services.store.idempotency.purgeExpired(input.now, input.limit);
      batches.push(n);
      return n;
    });
    expect(purged).toBe(count);
    expect(batches).toEqual([PURGE_BATCH, PURGE_BATCH, 5]);
    expect(storedKeys(h)).toBe(1);
  });
});

describe("Idempotency-Key: what is stored", () => {
  it("a request refused by input validation stores nothing: the corrected body runs under the same key", async () => {
    const h = makeHarness();
    const key = h.key();
    const bad = await post(h, "/api/v1/contents", key, "fix-me", { title: 42 });
    expectErrorBody(bad, 400, "validation_failed");
    expect(storedKeys(h)).toBe(0);
    const fixed = await post(h, "/api/v1/contents", key, "fix-me", { title: "42" });
    expect(fixed.status).toBe(201);
    expect(replayed(fixed)).toBeNull();
    // From then on the key is the corrected request's.
    expect(replayed(await post(h, "/api/v1/contents", key, "fix-me", { title: "42" }))).toBe("true");
    expectErrorBody(await post(h, "/api/v1/contents", key, "fix-me", { title: 42 }), 400, "validation_failed");
    expectErrorBody(await post(h, "/api/v1/contents", key, "fix-me", { title: "43" }), 409, "idempotency_key_reused");
    expect(contentsOf(h)).toBe(1);
  });

  it("an error of the operation itself (404, 409) is its answer and is replayed", async () => {
    const h = makeHarness();
    const key = h.key();
    const missing = await post(h, "/api/v1/contents", key, "tpl", { title: "T", template_id: 999_999 });
    expectErrorBody(missing, 404, "template_not_found");
    const again = await post(h, "/api/v1/contents", key, "tpl", { title: "T", template_id: 999_999 });
    expect(again.status).toBe(404);
    // The same error, under the replay's own trace id (the body's trace_id is its X-Trace-Id).
    expect({ ...again.body, trace_id: "" }).toEqual({ ...missing.body, trace_id: "" });
    expect(again.body.trace_id).toBe(again.headers.get("x-trace-id"));
    expect(replayed(again)).toBe("true");

    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "D" } });
    const finalize = { content_id: draft.body.content_id, finalized_content: "Final.", edit_seconds: 1 };
    expectErrorBody(await post(h, "/api/v1/finalizeContent", key, "fin", finalize), 409, "invalid_status");
    // Generated now, the content could be finalized, but the key's answer stays the first one.
    await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Anything", content_id: draft.body.content_id },
    });
    const replay = await post(h, "/api/v1/finalizeContent", key, "fin", finalize);
    expect(replay.status).toBe(409);
    expect(replayed(replay)).toBe("true");
    expect((await post(h, "/api/v1/finalizeContent", key, "fin-2", finalize)).status).toBe(200);
  });

  it("a replay counts as a request, not as a second image", async () => {
    const h = makeHarness();
    const key = h.key();
    for (let i = 0; i < 2; i++)
      expect((await post(h, "/api/v1/images/generate", key, "img", { prompt: "a dot", width: 64 })).status).toBe(201);
    expect((await h.send("GET", "/api/v1/images", { auth: key })).body.data).toHaveLength(1);
    const usage = await h.send("GET", "/api/v1/usage", { auth: key });
    expect(usage.body.totals).toMatchObject({ requests: 3, images: 1 });
  });
});

/** A streamed generation sent straight to the app, with a signal for the client's leaving: the raw response. */
function streamed(h: Harness, key: string, idemKey: string, body: unknown, signal?: AbortSignal) {
  return h.app.handle(
    new Request("http://test.local/api/v1/generate", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idemKey },
      body: JSON.stringify(body),
      signal,
    }),
    { remoteAddress: "127.0.0.1" },
  );
}

/** The contents the list shows (one page is enough here). */
const listed = async (h: Harness, key: string) =>
  (await h.send("GET", "/api/v1/contents?limit=100", { auth: key })).body.data as { content_id: number }[];

describe("Idempotency-Key: streamed generations", () => {
  const body = { template_id: 1, user_direction: "Planning reviews", stream: true };

  it("the completed stream is stored: a retry replays it byte for byte and creates no record", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await streamed(h, key, "st-1", body);
    const firstText = Buffer.from(await first.arrayBuffer());
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(firstText.toString()).toMatch(/event: done\ndata: \{"content_id":\d+/);
    for (let i = 0; i < 2; i++) {
      const again = await streamed(h, key, "st-1", body);
      expect(again.status).toBe(200);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
      expect(again.headers.get("cache-control")).toBe("no-cache");
      expect(again.headers.get("x-trace-id")).not.toBe(first.headers.get("x-trace-id"));
      expect(Buffer.from(await again.arrayBuffer()).equals(firstText)).toBe(true);
    }
    expect(await listed(h, key)).toHaveLength(1);
    expect(storedKeys(h)).toBe(1);
    const usage = await h.send("GET", "/api/v1/usage", { auth: key });
    expect(usage.body.totals).toMatchObject({ generations: 1 });
  });

  it("the done event, the stream's last, goes out only once the stream is stored and synced, with the operation's own headers", async () => {
    const h = makeHarness();
    const key = h.key();
    // Each sync: how many answers were stored when it began.
    const syncs: number[] = [];
    h.services.durability = {
      sync: async () => {
        syncs.push(storedKeys(h));
      },
    };
    const first = await streamed(h, key, "st-1", body);
    const reader = first.body!.getReader();
    let atDone: { stored: number; synced: number[] } | undefined;
    let last = "";
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      last = Buffer.from(next.value).toString();
      // Clients act on the done event: a crash after it must not leave the key unused (a retry would generate again).
      if (!atDone && last.includes("event: done")) atDone = { stored: storedKeys(h), synced: [...syncs] };
    }
    expect(last).toMatch(/^event: done/);
    expect(atDone).toEqual({ stored: 1, synced: expect.arrayContaining([1]) });
    expect(syncs.at(-1)).toBe(1);
    const row = h.db.prepare("SELECT headers FROM idempotency_keys").get() as { headers: string };
    const stored = Object.keys(JSON.parse(row.headers));
    expect(stored).not.toContain("x-trace-id");
    expect(stored.filter((name) => name.startsWith("x-ratelimit"))).toEqual([]);
  });

  it("the same key with another body is 409 idempotency_key_reused, streamed or not", async () => {
    const h = makeHarness();
    const key = h.key();
    expect((await post(h, "/api/v1/generate", key, "st-1", body)).status).toBe(200);
    const other = await post(h, "/api/v1/generate", key, "st-1", { ...body, user_direction: "Other" });
    expectErrorBody(other, 409, "idempotency_key_reused");
    const unstreamed = await post(h, "/api/v1/generate", key, "st-1", { ...body, stream: false });
    expectErrorBody(unstreamed, 409, "idempotency_key_reused");
    expect(await listed(h, key)).toHaveLength(1);
  });

  it("a duplicate sent while the first streams waits for its end and gets its replay", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await streamed(h, key, "st-1", body);
    const reader = first.body!.getReader();
    const chunks: Uint8Array[] = [(await reader.read()).value!];
    expect(Buffer.from(chunks[0]).toString()).toContain("event: delta");
    const duplicate = streamed(h, key, "st-1", body);
    const other = await post(h, "/api/v1/generate", key, "st-1", { ...body, user_direction: "Other" });
    expectErrorBody(other, 409, "idempotency_key_reused");
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
    }
    const again = await duplicate;
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.concat(chunks))).toBe(true);
    expect(await listed(h, key)).toHaveLength(1);
  });

  it("a stream the client left before its end stores nothing: a retry runs, and its completed stream is kept", async () => {
    const h = makeHarness();
    const key = h.key();
    const client = new AbortController();
    const first = await streamed(h, key, "st-1", body, client.signal);
    const reader = first.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toContain("event: delta");
    client.abort();
    await reader.cancel();
    const retry = await streamed(h, key, "st-1", body);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const retryText = await retry.text();
    expect(retryText).toContain("event: done");
    const again = await streamed(h, key, "st-1", body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(retryText);
    expect(await listed(h, key)).toHaveLength(1);
  });
});

describe("Idempotency-Key: streams of other routes", () => {
  /** A route answering an event stream of the given events, counting its runs. */
  function eventsRoute(events: () => string[]) {
    let runs = 0;
    const def: RouteDef = route({
      method: "POST",
      path: "/api/v1/__events",
      operationId: "events",
      ...PROBE_ROUTE,
      async handler() {
        runs += 1;
        const queue = events();
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = queue.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(new TextEncoder().encode(next));
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
      },
    });
    return { def, runs: () => runs };
  }

  it("a stream whose last event is an error stores nothing: the retry runs", async () => {
    const h = makeHarness();
    const probe = eventsRoute(() => ['event: delta\ndata: {"text":"a"}\n\n', 'event: error\ndata: {"status":502}\n\n']);
    const app = createApp(h.services, [...ROUTES, probe.def]);
    const key = h.key();
    const send = () => sendTo(app, "POST", "/api/v1/__events", { auth: key, headers: { "idempotency-key": "e" } });
    for (let i = 0; i < 2; i++) {
      const res = await send();
      expect(res.status).toBe(200);
      expect(res.body).toContain("event: error");
      expect(replayed(res)).toBeNull();
    }
    expect(probe.runs()).toBe(2);
    expect(storedKeys(h)).toBe(0);
  });

  it("a completed stream over MAX_KEPT_BYTES is recorded without its body: a duplicate gets 409", async () => {
    const h = makeHarness();
    const line = `event: delta\ndata: ${JSON.stringify({ text: "x".repeat(64 * 1024) })}\n\n`;
    const count = Math.ceil(MAX_KEPT_BYTES / line.length) + 1;
    const probe = eventsRoute(() => [...Array.from({ length: count }, () => line), "event: done\ndata: {}\n\n"]);
    const app = createApp(h.services, [...ROUTES, probe.def]);
    const key = h.key();
    const send = () => sendTo(app, "POST", "/api/v1/__events", { auth: key, headers: { "idempotency-key": "big" } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.body.length).toBeGreaterThan(MAX_KEPT_BYTES);
    expect(first.body.endsWith("event: done\ndata: {}\n\n")).toBe(true);
    const again = await send();
    expectErrorBody(again, 409, "idempotency_response_not_kept");
    expect(again.body.details).toMatchObject({ original_status: 200, limit_bytes: MAX_KEPT_BYTES });
    expect(probe.runs()).toBe(1);
  });
});

describe("Idempotency-Key: large responses", () => {
  it("a response over MAX_KEPT_BYTES is recorded without its body: a duplicate gets 409 with the first status", async () => {
    const h = makeHarness();
    const key = h.key();
    // A content of 400,000 quotes: its HTML writes each as &quot;, a conversion of 2.4 MB.
    const draft = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "Q", content: '"'.repeat(400_000) },
    });
    expect(draft.status).toBe(201);
    const body = { content_id: draft.body.content_id, target_format: "html" };
    const first = await post(h, "/api/v1/conversions", key, "big", body);
    expect(first.status).toBe(201);
    const stored = h.db.prepare("SELECT length(body) AS n, body_kept FROM idempotency_keys").get();
    expect(stored).toEqual({ n: 0, body_kept: 0 });

    const again = await post(h, "/api/v1/conversions", key, "big", body);
    const details = expectErrorBody(again, 409, "idempotency_response_not_kept");
    expect(details).toMatchObject({ original_status: 201, limit_bytes: MAX_KEPT_BYTES });
    // The operation did not run again.
    expect((await h.send("GET", "/api/v1/conversions", { auth: key })).body.data).toHaveLength(1);
    // Another body under the key is still another request.
    const other = await post(h, "/api/v1/conversions", key, "big", { ...body, target_format: "markdown" });
    expectErrorBody(other, 409, "idempotency_key_reused");
  });
});

describe("Idempotency-Key: secrets shown once", () => {
  const storedBodies = (h: Harness) =>
    (h.db.prepare("SELECT body FROM idempotency_keys").all() as { body: Buffer }[])
      .map((r) => r.body.toString("utf8"))
      .join("\n");

  it("a new API key's secret is not stored: the replay names the same key with key null", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const first = await post(h, "/api/v1/api-keys", token, "issue-1", { name: "CI" });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^svc_live_/);
    expect(storedBodies(h)).not.toContain(first.body.key);

    const replay = await post(h, "/api/v1/api-keys", token, "issue-1", { name: "CI" });
    expect(replay.status).toBe(201);
    expect(replayed(replay)).toBe("true");
    expect(replay.body).toEqual({ ...first.body, key: null });
    // One key was issued, and it works.
    const keys = await h.send("GET", "/api/v1/api-keys", { auth: token });
    expect(keys.body.data.filter((k: { name: string }) => k.name === "CI")).toHaveLength(1);
    expect((await h.send("GET", "/api/v1/api-keys/current", { auth: first.body.key })).status).toBe(200);
  });

  it("a generated password is not stored: the replay names the same user with password null", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const body = { account_id: h.a.id, email: "new@a.test" };
    const first = await post(h, "/api/v1/admin/users", token, "user-1", body);
    expect(first.status).toBe(201);
    expect(typeof first.body.password).toBe("string");
    expect(storedBodies(h)).not.toContain(first.body.password);

    const replay = await post(h, "/api/v1/admin/users", token, "user-1", body);
    expect(replay.status).toBe(201);
    expect(replayed(replay)).toBe("true");
    expect(replay.body).toEqual({ ...first.body, password: null });
    expect((await h.login("new@a.test", first.body.password)).length).toBeGreaterThan(0);
  });
});

describe("Idempotency-Key: the pipeline's checks come first", () => {
  it("a refused request (scope, workspace) stores nothing and the key stays usable", async () => {
    const h = makeHarness();
    const reader = h.key({ scopes: ["read"] });
    expectErrorBody(await post(h, "/api/v1/contents", reader, "k", { title: "T" }), 403, "insufficient_scope");
    const bound = h.key({ workspaceId: h.a.ws1 });
    const mismatch = await post(h, "/api/v1/contents", bound, "k", { title: "T", workspace_id: h.a.ws2 });
    expectErrorBody(mismatch, 403, "workspace_mismatch");
    expect(storedKeys(h)).toBe(0);
    const ok = await post(h, "/api/v1/contents", bound, "k", { title: "T" });
    expect(ok.status).toBe(201);
    // A replay still passes authentication: a revoked key gets 401, not the stored answer.
    h.services.store.apiKeys.revoke(keyRow(h, bound).id, new Date(h.clock.now()).toISOString());
    expectErrorBody(await post(h, "/api/v1/contents", bound, "k", { title: "T" }), 401);
  });

  it.each([
    ["empty", ""],
    ["256 characters", "x".repeat(256)],
    ["a space inside", "two words"],
    ["non-ASCII", "clé-1"],
  ])("refuses an Idempotency-Key that is %s with 400 validation_failed", async (_name, value) => {
    const h = makeHarness();
    const key = h.key();
    const res = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "T" },
      headers: { "idempotency-key": value },
    });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect(details.issues).toEqual([{ path: "header.idempotency-key", message: expect.any(String) }]);
    expect(contentsOf(h)).toBe(0);
  });

  it("accepts 255 visible ASCII characters", async () => {
    const h = makeHarness();
    const value = "a!~".repeat(85);
    expect(value).toHaveLength(255);
    expect((await post(h, "/api/v1/contents", h.key(), value, { title: "T" })).status).toBe(201);
  });

  it("is ignored on other methods and on public routes", async () => {
    const h = makeHarness();
    const key = h.key();
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "D" } });
    const patch = await h.send("PATCH", `/api/v1/contents/${draft.body.content_id}`, {
      auth: key,
      body: { title: "E" },
      headers: { "idempotency-key": "not valid here" },
    });
    expect(patch.status).toBe(200);
    const login = await h.send("POST", "/api/v1/auth/login", {
      body: { email: "admin@a.test", password: "correct horse battery staple" },
      headers: { "idempotency-key": "login" },
    });
    expect(login.status).toBe(200);
    expect(storedKeys(h)).toBe(0);
  });

  it("is described on every authenticated POST of the OpenAPI description", async () => {
    const h = makeHarness();
    const doc = (await h.send("GET", "/api/v1/openapi.json")).body;
    const posts = describedRoutes(ROUTES).filter((r) => r.method === "POST");
    expect(posts.length).toBeGreaterThan(5);
    for (const r of posts) {
      const names = doc.paths[r.path].post.parameters.map((p: { name: string }) => p.name);
      expect(names.includes("Idempotency-Key"), r.path).toBe(r.access !== "public");
    }
  });
});

describe("replayed errors", () => {
  it("carry the replay's own trace id in the body, as in X-Trace-Id", async () => {
    const h = makeHarness();
    const key = h.key();
    const send = () =>
      h.send("POST", "/api/v1/finalizeContent", {
        auth: key,
        headers: { "idempotency-key": "fin-missing" },
        body: { content_id: 424242, finalized_content: "x", edit_seconds: 1 },
      });
    const first = await send();
    const second = await send();
    expect(second.status).toBe(404);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.trace_id).toBe(second.headers.get("x-trace-id"));
    expect(second.body.trace_id).not.toBe(first.body.trace_id);
    expect({ ...second.body, trace_id: "" }).toEqual({ ...first.body, trace_id: "" });
  });
});
