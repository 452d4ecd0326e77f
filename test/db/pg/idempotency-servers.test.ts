/**
 * Idempotency-Key across servers on one PostgreSQL database (issue 34 point 2, http/idempotency-claims.ts):
 * concurrent duplicates split over two servers run the operation once and all get its answer, a retry on the other
 * server after completion replays, a claim whose server died (it is never renewed) is taken over by a duplicate, and
 * one left a day is purged.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate } from "../../../src/db/migrate.js";
import { openPostgres } from "../../../src/db/pg/connection.js";
import { createStore } from "../../../src/db/store.js";
import { iso } from "../../../src/domain/clock.js";
import { IDEMPOTENCY_TTL_MS } from "../../../src/http/idempotency.js";
import { SharedClaims } from "../../../src/http/idempotency-claims.js";
import { memoryLogger } from "../../../src/runtime/log.js";
import type { RunningServer } from "../../../src/server/start.js";
import type { Answer } from "../../helpers/harness.js";
import { sendTo } from "../../helpers/http.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";
import { initialisedDatabase, serverOn } from "../../helpers/postgres-servers.js";

describePostgres("Idempotency-Key on two servers sharing one PostgreSQL database", () => {
  let database: TestDatabase;
  let one: RunningServer;
  let two: RunningServer;
  let key: string;

  beforeAll(async () => {
    database = await testDatabase();
    key = initialisedDatabase(database.url);
    one = await serverOn(database.url);
    two = await serverOn(database.url);
  });

  afterAll(async () => {
    await Promise.allSettled([one?.close(), two?.close()]);
    await database?.drop();
  });

  const create = (server: RunningServer, idempotencyKey: string, title: string) =>
    sendTo(server.app, "POST", "/api/v1/contents", {
      auth: key,
      headers: { "idempotency-key": idempotencyKey },
      body: { title, content: "Created once, however many servers the duplicates reach." },
    });

  const titled = async (title: string) => {
    const list = await sendTo(one.app, "GET", "/api/v1/contents?limit=100", { auth: key });
    expect(list.status).toBe(200);
    return (list.body.data as { title: string }[]).filter((c) => c.title === title);
  };

  const replayed = (answers: Answer[]) => answers.filter((a) => a.headers.get("idempotent-replayed") === "true");

  it("runs 20 concurrent duplicates split over both servers once, and gives all of them its answer", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(i % 2 === 0 ? one : two, "split-key-1", "Split")),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body.content_id)).size).toBe(1);
    expect(replayed(answers)).toHaveLength(19);
    expect(await titled("Split")).toHaveLength(1);
  });

  it("replays on the other server a retry of a request the first completed", async () => {
    const first = await create(one, "retry-key-1", "Retried");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const retry = await create(two, "retry-key-1", "Retried");
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.content_id).toBe(first.body.content_id);
    expect(await titled("Retried")).toHaveLength(1);
  });

  it("refuses on the other server the key of a request in flight with another body", async () => {
    const answers = await Promise.all([create(one, "other-key-1", "First"), create(two, "other-key-1", "Second")]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)!.body.details.error_code).toBe("idempotency_key_reused");
  });

  it("takes over a claim its server stopped renewing, and waits for the release of one renewed", async () => {
    const db = openPostgres(database.url);
    try {
      migrate(db);
      const store = createStore(db, () => Date.now());
      const accountId = 1;
      const at: [number, string, string] = [accountId, "key_dead", "dead-server-key"];
      const clock = { now: () => Date.now() };
      // A server that claimed the key and died: its claim is there, and nobody renews it.
      expect(store.idempotency.claim(at, "fp", "dead-server", iso(clock.now()))).toBe(true);
      const claims = new SharedClaims(store, clock, memoryLogger(), { pollMs: 5, renewMs: 10, staleMs: 50 });
      const outcome = await claims.acquire(at, "fp", () => undefined);
      expect("held" in outcome).toBe(true);
      expect(store.idempotency.findClaim(at)?.claimed_by).toBe(claims.server);
      if (!("held" in outcome)) return;
      // A duplicate on another server waits until the holder releases the claim, then holds it.
      const other = new SharedClaims(store, clock, memoryLogger(), { pollMs: 5, renewMs: 10, staleMs: 60_000 });
      const waiting = other.acquire(at, "fp", () => undefined);
      outcome.held.release();
      const next = await waiting;
      expect(store.idempotency.findClaim(at)?.claimed_by).toBe(other.server);
      // Asked by a server that takes a claim as stale only after a minute: a loaded machine's late renewal of
      // `other`'s claim must not read as a dead server's.
      const third = new SharedClaims(store, clock, memoryLogger(), { pollMs: 5, renewMs: 10, staleMs: 60_000 });
      expect(await third.acquire(at, "another", () => undefined)).toEqual({ reused: true });
      if ("held" in next) next.held.release();
      expect(store.idempotency.findClaim(at)).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it("deletes the claims as old as a stored answer lives, and keeps the younger", async () => {
    const db = openPostgres(database.url);
    try {
      const store = createStore(db, () => Date.now());
      const now = Date.now();
      const old: [number, string, string] = [1, "key_dead", "day-old-key"];
      const young: [number, string, string] = [1, "key_dead", "young-key"];
      expect(store.idempotency.claim(old, "fp", "dead-server", iso(now - IDEMPOTENCY_TTL_MS - 1000))).toBe(true);
      expect(store.idempotency.claim(young, "fp", "dead-server", iso(now - 60_000))).toBe(true);
      const claims = new SharedClaims(store, { now: () => now }, memoryLogger());
      expect(claims.purgeOlderThan(IDEMPOTENCY_TTL_MS, 100)).toBe(1);
      expect(store.idempotency.findClaim(old)).toBeUndefined();
      expect(store.idempotency.findClaim(young)?.claimed_by).toBe("dead-server");
    } finally {
      db.close();
    }
  });
});
