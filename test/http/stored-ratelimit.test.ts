/**
 * The shared limiter's answers while its database does not answer (http/stored-ratelimit.ts): a peek reports nothing
 * (the answer goes without X-RateLimit-*, often the 503 of that very outage), a take fails as every store call does
 * (503 service_busy), and other errors are not hidden. Its arithmetic is tested on PostgreSQL
 * (test/db/pg/rate-buckets.test.ts).
 */
import { describe, expect, it } from "vitest";
import { PgUnavailableError } from "../../src/db/pg/errors.js";
import type { Store } from "../../src/db/store.js";
import { ManualClock } from "../../src/domain/clock.js";
import { StoredRateLimiter } from "../../src/http/stored-ratelimit.js";

/** A store whose every rate-bucket statement throws `error`. */
function failingStore(error: Error): Pick<Store, "rateBuckets"> {
  const fail = () => {
    throw error;
  };
  return { rateBuckets: { take: fail, get: fail, prune: fail } };
}

describe("StoredRateLimiter without its database", () => {
  it("peeks at nothing while PostgreSQL does not answer, and a take fails with the outage", () => {
    const limiter = new StoredRateLimiter(
      failingStore(new PgUnavailableError("no answer", "ECONNREFUSED")),
      new ManualClock(),
    );
    expect(limiter.take("addr:1", { perMinute: 60 }, true)).toBeUndefined();
    expect(() => limiter.take("addr:1", { perMinute: 60 })).toThrow(PgUnavailableError);
  });

  it("lets any other error of a peek through", () => {
    const limiter = new StoredRateLimiter(failingStore(new Error("syntax error")), new ManualClock());
    expect(() => limiter.take("addr:1", { perMinute: 60 }, true)).toThrow("syntax error");
  });
});
