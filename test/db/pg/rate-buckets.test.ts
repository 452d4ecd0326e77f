/**
 * The rate limiter whose buckets are rows of PostgreSQL (http/stored-ratelimit.ts, db/rate-buckets.ts): the same
 * arithmetic as the in-memory one (the shared cases), one statement's take exact under concurrent connections, refill
 * that never goes back when two servers' clocks differ, the peek that writes nothing, the pruning of full buckets.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate } from "../../../src/db/migrate.js";
import { openPostgres, type PgConnection } from "../../../src/db/pg/connection.js";
import { bind, translate } from "../../../src/db/pg/parameters.js";
import { RATE_TAKE_SQL } from "../../../src/db/rate-buckets.js";
import { createStore, type Store } from "../../../src/db/store.js";
import { ManualClock } from "../../../src/domain/clock.js";
import { StoredRateLimiter } from "../../../src/http/stored-ratelimit.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";
import { limiterCases } from "../../helpers/ratelimit-cases.js";

describePostgres("the rate limiter of servers sharing PostgreSQL", () => {
  let database: TestDatabase;
  let db: PgConnection;
  let store: Store;
  let made = 0;

  beforeAll(async () => {
    database = await testDatabase();
    db = openPostgres(database.url);
    migrate(db);
    store = createStore(db);
  });

  afterAll(async () => {
    db?.close();
    await database?.drop();
  });

  // Each limiter's identities are its own: the cases reuse the same names.
  limiterCases((clock) => {
    const limiter = new StoredRateLimiter(store, clock);
    const prefix = `case${++made}:`;
    return { take: (id, limits, peek) => limiter.take(prefix + id, limits, peek) } as StoredRateLimiter;
  });

  it("two servers' clocks differ: the one behind refills nothing, neither moves the bucket's time back", () => {
    const ahead = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
    const behind = new ManualClock(ahead.now() - 30_000);
    const one = new StoredRateLimiter(store, ahead);
    const two = new StoredRateLimiter(store, behind);
    const limits = { perMinute: 2 };
    expect(one.take("skew", limits).remaining).toBe(1);
    expect(two.take("skew", limits).remaining).toBe(0);
    // 30 s behind the bucket's time, the second server's clock would give a whole token back were time read back.
    behind.advance(29_000);
    expect(two.take("skew", limits)).toMatchObject({ allowed: false, retryAfterSeconds: 30 });
    expect(store.rateBuckets.get("skew")?.minute_at_ms).toBe(ahead.now());
    // Both report the same Reset: the bucket's own time, not their clocks'.
    expect(two.take("skew", limits, true)?.reset).toBe(one.take("skew", limits, true)?.reset);
    ahead.advance(30_000);
    expect(one.take("skew", limits).allowed).toBe(true);
  });

  it("150 takes at once on 10 connections of a fresh 100-per-minute identity: exactly 100 admitted", async () => {
    const sql = translate(RATE_TAKE_SQL);
    const clients = Array.from({ length: 10 }, () => new pg.Client({ connectionString: database.url }));
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const take = { id: "burst", now: Date.UTC(2026, 0, 15, 12, 0, 0), minute: 100, hour: 1000 };
      // Each connection sends its 15 in turn (one query at a time per client); the 10 run at once.
      const rows: pg.QueryResult[] = [];
      await Promise.all(
        clients.map(async (client) => {
          for (let i = 0; i < 15; i++) rows.push(await client.query(sql.text, bind(sql, [take])));
        }),
      );
      const admitted = rows.map((r) => r.rows[0]).filter((row) => row.admitted === "1");
      expect(admitted).toHaveLength(100);
      const left = admitted.map((row) => Number(row.minute_tokens)).sort((a, b) => b - a);
      expect(left).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
      expect(store.rateBuckets.get("burst")).toMatchObject({ minute_tokens: 0, hour_tokens: 900 });
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it("keeps the buckets in an unlogged table: a take's commit waits for no WAL flush", () => {
    const persistence = db.prepare("SELECT relpersistence FROM pg_class WHERE relname = 'rate_buckets'").pluck().get();
    expect(persistence).toBe("u");
  });

  it("a peek writes nothing: an identity never taken from has no row", () => {
    const limiter = new StoredRateLimiter(store, new ManualClock());
    expect(limiter.take("peeked", { perMinute: 5, perHour: 9 }, true)).toMatchObject({ limit: 5, remaining: 5 });
    expect(store.rateBuckets.get("peeked")).toBeUndefined();
  });

  it("forgets the rows whose buckets are full again, once a minute", () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
    const limiter = new StoredRateLimiter(store, clock);
    limiter.take("prune:x", { perMinute: 10, perHour: 10 });
    limiter.take("prune:y", { perMinute: 10 });
    clock.advance(2 * 60_000);
    limiter.take("prune:z", { perMinute: 10 });
    // x's hour bucket is not full yet; y's minute bucket is.
    expect(store.rateBuckets.get("prune:x")).toBeDefined();
    expect(store.rateBuckets.get("prune:y")).toBeUndefined();
    clock.advance(2 * 3_600_000);
    limiter.take("prune:z", { perMinute: 10 });
    expect(store.rateBuckets.get("prune:x")).toBeUndefined();
    expect(store.rateBuckets.get("prune:z")).toBeDefined();
  });
});
