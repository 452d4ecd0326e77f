/**
 * Rate limits across two servers on one PostgreSQL database (issue 34 point 3): a key's buckets are shared, so that
 * 150 concurrent requests of a fresh 100-per-minute key, split over the servers, admit exactly 100, each admitted
 * answer's X-RateLimit-Remaining is one of 99..0 once, and the refusals report the same whichever server answers.
 * Time moves only through manual clocks, a few milliseconds apart (two machines' clocks never agree exactly).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/domain/clock.js";
import { StoredRateLimiter } from "../../../src/http/stored-ratelimit.js";
import type { RunningServer } from "../../../src/server/start.js";
import { expectRateHeaders, sendTo } from "../../helpers/http.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";
import { initialisedDatabase, serverOn } from "../../helpers/postgres-servers.js";

describePostgres("rate limits of two servers on one PostgreSQL database", () => {
  let database: TestDatabase;
  let one: RunningServer;
  let two: RunningServer;
  let key: string;

  /** The server's limiter, as the server built it, over a manual clock of its own instead of the system's. */
  const onClock = (server: RunningServer, clock: ManualClock) => {
    expect(server.services.limiter).toBeInstanceOf(StoredRateLimiter);
    server.services.limiter = new StoredRateLimiter(server.services.store, clock);
  };

  beforeAll(async () => {
    database = await testDatabase();
    key = initialisedDatabase(database.url);
    one = await serverOn(database.url);
    two = await serverOn(database.url);
    const start = Date.UTC(2026, 0, 15, 12, 0, 0);
    onClock(one, new ManualClock(start));
    onClock(two, new ManualClock(start + 3));
  });

  afterAll(async () => {
    await Promise.allSettled([one?.close(), two?.close()]);
    await database?.drop();
  });

  it("150 concurrent requests of a fresh 100-per-minute key over both servers admit exactly 100", async () => {
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        sendTo(i % 2 ? two.app : one.app, "GET", "/api/v1/users/me", { auth: key }),
      ),
    );
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(admitted).toHaveLength(100);
    expect(refused).toHaveLength(50);
    const remaining = admitted.map((a) => expectRateHeaders(a).remaining).sort((a, b) => b - a);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    for (const a of answers) expect(expectRateHeaders(a).limit).toBe(100);
    // Every refusal, whichever server gave it, reports the same bucket the same way.
    const reports = new Set(
      refused.map((a) => JSON.stringify({ ...expectRateHeaders(a), retry: a.headers.get("retry-after") })),
    );
    expect(reports.size).toBe(1);
    expect(JSON.parse([...reports][0])).toMatchObject({ remaining: 0, retry: "1" });
  });
});
