/** Periodic jobs run once per period across servers (jobs/once-per-period.ts) over the periods' table (db/periodic.ts). */
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { oncePerPeriod, periodOf } from "../../src/jobs/once-per-period.js";

function periods() {
  const db = openDb(":memory:");
  migrate(db);
  return { db, store: createStore(db) };
}

describe("a periodic job once per period", () => {
  it("names a firing's period by its minute", () => {
    expect(periodOf(Date.parse("2030-06-15T09:00:00.000Z"))).toBe("2030-06-15T09:00:00.000Z");
    expect(periodOf(Date.parse("2030-06-15T09:00:59.999Z"))).toBe("2030-06-15T09:00:00.000Z");
    expect(periodOf(Date.parse("2030-06-15T09:01:00.000Z"))).toBe("2030-06-15T09:01:00.000Z");
  });

  it("gives each period to the first server that claims it, and forgets periods a day old", () => {
    const { db, store } = periods();
    expect(store.periodic.claim("purge", "2030-06-15T09:00:00.000Z", "srv_a")).toBe(true);
    expect(store.periodic.claim("purge", "2030-06-15T09:00:00.000Z", "srv_b")).toBe(false);
    expect(store.periodic.claim("retry", "2030-06-15T09:00:00.000Z", "srv_b")).toBe(true);
    expect(store.periodic.claim("purge", "2030-06-16T09:01:00.000Z", "srv_b")).toBe(true);
    const rows = db.prepare("SELECT job, period_start, ran_by FROM periodic_runs ORDER BY job, period_start").all();
    expect(rows).toEqual([
      { job: "purge", period_start: "2030-06-16T09:01:00.000Z", ran_by: "srv_b" },
      { job: "retry", period_start: "2030-06-15T09:00:00.000Z", ran_by: "srv_b" },
    ]);
  });

  it("runs the job on the server whose claim took the period, once per period", async () => {
    const { store } = periods();
    const ran: string[] = [];
    let now = Date.parse("2030-06-15T09:00:05.000Z");
    const serverJob = (server: string) =>
      oncePerPeriod(
        { name: "tick", expression: "* * * * *", run: () => void ran.push(server) },
        (job, period) => store.periodic.claim(job, period, server),
        () => now,
      );
    const a = serverJob("srv_a");
    const b = serverJob("srv_b");
    await a.run();
    await b.run();
    now += 60_000;
    await b.run();
    await a.run();
    expect(ran).toEqual(["srv_a", "srv_b"]);
  });
});
